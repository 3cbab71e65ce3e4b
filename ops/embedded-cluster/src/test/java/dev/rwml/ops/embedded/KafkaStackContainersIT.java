package dev.rwml.ops.embedded;

import static dev.rwml.ops.embedded.ClusterProbe.consumeAll;
import static dev.rwml.ops.embedded.ClusterProbe.get;
import static dev.rwml.ops.embedded.ClusterProbe.produce;
import static dev.rwml.ops.embedded.ClusterProbe.register;
import static dev.rwml.ops.embedded.ClusterProbe.schemaBody;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Testcontainers;

@Testcontainers(disabledWithoutDocker = true)
class KafkaStackContainersIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.testcontainers();

    @Test
    void shouldProduceConsumeAndRegisterSchemasWhenRunInContainers() throws Exception {
        produce(KAFKA.bootstrapServers(), "containers", "hello");
        assertThat(consumeAll(KAFKA.bootstrapServers(), "containers")).containsExactly("hello");
        final int id =
                register(
                        KAFKA.schemaRegistryUrl(),
                        "containers-value",
                        schemaBody("C", "{\"name\":\"c\",\"type\":\"string\"}"));
        assertThat(get(KAFKA.schemaRegistryUrl() + "/schemas/ids/" + id).statusCode())
                .isEqualTo(200);
    }
}
