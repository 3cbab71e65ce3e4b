package dev.rwml.schemas.registry;

/** No registry answered at the configured URLs, after every retry. */
public final class RegistryUnreachableException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public RegistryUnreachableException(
            final String urls, final int attempts, final Throwable cause) {
        super(
                "schema registry at "
                        + urls
                        + " is unreachable after "
                        + attempts
                        + " attempt(s) ("
                        + describe(cause)
                        + "); check that it is running, that schema.registry.url names its host,"
                        + " port and API path (Apicurio: http://host:8080/apis/ccompat/v7), and"
                        + " the TLS settings when the URL is https",
                -1,
                -1,
                cause);
    }

    private static String describe(final Throwable cause) {
        if (cause == null) {
            return "no response";
        }
        final String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
