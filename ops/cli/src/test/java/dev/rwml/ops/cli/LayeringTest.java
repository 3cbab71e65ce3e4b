package dev.rwml.ops.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import dev.rwml.pipeline.PipelineLayeringViolation;
import dev.rwml.scoring.LayeringViolation;
import org.junit.jupiter.api.Test;

/**
 * The modules' allowed dependencies, checked on the main code of every module (this module's tests
 * see them all). Libraries at the bottom, the model channel above the model library, the stages
 * above both and never on each other, the local pipeline above the stages, the command on top; a
 * new import that breaks the picture fails here with the class and the line.
 */
class LayeringTest {

    private static final String SCHEMAS = "schemas";
    private static final String RUNTIME = "runtime";
    private static final String WORLD_MODEL = "world-model";
    private static final String MODEL_CHANNEL = "model-channel";
    private static final String ENVIRONMENTS = "environments";
    private static final String SCORING = "scoring";
    private static final String EVALUATION = "evaluation";
    private static final String ENV_PRODUCERS = "env-producers";
    private static final String PREDICTION = "prediction-stream";
    private static final String FILTER = "filter-stream";
    private static final String REWARD = "reward-stream";
    private static final String TRAINER = "trainer-consumer";
    private static final String SERVING = "serving";
    private static final String PIPELINE = "pipeline";
    private static final String CLI = "ops/cli";
    private static final String EMBEDDED = "ops/embedded-cluster";

    /** Main classes only: test-classes folders and test-jars are left out. */
    private static final JavaClasses MAIN =
            new ClassFileImporter()
                    .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                    .withImportOption(location -> !location.contains("-tests.jar"))
                    .importPackages("dev.rwml");

