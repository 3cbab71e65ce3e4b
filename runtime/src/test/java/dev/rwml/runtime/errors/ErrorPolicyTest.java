package dev.rwml.runtime.errors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.schemas.registry.SchemaRegistryException;
import dev.rwml.schemas.registry.UnknownSchemaException;
import dev.rwml.schemas.serde.EventDecodingException;
import org.junit.jupiter.api.Test;

class ErrorPolicyTest {

    /** Another service's answer, as the embedding client reports one. */
    private static final class Answer extends ServiceException {
        private static final long serialVersionUID = 1L;

        Answer(final int status) {
            super("TEST", "HTTP " + status, status, null);
        }
    }

    @Test
    void shouldStopRatherThanDeadLetterWhenAServiceRefusesTheCredentials() {
        assertThat(ErrorPolicy.classify(new RuntimeException("wrapped", new Answer(401))))
                .isEqualTo(ErrorPolicy.Action.FAIL);
        assertThat(ErrorPolicy.classify(new Answer(400))).isEqualTo(ErrorPolicy.Action.DEAD_LETTER);
    }

    @Test
    void shouldStopWhenTheRegistryAnswersALookupWithNeitherTheSchemaNorUnknownId() {
        final SchemaRegistryException wrongType =
                new SchemaRegistryException("schema 7 is JSON, not Avro", 422, 42201);

        assertThat(ErrorPolicy.isRegistryRefusal(wrongType)).isTrue();
        assertThat(ErrorPolicy.classify(wrongType)).isEqualTo(ErrorPolicy.Action.FAIL);
    }

    @Test
    void shouldDeadLetterAnUnknownSchemaIdAndRetryARegistryOutage() {
        final EventDecodingException unknown =
                new EventDecodingException(
                        EventDecodingException.Reason.UNKNOWN_SCHEMA_ID,
                        "rwml.r0.predictions",
                        "schema id 7 is not registered",
                        UnknownSchemaException.forId(7, "http://registry:8081", 404, 40403));

        assertThat(ErrorPolicy.classify(unknown)).isEqualTo(ErrorPolicy.Action.DEAD_LETTER);
        assertThat(ErrorPolicy.classify(new SchemaRegistryException("overloaded", 503, -1)))
                .isEqualTo(ErrorPolicy.Action.RETRY);
    }
}
