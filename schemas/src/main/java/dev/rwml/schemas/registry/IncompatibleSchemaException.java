package dev.rwml.schemas.registry;

/** The registry refused a schema because it breaks the subject's compatibility rule (HTTP 409). */
public final class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    private final String subject;
    private final String reason;

    public IncompatibleSchemaException(
            final String subject, final String reason, final int httpStatus, final int errorCode) {
        super(
                "schema for subject "
                        + subject
                        + " is incompatible with the versions already registered: "
                        + reason
                        + ". Evolve it compatibly (add fields with defaults, never remove or retype"
                        + " one) or change the subject's compatibility level",
                httpStatus,
                errorCode);
        this.subject = subject;
        this.reason = reason;
    }

    public String subject() {
        return subject;
    }

    /** The registry's own explanation of the incompatibility. */
    public String reason() {
        return reason;
    }

    @Override
    public boolean isRetriable() {
        return false;
    }
}
