package dev.rwml.ops.cli;

import static dev.rwml.ops.cli.CliRunner.rwml;
import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.env.EnvironmentSource;
import dev.rwml.env.EpisodeRunner;
import dev.rwml.env.agent.RandomAgent;
import dev.rwml.env.alfworld.AlfworldGames;
import dev.rwml.env.alfworld.Grammar;
import dev.rwml.env.alfworld.Split;
import dev.rwml.env.produce.EpisodeClock;
import dev.rwml.ops.cli.CliRunner.Result;
import dev.rwml.ops.embedded.KafkaStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code rwml env run} and {@code rwml env import} in-process against the embedded cluster.
 */
class EnvCommandIT {

    @RegisterExtension static final KafkaStack KAFKA = KafkaStack.embedded();

    @TempDir Path dir;

    @Test
    void shouldPublishTheEpisodesTransitionsWhenRunFromTheCommandLine() {
        final Result result =
                rwml(
                        "env",
                        "run",
                        "--env",
                        "alfworld",
                        "--agents",
                        "2",
                        "--episodes",
                        "3",
                        "--split",
                        "valid_unseen",
                        "--seed",
                        "9404",
                        "--policy",
                        "random",
                        "--grammar",
                        "older",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        KAFKA.schemaRegistryUrl());
        assertThat(result.code()).as(result.err()).isZero();

        final EnvironmentSource source = AlfworldGames.source(Split.VALID_UNSEEN, Grammar.OLDER);
        final Instant base = Instant.parse("2026-01-01T00:00:00Z");
        long expected = 0;
        for (int n = 0; n < 3; n++) {
            expected +=
                    new EpisodeRunner(
                                    2,
                                    EpisodeRunner.DEFAULT_MAX_STEPS,
                                    EpisodeClock.forEpisode(base, n))
                            .run(source, new RandomAgent(), "agent-" + n % 2, 9404, n)
                            .size();
        }
        assertThat(result.out())
                .contains("rwml env run: published 3 episodes, " + expected + " transitions");
    }

    @Test
    void shouldReportTheMalformedLineAndImportTheRestWhenImporting() throws Exception {
        final Path file = dir.resolve("t.jsonl");
        final String ok =
                "{\"split\":\"cli-it\",\"episode_id\":\"cli-1\",\"task\":\"t\","
                        + "\"initial_observation\":\"o0\",\"steps\":[{\"action\":\"a\","
                        + "\"observation\":\"o1\",\"done\":true}]}";
        Files.write(file, List.of(ok, "{oops", ok.replace("cli-1", "cli-2")));
        final Result result =
                rwml(
                        "env",
                        "import",
                        file.toString(),
                        "--env-name",
                        "alfworld",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--schema-registry-url",
                        KAFKA.schemaRegistryUrl());
        assertThat(result.code()).as(result.err()).isZero();
        assertThat(result.err()).contains("skipped line 2: not valid JSON");
        assertThat(result.out())
                .contains("rwml env import: imported 2 episodes / 2 transitions, skipped 1 line");
    }

    @Test
    void shouldExplainAnUnknownPolicy() {
        final Result result = rwml("env", "run", "--env", "retail", "--policy", "greedy");
        assertThat(result.code()).isEqualTo(2);
        assertThat(result.err())
                .contains("unknown policy 'greedy'; use expert, random, epsilon or model");
    }

    @Test
    void shouldSayWhatTheModelPolicyNeeds() {
        final Result noRun = rwmlOnCluster("env", "run", "--env", "alfworld", "--policy", "model");
        assertThat(noRun.code()).isEqualTo(2);
        assertThat(noRun.err())
                .contains("--policy model needs --run NAME: the run whose model acts");
        final Result runAlone = rwmlOnCluster("env", "run", "--env", "alfworld", "--run", "r");
        assertThat(runAlone.code()).isEqualTo(2);
        assertThat(runAlone.err())
                .contains("--run names the run whose model acts: add --policy model");
        final Result partGame =
                rwmlOnCluster(
                        "env",
                        "run",
                        "--env",
                        "alfworld",
                        "--policy",
                        "model",
                        "--run",
                        "r",
                        "--episodes",
                        "5",
                        "--episodes-per-game",
                        "2");
        assertThat(partGame.code()).isEqualTo(2);
        assertThat(partGame.err())
                .contains("--episodes (5) must be a multiple of --episodes-per-game (2)");
        final Result scriptedGroups =
                rwmlOnCluster("env", "run", "--env", "alfworld", "--episodes-per-game", "2");
        assertThat(scriptedGroups.code()).isEqualTo(2);
        assertThat(scriptedGroups.err())
                .contains("--episodes-per-game groups the model's episodes: add --policy model");
        final Result noVersion =
                rwmlOnCluster(
                        "env",
                        "run",
                        "--env",
                        "alfworld",
                        "--policy",
                        "model",
                        "--run",
                        "never-initialised",
                        "--wait-for-model",
                        "2");
        assertThat(noVersion.code()).isEqualTo(1);
        assertThat(noVersion.err())
                .contains("run never-initialised published no model version in 2 s")
                .contains("create it with rwml model init --run never-initialised");
    }

    private static Result rwmlOnCluster(final String... args) {
        final String[] all = Arrays.copyOf(args, args.length + 4);
        all[args.length] = "--bootstrap-servers";
        all[args.length + 1] = KAFKA.bootstrapServers();
        all[args.length + 2] = "--schema-registry-url";
        all[args.length + 3] = KAFKA.schemaRegistryUrl();
        return rwml(all);
    }
}
