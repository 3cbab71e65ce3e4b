package dev.rwml.schemas.registry;

/** The registry refused the credentials (HTTP 401) or the permission (HTTP 403). */
public final class RegistryUnauthorizedException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public RegistryUnauthorizedException(
            final String registry,
            final String operation,
            final String registryMessage,
            final int httpStatus,
            final int errorCode) {
        super(
                "schema registry at "
                        + registry
                        + " refused to "
                        + operation
                        + " (HTTP "
                        + httpStatus
                        + ": "
                        + registryMessage
                        + "); check basic.auth.user.info (user:password) and the user's"
                        + " permissions",
                httpStatus,
                errorCode);
    }

    @Override
    public boolean isRetriable() {
        return false;
    }
}
