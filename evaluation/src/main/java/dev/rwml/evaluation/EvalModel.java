package dev.rwml.evaluation;

import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import java.util.Optional;

/**
 * A model version loaded for evaluation, whatever its artifact format: sampled through {@link
 * #predictor}, as the prediction stage samples it. The small model is also kept as a {@link
 * WorldModel} with its checkpoint, on which drift from version 0 is measured.
 */
public final class EvalModel implements AutoCloseable {

    private final PredictionModel predictor;
    private final Optional<WorldModel> small;
    private final Optional<Checkpoint> checkpoint;

    private EvalModel(
            final PredictionModel predictor,
            final Optional<WorldModel> small,
            final Optional<Checkpoint> checkpoint) {
        this.predictor = predictor;
        this.small = small;
        this.checkpoint = checkpoint;
    }

    /** The small model of {@code checkpoint}, served as {@code version}. */
    static EvalModel small(final long version, final Checkpoint checkpoint) {
        final WorldModel model = WorldModel.load(checkpoint);
        // Not closed on its own: the WorldModel owns the transformer and tokenizer it wraps.
        final PredictionModel predictor =
                new WorldModelPredictor(
                        version, model.model(), model.tokenizer(), PromptFormat.standard());
        return new EvalModel(predictor, Optional.of(model), Optional.of(checkpoint));
    }

    /** A model that is only sampled (a Hugging Face checkpoint or a LoRA adapter). */
    static EvalModel sampled(final PredictionModel predictor) {
        return new EvalModel(predictor, Optional.empty(), Optional.empty());
    }

    /** The model as the prediction stage samples it. */
    public PredictionModel predictor() {
        return predictor;
    }

    /** The small model, on which drift is measured; empty for other formats. */
    public Optional<WorldModel> small() {
        return small;
    }

    /** The small model's checkpoint; empty for other formats. */
    public Optional<Checkpoint> checkpoint() {
        return checkpoint;
    }

    @Override
    public void close() {
        if (small.isPresent()) {
            small.get().close();
        } else {
            predictor.close();
        }
    }
}
