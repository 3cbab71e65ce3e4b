package dev.rwml.worldmodel;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.prompt.SftTarget;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import java.util.ArrayList;
import java.util.List;

/** A tokenizer and SFT examples trained on {@link TestCorpus}, shared by the tests. */
public final class Fixtures {

    /** The tokenizer.json of the test corpus (vocab 384). */
    public static final String TOKENIZER_JSON;

    static {
        final List<String> corpus = new ArrayList<>();
        for (final Transition t : TestCorpus.alfworld(30)) {
            corpus.add(PromptFormat.standard().text(PromptView.of(t)));
            corpus.add(SftTarget.text(t.getNextObservation()));
        }
        TOKENIZER_JSON = BpeTrainer.withDefaultSpecials(384).train(corpus);
    }

    private Fixtures() {}

    /** The tiny preset at the test vocabulary. */
    public static ModelConfig tiny() {
        return ModelConfig.tiny(384);
    }

    /** SFT pairs (prompt, target) of the first {@code n} corpus transitions. */
    public static List<SequenceBatch.Pair> examples(final WorldModel model, final int n) {
        final List<SequenceBatch.Pair> out = new ArrayList<>();
        for (final Transition t : TestCorpus.alfworld(n)) {
            out.add(
                    new SequenceBatch.Pair(
                            model.tokenizer()
                                    .encode(PromptFormat.standard().text(PromptView.of(t))),
                            SftTarget.ids(model.tokenizer(), t.getNextObservation())));
        }
        return out;
    }
}
