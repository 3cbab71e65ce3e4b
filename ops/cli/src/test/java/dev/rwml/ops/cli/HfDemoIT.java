package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.evaluation.VersionScore;
import dev.rwml.ops.cli.demo.ReportWriter;
import dev.rwml.pipeline.local.DemoRun;
import dev.rwml.pipeline.local.DemoSettings;
import dev.rwml.worldmodel.hf.HfFixtures;
import dev.rwml.worldmodel.hf.LoraConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rwml demo --model hf:DIR --lora}: the demo on a Hugging Face checkpoint (the tiny random
 * Qwen2 with a chat template) on its own embedded cluster: version 0 is the checkpoint, the stages
 * predict and reward with it, the held-out set is scored and the report written. A random model
 * seldom closes its answer, so no version after 0 is asked for.
 */
@Tag("system")
class HfDemoIT {

    @TempDir Path dir;

    @Test
    void shouldRunTheDemoOnAHuggingFaceCheckpointWithLora() throws Exception {
        final Path checkpoint = HfFixtures.chatCheckpoint(dir.resolve("qwen2-tiny-chat"));
        final StringWriter terminal = new StringWriter();
        final DemoRun demo =
                new DemoRun(
                        dir.resolve("demo"),
                        DemoSettings.of("tiny", true).withBudget(Duration.ofSeconds(40), 1),
                        Optional.of(
                                new DemoRun.HfBase(
                                        checkpoint, Optional.of(LoraConfig.parse("r=4")))),
                        new Progress(new PrintWriter(terminal, true), false));

        final DemoRun.Result result = demo.run();

        assertThat(terminal.toString())
                .as("output")
                .contains("for LoRA r=4,alpha=8")
                .contains("Version 0 published: Qwen2ForCausalLM, 111168 parameters, context 1024")
                .doesNotContain("Pretraining slice");
        assertThat(result.last().rewardedGroups())
                .as("rewarded groups; output:%n%s", terminal)
                .isPositive();
        assertThat(result.heldOut()).extracting(VersionScore::version).contains(0L);
        assertThat(result.heldOut()).allSatisfy(s -> assertThat(s.samples()).isPositive());
        assertThat(Files.readString(ReportWriter.write(result, dir.resolve("demo/report"))))
                .contains("Model Qwen2ForCausalLM from " + checkpoint)
                .contains("LoRA r=4,alpha=8");
    }
}
