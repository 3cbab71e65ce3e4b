package dev.rwml.ops.cli.doctor;

import dev.rwml.runtime.errors.ErrorLine;
import dev.rwml.scoring.EmbeddingSettings;
import dev.rwml.scoring.embed.TextEmbedder;
import dev.rwml.worldmodel.ModelRuntime;
import java.util.List;
import java.util.Map;

/** The checks of what the stages load: the PyTorch natives and the embedding model. */
public final class ModelChecks {

    private ModelChecks() {}

    /** Starts the PyTorch engine as a stage does and reports its version, device and threads. */
    public static Finding pytorch(final ModelRuntime runtime) {
        try {
            return Finding.ok("pytorch", runtime.apply());
        } catch (RuntimeException | LinkageError e) {
            return Finding.fix(
                    "pytorch",
                    "the PyTorch natives did not load ("
                            + ErrorLine.of(e)
                            + "): the build ships the CPU natives, so rebuild with `./mvnw -B"
                            + " -DskipTests install`; for a GPU set PYTORCH_LIBRARY_PATH,"
                            + " PYTORCH_VERSION and PYTORCH_FLAVOR (docs/models-and-gpus.md, 'On a"
                            + " GPU')");
        }
    }

    /** Loads the embedding model the reward stage uses by default and embeds one text with it. */
    public static Finding embedding(
            final EmbeddingSettings settings, final Map<String, String> environment) {
        try {
            final TextEmbedder model = settings.create(environment);
            final int dimensions = model.embedAll(List.of("rwml doctor")).get(0).length;
            return Finding.ok(
                    "embedding",
                    model.modelName()
                            + " ("
                            + settings.provider()
                            + ") embeds: "
                            + dimensions
                            + " dimensions");
        } catch (RuntimeException | LinkageError e) {
            return Finding.fix(
                    "embedding",
                    "the "
                            + settings.provider()
                            + " embedding model could not embed a text ("
                            + ErrorLine.of(e)
                            + "): "
                            + (settings.provider().equals(EmbeddingSettings.MINILM)
                                    ? "it ships in the langchain4j jar under ops/cli/target/lib;"
                                            + " rebuild with `./mvnw -B -DskipTests install`"
                                    : "check embedding.url and embedding.model"));
        }
    }
}