    private static LayeredArchitecture modules() {
        return layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .layer(SCHEMAS)
                .definedBy("dev.rwml.schemas..", "dev.rwml.events..")
                .layer(RUNTIME)
                .definedBy("dev.rwml.runtime..")
                .layer(WORLD_MODEL)
                .definedBy("dev.rwml.worldmodel..")
                .layer(MODEL_CHANNEL)
                .definedBy("dev.rwml.channel..")
                .layer(ENVIRONMENTS)
                .definedBy(
                        "dev.rwml.env",
                        "dev.rwml.env.agent..",
                        "dev.rwml.env.alfworld..",
                        "dev.rwml.env.recorded..",
                        "dev.rwml.env.tau2..")
                .layer(SCORING)
                .definedBy("dev.rwml.scoring..")
                .layer(EVALUATION)
                .definedBy("dev.rwml.evaluation..")
                .layer(ENV_PRODUCERS)
                .definedBy("dev.rwml.env.produce..", "dev.rwml.env.imports..")
                .layer(PREDICTION)
                .definedBy("dev.rwml.prediction..")
                .layer(FILTER)
                .definedBy("dev.rwml.filter..")
                .layer(REWARD)
                .definedBy("dev.rwml.reward..")
                .layer(TRAINER)
                .definedBy("dev.rwml.trainer..")
                .layer(SERVING)
                .definedBy("dev.rwml.serving..")
                .layer(PIPELINE)
                .definedBy("dev.rwml.pipeline..")
                .layer(CLI)
                .definedBy("dev.rwml.ops.cli..")
                .layer(EMBEDDED)
                .definedBy("dev.rwml.ops.embedded..")
                // libraries
                .whereLayer(SCHEMAS)
                .mayNotAccessAnyLayer()
                .whereLayer(RUNTIME)
                .mayOnlyAccessLayers(SCHEMAS)
                .whereLayer(WORLD_MODEL)
                .mayOnlyAccessLayers(SCHEMAS)
                .whereLayer(ENVIRONMENTS)
                .mayOnlyAccessLayers(SCHEMAS)
                .whereLayer(SCORING)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME)
                .whereLayer(MODEL_CHANNEL)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, WORLD_MODEL)
                .whereLayer(EVALUATION)
                .mayOnlyAccessLayers(
                        SCHEMAS, RUNTIME, WORLD_MODEL, MODEL_CHANNEL, ENVIRONMENTS, SCORING)
                // stages: never one on another
                .whereLayer(ENV_PRODUCERS)
                .mayOnlyAccessLayers(
                        SCHEMAS, RUNTIME, ENVIRONMENTS, WORLD_MODEL, MODEL_CHANNEL, EVALUATION)
                .whereLayer(PREDICTION)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, WORLD_MODEL, MODEL_CHANNEL)
                .whereLayer(FILTER)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, WORLD_MODEL, MODEL_CHANNEL, SCORING)
                .whereLayer(REWARD)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, SCORING)
                .whereLayer(TRAINER)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, WORLD_MODEL, MODEL_CHANNEL)
                // tools
                .whereLayer(SERVING)
                .mayOnlyAccessLayers(SCHEMAS, RUNTIME, WORLD_MODEL, MODEL_CHANNEL)
                .whereLayer(EMBEDDED)
                .mayNotAccessAnyLayer()
                // the local pipeline: every library and stage, and the embedded cluster, never
                // the command; the command uses it and everything else
                .whereLayer(PIPELINE)
                .mayOnlyAccessLayers(
                        SCHEMAS,
                        RUNTIME,
                        WORLD_MODEL,
                        MODEL_CHANNEL,
                        ENVIRONMENTS,
                        SCORING,
                        EVALUATION,
                        ENV_PRODUCERS,
                        PREDICTION,
                        FILTER,
                        REWARD,
                        TRAINER,
                        EMBEDDED)
                .whereLayer(CLI)
                .mayNotBeAccessedByAnyLayer();
    }

    @Test
    void shouldKeepEveryModuleToItsAllowedDependencies() {
        modules().check(MAIN);
    }

    @Test
    void shouldFailOnAnImportThatRunsAgainstTheLayers() {
        final JavaClasses withViolation =
                new ClassFileImporter().importClasses(LayeringViolation.class);
        assertThat(modules().withOptionalLayers(true).evaluate(withViolation).hasViolation())
                .as("a scoring class that uses the reward stage")
                .isTrue();
    }

    @Test
    void shouldFailOnAPipelineClassThatUsesTheCommand() {
        final JavaClasses withViolation =
                new ClassFileImporter().importClasses(PipelineLayeringViolation.class);
        assertThat(modules().withOptionalLayers(true).evaluate(withViolation).hasViolation())
                .as("a pipeline class that uses the command's progress printer")
                .isTrue();
    }

    @Test
    void shouldKeepKafkaIoOutOfTheModelLibraryAndKafkaOutOfTheEnvironments() {
        final ArchRule modelLibrary =
                noClasses()
                        .that()
                        .resideInAPackage("dev.rwml.worldmodel..")
                        .should()
                        .dependOnClassesThat()
                        .resideInAnyPackage(
                                "org.apache.kafka.clients..", "org.apache.kafka.streams..")
                        .because("the model library does no Kafka I/O; model-channel does");
        final ArchRule environments =
                noClasses()
                        .that()
                        .resideInAnyPackage(
                                "dev.rwml.env",
                                "dev.rwml.env.agent..",
                                "dev.rwml.env.alfworld..",
                                "dev.rwml.env.recorded..",
                                "dev.rwml.env.tau2..")
                        .should()
                        .dependOnClassesThat()
                        .resideInAPackage("org.apache.kafka..")
                        .because("simulators run without a cluster; env-producers publishes");
        modelLibrary.check(MAIN);
        environments.check(MAIN);
    }

    @Test
    void shouldKeepKafkaStreamsOutOfTheServer() {
        noClasses()
                .that()
                .resideInAPackage("dev.rwml.serving..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.apache.kafka.streams..")
                .because("rwml serve follows the models topic with a plain consumer")
                .check(MAIN);
    }

    @Test
    void shouldKeepPyTorchOutOfScoringAndTheRewardStage() {
        noClasses()
                .that()
                .resideInAnyPackage("dev.rwml.scoring..", "dev.rwml.reward..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("ai.djl..")
                .because("rewarding compares texts by embeddings; it loads no language model")
                .check(MAIN);
    }
}
