package dev.rwml.ops.embedded;

import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** Kafka and Apicurio Registry in Docker containers, configured like the embedded cluster. */
final class ContainerBackend implements KafkaStack.Backend {

    /** The broker image of the same version as the Kafka client jars in use. */
    static final String KAFKA_IMAGE = "apache/kafka:" + AppInfoParser.getVersion();

    static final String REGISTRY_IMAGE =
            "apicurio/apicurio-registry:" + ApicurioDistribution.version();

    private final KafkaContainer kafka;
    private final GenericContainer<?> registry;

    ContainerBackend() {
        kafka = new KafkaContainer(DockerImageName.parse(KAFKA_IMAGE));
        registry =
                new GenericContainer<>(DockerImageName.parse(REGISTRY_IMAGE))
                        .withExposedPorts(8080)
                        .withEnv("APICURIO_CCOMPAT_USE_CANONICAL_HASH", "true")
                        .withEnv("APICURIO_REST_DELETION_ARTIFACT_ENABLED", "true")
                        .withEnv("APICURIO_REST_DELETION_ARTIFACT_VERSION_ENABLED", "true")
                        .withEnv("APICURIO_REST_DELETION_GROUP_ENABLED", "true")
                        .waitingFor(Wait.forHttp("/health/ready").forPort(8080));
        try {
            kafka.start();
            registry.start();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    @Override
    public String schemaRegistryUrl() {
        return "http://"
                + registry.getHost()
                + ":"
                + registry.getMappedPort(8080)
                + "/apis/ccompat/v7";
    }

    @Override
    public void close() {
        registry.stop();
        kafka.stop();
    }
}
