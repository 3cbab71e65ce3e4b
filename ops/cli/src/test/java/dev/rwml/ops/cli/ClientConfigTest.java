package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.channel.init.BaseModelInit;
import dev.rwml.env.produce.TransitionPublisher;
import dev.rwml.pipeline.deadletters.DeadLetterStore;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.reward.RewardConfig;
import dev.rwml.runtime.settings.Connection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * The {@code --client-config} file reaches every client a command creates: the non-stage commands
 * through {@link ClusterOptions#connection()}, the stages through {@link StageSettings}.
 */
class ClientConfigTest {

    private static final String SECURITY =
            """
            security.protocol=SASL_SSL
            sasl.mechanism=PLAIN
            sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \
            username="rwml" password="secret";
            ssl.truststore.location=/etc/rwml/truststore.jks
            basic.auth.credentials.source=USER_INFO
            basic.auth.user.info=rwml:secret
            """;

    private static final String[] ADDRESSES = {
        "--bootstrap-servers", "broker:9093", "--schema-registry-url", "mock://client-config-test"
    };

    @TempDir Path dir;

    /** Any command's cluster and stage options, as picocli fills them. */
    static final class Options {
        @Mixin ClusterOptions cluster;
        @Mixin StageSettings settings;
    }

    private Path clientConfig(final String text) throws IOException {
        final Path file = dir.resolve("client.properties");
        Files.writeString(file, text);
        return file;
    }

    private <T> T parse(final T command, final String... args) {
        new CommandLine(command).parseArgs(args);
        return command;
    }

    private String[] args(final Path file, final String... more) {
        final String[] all = new String[more.length + 4 + ADDRESSES.length];
        System.arraycopy(more, 0, all, 0, more.length);
        System.arraycopy(
                new String[] {"--client-config", file.toString(), "--data-dir", dir.toString()},
                0,
                all,
                more.length,
                4);
        System.arraycopy(ADDRESSES, 0, all, more.length + 4, ADDRESSES.length);
        return all;
    }

    @Test
    void shouldCombineTheResolvedAddressesWithTheFilesSecuritySettings() throws IOException {
        final Options options = parse(new Options(), args(clientConfig(SECURITY)));

        final Connection connection = options.cluster.connection();

        assertThat(connection.kafkaConfig(Map.of()))
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.truststore.location", "/etc/rwml/truststore.jks")
                .doesNotContainKey("basic.auth.user.info");
        assertThat(connection.registryConfig())
                .containsEntry("schema.registry.url", "mock://client-config-test")
                .containsEntry("basic.auth.user.info", "rwml:secret");
        assertThat(connection.toString()).doesNotContain("secret");
    }

    @Test
    void shouldTakeTheAddressesFromTheFileBelowTheFlags() throws IOException {
        final Path file =
                clientConfig(
                        SECURITY
                                + "bootstrap.servers=from-file:9093\n"
                                + "schema.registry.url=mock://from-file\n");

        final Options fromFile =
                parse(
                        new Options(),
                        "--client-config",
                        file.toString(),
                        "--data-dir",
                        dir.toString());
        final Options flagged = parse(new Options(), args(file));

        assertThat(fromFile.cluster.connection().bootstrapServers()).isEqualTo("from-file:9093");
        assertThat(fromFile.cluster.connection().schemaRegistryUrl()).isEqualTo("mock://from-file");
        assertThat(flagged.cluster.connection().bootstrapServers()).isEqualTo("broker:9093");
    }

    @Test
    void shouldRefuseKeysThatAreNoConnectionSettings() throws IOException {
        final Options options =
                parse(new Options(), args(clientConfig(SECURITY + "batch.size=4\nrun=r1\n")));

        assertThatThrownBy(() -> options.cluster.connection())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[batch.size, run]")
                .hasMessageContaining("no connection settings")
                .hasMessageContaining("--config");
    }

    @Test
    void shouldReportARefusedKeyAsTheCommandsError() throws IOException {
        final Path file = clientConfig("group.id=mine\n");

        final CliRunner.Result r = rwml("dlq", "--run", "r1", "--client-config", file.toString());

        assertThat(r.code()).isNotZero();
        assertThat(r.err()).contains("--client-config").contains("[group.id]");
    }

    @Test
    void shouldGiveTheDeadLetterClientsTheSecuritySettings() throws IOException {
        final DlqCommand dlq = parse(new DlqCommand(), args(clientConfig(SECURITY), "--run", "r1"));

        try (DeadLetterStore store = dlq.store()) {
            assertThat(store.consumerConfig())
                    .containsEntry("bootstrap.servers", "broker:9093")
                    .containsEntry("security.protocol", "SASL_SSL")
                    .containsEntry("sasl.mechanism", "PLAIN")
                    .containsEntry("isolation.level", "read_committed");
            assertThat(store.producerConfig())
                    .containsEntry("security.protocol", "SASL_SSL")
                    .containsEntry("ssl.truststore.location", "/etc/rwml/truststore.jks")
                    .containsEntry("acks", "all");
        }
    }

    @Test
    void shouldGiveTheEnvironmentProducerTheSecuritySettings() throws IOException {
        final EnvCommand.CommonOptions common =
                parse(new EnvCommand.CommonOptions(), args(clientConfig(SECURITY)));

        assertThat(TransitionPublisher.producerConfig(common.kafka(), "run"))
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("enable.idempotence", true);
        assertThat(common.kafka().registryConfig())
                .containsEntry("basic.auth.user.info", "rwml:secret");
    }

    @Test
    void shouldGiveModelInitTheSecuritySettings() throws IOException {
        final ModelCommand.Init init =
                parse(new ModelCommand.Init(), args(clientConfig(SECURITY), "--run", "r1"));

        final BaseModelInit.Config config = init.config();

        assertThat(config.connection().kafkaConfig(Map.of()))
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL");
        assertThat(config.connection().registryConfig())
                .containsEntry("basic.auth.user.info", "rwml:secret");
        assertThat(config.toString()).doesNotContain("secret");
    }

    @Test
    void shouldMakeTheFilesKeysPartOfAStagesSettings() throws IOException {
        final Options options = parse(new Options(), args(clientConfig(SECURITY)));

        final PredictionConfig prediction =
                PredictionConfig.load(
                        options.settings.sources(
                                options.cluster, StageSettings.flags("run", "r1")));

        assertThat(prediction.connection().kafkaConfig(Map.of()))
                .containsEntry("bootstrap.servers", "broker:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN");
        assertThat(prediction.connection().registryConfig())
                .containsEntry("basic.auth.user.info", "rwml:secret");
    }

    @Test
    void shouldLetTheStagesConfigFileAndSetOverTheClientConfig() throws IOException {
        final Path stageFile = dir.resolve("reward.properties");
        Files.writeString(stageFile, "sasl.mechanism=SCRAM-SHA-512\n");
        final Options options =
                parse(
                        new Options(),
                        args(
                                clientConfig(SECURITY),
                                "--config",
                                stageFile.toString(),
                                "--set",
                                "ssl.truststore.location=/other/truststore.jks"));

        final RewardConfig reward =
                RewardCommand.config("r1", options.cluster, options.settings, Map.of());

        assertThat(reward.connection().kafkaConfig(Map.of()))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.location", "/other/truststore.jks");
    }
}
