package dev.rwml.schemas.registry;

/** The registry does not know the schema asked for: an unknown id, or a schema never registered. */
public final class UnknownSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private UnknownSchemaException(
            final String message, final int httpStatus, final int errorCode) {
        super(message, httpStatus, errorCode);
    }

    /** No schema has this id in the registry at {@code registry}. */
    public static UnknownSchemaException forId(
            final int id, final String registry, final int httpStatus, final int errorCode) {
        return new UnknownSchemaException(
                "schema id "
                        + id
                        + " is not registered in "
                        + registry
                        + "; the data was written against another registry, or the registry lost"
                        + " its state",
                httpStatus,
                errorCode);
    }

    /** The schema was never registered under {@code subject}. */
    public static UnknownSchemaException forSubject(
            final String subject,
            final String registry,
            final int httpStatus,
            final int errorCode) {
        return new UnknownSchemaException(
                "schema is not registered under subject "
                        + subject
                        + " in "
                        + registry
                        + "; register it first or set auto.register.schemas=true",
                httpStatus,
                errorCode);
    }

    @Override
    public boolean isRetriable() {
        return false;
    }
}
