package dev.rwml.reward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.NextStateKind;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.scoring.group.AdvantageMode;
import dev.rwml.scoring.score.RewardSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RewardConfigTest {

    @TempDir Path dir;

    @Test
    void shouldUseThePapersDefaults() {
        final RewardConfig config =
                RewardConfig.fromMap(
                        Map.of(
                                "run",
                                "r1",
                                "bootstrap.servers",
                                "b:9092",
                                "schema.registry.url",
                                "mock://x"));
        assertThat(config.sourceRun()).isEqualTo("r1");
        assertThat(config.isRescore()).isFalse();
        assertThat(config.subsample().easyKeepProbability()).isEqualTo(0.1);
        assertThat(config.subsample().keepHard()).isTrue();
        assertThat(config.advantageMode()).isEqualTo(AdvantageMode.GRPO);
        assertThat(config.rewardSpecs().specFor("alfworld", NextStateKind.TEXT))
                .isEqualTo(RewardSpec.cosine(0.8));
        assertThat(config.embedding().provider()).isEqualTo("minilm");
        assertThat(config.applicationId()).isEqualTo("rwml-r1-reward");
        assertThat(config.usesEnv("anything")).isTrue();
    }

    @Test
    void shouldLetTheEnvironmentOverrideTheFile() throws IOException {
        final Path file = dir.resolve("reward.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "run=r2",
                        "bootstrap.servers=file:9092",
                        "schema.registry.url=http://registry:8080/apis/ccompat/v7",
                        "join.window=PT5M",
                        "envs=alfworld, retail",
                        "reward.spec=TEXT=cosine:0.75",
                        "advantage=dr-grpo",
                        "streams.commit.interval.ms=200"));

        final RewardConfig config =
                RewardConfig.load(
                        new SettingsDefinition.Sources(
                                Map.of(),
                                Optional.of(file),
                                Map.of(
                                        "RWML_REWARD_BOOTSTRAP_SERVERS", "env:9092",
                                        "RWML_REWARD_EASY_KEEP_PROBABILITY", "0.2",
                                        "RWML_REWARD_SOURCE_RUN", "r1"),
                                Map.of(),
                                Map.of()));

        assertThat(config.bootstrapServers()).isEqualTo("env:9092");
        assertThat(config.joinWindow()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.envs()).isEqualTo(Set.of("alfworld", "retail"));
        assertThat(config.usesEnv("airline")).isFalse();
        assertThat(config.rewardSpecs().specFor("alfworld", NextStateKind.TEXT))
                .isEqualTo(RewardSpec.cosine(0.75));
        assertThat(config.advantageMode()).isEqualTo(AdvantageMode.DR_GRPO);
        assertThat(config.subsample().easyKeepProbability()).isEqualTo(0.2);
        assertThat(config.isRescore()).isTrue();
        assertThat(config.streamsOverrides()).containsEntry("commit.interval.ms", "200");
    }

    @Test
    void shouldRejectBadSettingsWithTheKeyToFix() {
        final Map<String, String> base =
                Map.of("run", "r1", "bootstrap.servers", "b:1", "schema.registry.url", "mock://x");
        assertThatThrownBy(() -> RewardConfig.fromMap(Map.of("bootstrap.servers", "b:1")))
                .hasMessageContaining("run");
        assertThatThrownBy(() -> RewardConfig.fromMap(with(base, "join.window", "10 minutes")))
                .hasMessageContaining("join.window")
                .hasMessageContaining("ISO-8601 duration");
        assertThatThrownBy(() -> RewardConfig.fromMap(with(base, "easy.keep.probability", "1.5")))
                .hasMessageContaining("easy.keep.probability");
        assertThatThrownBy(() -> RewardConfig.fromMap(with(base, "embedding.provider", "openai")))
                .hasMessageContaining("embedding.url");
        assertThatThrownBy(() -> RewardConfig.fromMap(with(base, "join.windw", "PT1M")))
                .hasMessageContaining("unknown reward setting(s) [join.windw]");
        assertThatThrownBy(() -> RewardConfig.fromMap(with(base, "run", "bad.name")))
                .hasMessageContaining("bad.name");
        assertThatThrownBy(
                        () ->
                                RewardConfig.fromMap(
                                        Map.of("run", "r1", "schema.registry.url", "mock://x")))
                .hasMessageContaining("bootstrap.servers")
                .hasMessageContaining("RWML_REWARD_");
    }

    private static Map<String, String> with(
            final Map<String, String> base, final String key, final String value) {
        final java.util.HashMap<String, String> copy = new java.util.HashMap<>(base);
        copy.put(key, value);
        return copy;
    }
}
