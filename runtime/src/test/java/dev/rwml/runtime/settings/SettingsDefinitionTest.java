package dev.rwml.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.rwml.runtime.StageName;
import dev.rwml.schemas.topics.RunName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SettingsDefinitionTest {

    private static final SettingsDefinition DEF =
            SettingsDefinition.of(
                    StageName.REWARD,
                    def ->
                            def.define(
                                    "join.window",
                                    ConfigDef.Type.STRING,
                                    "PT30M",
                                    Durations.atLeast(Duration.ofSeconds(1)),
                                    ConfigDef.Importance.MEDIUM,
                                    "How far apart in time."),
                    List.of("streams."));

    @TempDir Path dir;

    /** The required settings, for {@code run}, and {@code more}. */
    private static Map<String, String> required(final String run, final Map<String, String> more) {
        final Map<String, String> all = new HashMap<>(more);
        all.put("run", run);
        all.put("bootstrap.servers", "b:1");
        all.put("schema.registry.url", "mock://x");
        return all;
    }

    @Test
    void shouldLayerClusterFileThenConfigFileThenEnvironmentThenSetsThenFlags() throws Exception {
        final Path file = dir.resolve("reward.properties");
        Files.writeString(
                file,
                "run=from-file\nbootstrap.servers=file:9092\nschema.registry.url=http://file:8081\n"
                        + "join.window=PT1M\n");

        final Settings fromFile =
                DEF.load(
                        new SettingsDefinition.Sources(
                                Map.of(
                                        "bootstrap.servers", "up:9092",
                                        "schema.registry.url", "http://up:8081"),
                                Optional.of(file),
                                Map.of(),
                                Map.of(),
                                Map.of()));
        assertThat(fromFile.connection().bootstrapServers()).isEqualTo("file:9092");
        assertThat(fromFile.getDuration("join.window")).isEqualTo(Duration.ofMinutes(1));

        final Settings layered =
                DEF.load(
                        new SettingsDefinition.Sources(
                                Map.of(),
                                Optional.of(file),
                                Map.of(
                                        "RWML_REWARD_RUN", "from-env",
                                        "RWML_REWARD_JOIN_WINDOW", "PT2M",
                                        "RWML_BOOTSTRAP_SERVERS", "global-env:9092"),
                                Map.of("join.window", "PT3M"),
                                Map.of("run", "from-flag")));
        assertThat(layered.run()).isEqualTo("from-flag");
        assertThat(layered.getDuration("join.window")).isEqualTo(Duration.ofMinutes(3));
        assertThat(layered.connection().bootstrapServers()).isEqualTo("global-env:9092");
    }

    @Test
    void shouldPreferTheStageVariableOverTheGlobalOne() {
        final Settings settings =
                DEF.load(
                        new SettingsDefinition.Sources(
                                Map.of(),
                                Optional.empty(),
                                Map.of(
                                        "RWML_BOOTSTRAP_SERVERS", "global:9092",
                                        "RWML_REWARD_BOOTSTRAP_SERVERS", "stage:9092",
                                        "RWML_SCHEMA_REGISTRY_URL", "mock://x"),
                                Map.of(),
                                Map.of("run", "r1")));
        assertThat(settings.connection().bootstrapServers()).isEqualTo("stage:9092");
    }

    @Test
    void shouldGiveSecuritySettingsToEveryKafkaAndRegistryClient() {
        final Connection connection =
                DEF.parse(
                                Map.of(
                                        "run", "r1",
                                        "bootstrap.servers", "b:9093",
                                        "security.protocol", "SASL_SSL",
                                        "sasl.mechanism", "PLAIN",
                                        "ssl.truststore.location", "/etc/trust.jks",
                                        "schema.registry.url", "https://reg:8081",
                                        "basic.auth.user.info", "u:p",
                                        "schema.registry.ssl.truststore.location", "/t.jks",
                                        "streams.num.standby.replicas", "1"))
                        .connection();

        assertThat(connection.kafkaConfig(Map.of("client.id", "x")))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("ssl.truststore.location", "/etc/trust.jks")
                .containsEntry("bootstrap.servers", "b:9093")
                .containsEntry("client.id", "x")
                .doesNotContainKeys("basic.auth.user.info", "streams.num.standby.replicas");
        assertThat(connection.registryConfig())
                .containsEntry("basic.auth.user.info", "u:p")
                .containsEntry("schema.registry.ssl.truststore.location", "/t.jks")
                .doesNotContainKey("security.protocol");
        assertThat(connection.toString()).doesNotContain("u:p");
    }

    @Test
    void shouldRefuseUnknownKeysListingTheKnownOnes() {
        assertThatThrownBy(() -> DEF.parse(required("r1", Map.of("join.windw", "PT1M"))))
                .hasMessageContaining("unknown reward setting(s) [join.windw]")
                .hasMessageContaining("join.window")
                .hasMessageContaining("rwml reward --help-config");
    }

    @Test
    void shouldNameTheKeyAndTheWayToFixAnInvalidValue() {
        assertThatThrownBy(() -> DEF.parse(required("r1", Map.of("join.window", "30s"))))
                .hasMessageContaining("join.window")
                .hasMessageContaining("ISO-8601")
                .hasMessageContaining("RWML_REWARD_");
        assertThatThrownBy(() -> DEF.parse(Map.of("run", "r1")))
                .hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> DEF.parse(required("bad.run", Map.of())))
                .hasMessageContaining("run");
    }

    @Test
    void shouldRefuseARunLongerThanRunNameAllowsAtSettingsValidation() {
        final String longest = "r".repeat(RunName.MAX_LENGTH);
        final String tooLong = longest + "x";
        final String runNameMessage =
                catchThrowableOfType(() -> RunName.of(tooLong), IllegalArgumentException.class)
                        .getMessage();
        assertThat(DEF.parse(required(longest, Map.of())).run()).isEqualTo(longest);
        assertThatThrownBy(() -> DEF.parse(required(tooLong, Map.of())))
                .hasMessageContaining("run")
                .hasMessageContaining(runNameMessage);
    }

    @Test
    void shouldDocumentEveryKeyInItsTable() {
        final String table = DEF.markdownTable() + SettingsDefinition.commonMarkdownTable();
        for (final String key : DEF.definition().names()) {
            assertThat(table).contains("| `" + key + "` |");
        }
        assertThat(DEF.markdownTable())
                .contains("| `join.window` | `PT30M` | How far apart in time. |")
                .contains("`streams.*`")
                .doesNotContain("| `run` |");
        assertThat(SettingsDefinition.commonMarkdownTable())
                .contains("| `run` | required |")
                .contains("`sasl.*`");
    }
}
