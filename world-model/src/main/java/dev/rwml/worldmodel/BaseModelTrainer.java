package dev.rwml.worldmodel;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.checkpoint.Checkpoint;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.model.SequenceBatch;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.prompt.SftTarget;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import dev.rwml.worldmodel.tokenizer.WorldModelTokenizer;
import dev.rwml.worldmodel.train.StepMetrics;
import dev.rwml.worldmodel.train.TrainConfig;
import dev.rwml.worldmodel.train.Trainer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds a base world model from a slice of transitions: trains a byte-level BPE tokenizer on their
 * prompts and targets, then fine-tunes a fresh transformer on {@code prompt -> <think></think>
 * <next_state>s'</next_state>} and the end of text ({@link SftTarget}, the trainer's WM-SFT target
 * too) for N steps, reporting progress, and returns version 0 as a checkpoint (optimizer state
 * included, so GRPO can continue from it). With {@link Settings#acting()} the same model also
 * learns to act: each transition adds its acting prompt with the action it took as the target.
 */
public final class BaseModelTrainer {

    private static final Logger LOG = LoggerFactory.getLogger(BaseModelTrainer.class);

    /**
     * What to build.
     *
     * @param config model shape (its vocabulary size is replaced by the trained tokenizer's)
     * @param vocabSize BPE vocabulary size to train, special tokens and bytes included
     * @param steps SFT steps
     * @param batchSize examples per step
     * @param seed seed of initialisation and shuffling
     * @param train optimiser settings
     * @param historyTurns history turns in each prompt (H)
     * @param acting whether the base also learns the acting role: behaviour cloning on the slice's
     *     own actions (noise included), one acting example beside each world-model example
     */
    public record Settings(
            ModelConfig config,
            int vocabSize,
            int steps,
            int batchSize,
            long seed,
            TrainConfig train,
            int historyTurns,
            boolean acting) {

        public Settings {
            if (steps <= 0 || batchSize <= 0) {
                throw new IllegalArgumentException("steps and batchSize must be positive");
            }
        }

        /** A preset model, a 1024-token vocabulary, batch 16, H = 2 and the SFT optimiser. */
        public static Settings of(final String preset, final int steps, final long seed) {
            return new Settings(
                    ModelConfig.preset(preset, 1024),
                    1024,
                    steps,
                    16,
                    seed,
                    TrainConfig.sft(steps),
                    PromptFormat.DEFAULT_HISTORY_TURNS,
                    false);
        }

        /** These settings, with the acting role learned too or not. */
        public Settings withActing(final boolean value) {
            return new Settings(
                    config, vocabSize, steps, batchSize, seed, train, historyTurns, value);
        }
    }

    /** Called after every step. */
    @FunctionalInterface
    public interface Progress {
        /** {@code metrics} of step {@code metrics.step()} out of {@code totalSteps}. */
        void onStep(StepMetrics metrics, int totalSteps);
    }

    /**
     * The result.
     *
     * @param checkpoint the base model, version 0
     * @param examples training examples used
     * @param skipped examples left out because their prompt and target exceed the context
     * @param history metrics of every step
     */
    public record Result(
            Checkpoint checkpoint, int examples, int skipped, List<StepMetrics> history) {}

    /**
     * The SFT example of a transition: its prompt in {@code format}, cut by dropping the oldest
     * history turns to leave room for the whole target, and {@link SftTarget}'s ids; empty when
     * they cannot fit {@code maxContext} tokens together.
     */
    public static Optional<SequenceBatch.Pair> pair(
            final PromptFormat format,
            final WorldModelTokenizer tokenizer,
            final Transition transition,
            final int maxContext) {
        return fit(
                format,
                tokenizer,
                PromptView.of(transition),
                SftTarget.ids(tokenizer, transition.getNextObservation()),
                maxContext);
    }

    /**
     * The behaviour-cloning example of a transition: its acting prompt (what the agent saw, with
     * the episode's {@code earlier} turns and the admissible actions) and {@link
     * SftTarget#actionIds}' ids of the action it took; empty when they cannot fit {@code
     * maxContext} tokens together.
     */
    public static Optional<SequenceBatch.Pair> actingPair(
            final PromptFormat format,
            final WorldModelTokenizer tokenizer,
            final Transition transition,
            final List<PromptView.HistoryTurn> earlier,
            final int maxContext) {
        return fit(
                format,
                tokenizer,
                ActingView.of(transition, earlier),
                SftTarget.actionIds(tokenizer, transition.getAction()),
                maxContext);
    }

    /** The situation's prompt, cut to leave room for the whole target, and the target. */
    private static Optional<SequenceBatch.Pair> fit(
            final PromptFormat format,
            final WorldModelTokenizer tokenizer,
            final PromptFormat.Situation situation,
            final int[] target,
            final int maxContext) {
        final Prompt prompt = format.build(situation, tokenizer, maxContext - target.length);
        if (!prompt.fits() || target.length >= maxContext) {
            return Optional.empty();
        }
        return Optional.of(new SequenceBatch.Pair(prompt.tokenIds(), target));
    }

    /**
     * Each transition's earlier turns of its episode, as an acting agent remembers them: rebuilt
     * from the slice's other steps of the same episode, or, where the slice lacks one of them, the
     * turns the transition carries.
     */
    static Map<String, List<PromptView.HistoryTurn>> episodeMemory(final List<Transition> slice) {
        final Map<String, List<Transition>> episodes = new HashMap<>();
        for (final Transition t : slice) {
            episodes.computeIfAbsent(
                            t.getEnv().getName() + "/" + t.getEpisodeId(), e -> new ArrayList<>())
                    .add(t);
        }
        final Map<String, List<PromptView.HistoryTurn>> memory = new HashMap<>();
        for (final List<Transition> steps : episodes.values()) {
            steps.sort(Comparator.comparingInt(Transition::getStep));
            final List<PromptView.HistoryTurn> turns = new ArrayList<>();
            for (int i = 0; i < steps.size(); i++) {
                final Transition t = steps.get(i);
                memory.put(
                        t.getTransitionId(),
                        t.getStep() == i ? List.copyOf(turns) : PromptView.of(t).history());
                turns.add(new PromptView.HistoryTurn(t.getAction(), t.getObservation()));
            }
        }
        return memory;
    }

    /** Trains the tokenizer and the base model. */
    public Result train(
            final List<Transition> slice, final Settings settings, final Progress progress) {
        if (slice.isEmpty()) {
            throw new IllegalArgumentException("a base model needs at least one transition");
        }
        final PromptFormat format = new PromptFormat(settings.historyTurns());
        final Map<String, List<PromptView.HistoryTurn>> remembered =
                settings.acting() ? episodeMemory(slice) : Map.of();
        final List<String> corpus = new ArrayList<>(slice.size() * 2);
        for (final Transition t : slice) {
            corpus.add(format.text(PromptView.of(t)));
            corpus.add(SftTarget.text(t.getNextObservation()));
            if (settings.acting()) {
                corpus.add(format.text(ActingView.of(t, remembered.get(t.getTransitionId()))));
                corpus.add(SftTarget.actionText(t.getAction()));
            }
        }
        final String tokenizerJson =
                BpeTrainer.withDefaultSpecials(settings.vocabSize()).train(corpus);
        final int maxContext = settings.config().maxContext();
        try (WorldModel model =
                WorldModel.create(
                        settings.config().withVocabSize(settings.vocabSize()),
                        tokenizerJson,
                        settings.seed())) {
            final List<SequenceBatch.Pair> examples = new ArrayList<>();
            int skipped = 0;
            for (final Transition t : slice) {
                final Optional<SequenceBatch.Pair> pair =
                        pair(format, model.tokenizer(), t, maxContext);
                if (pair.isPresent()) {
                    examples.add(pair.get());
                } else {
                    skipped++;
                }
                if (settings.acting()) {
                    final Optional<SequenceBatch.Pair> acting =
                            actingPair(
                                    format,
                                    model.tokenizer(),
                                    t,
                                    remembered.get(t.getTransitionId()),
                                    maxContext);
                    if (acting.isPresent()) {
                        examples.add(acting.get());
                    } else {
                        skipped++;
                    }
                }
            }
            if (examples.isEmpty()) {
                throw new IllegalArgumentException(
                        "no transition fits the context of "
                                + maxContext
                                + " tokens: use a larger maxContext");
            }
            LOG.info(
                    "Base model {}: {} examples ({} skipped), {} steps of {}",
                    model.config(),
                    examples.size(),
                    skipped,
                    settings.steps(),
                    settings.batchSize());
            final List<StepMetrics> history = new ArrayList<>(settings.steps());
            final Random random = new Random(settings.seed());
            final List<SequenceBatch.Pair> order = new ArrayList<>(examples);
            int cursor = order.size();
            try (Trainer trainer = model.trainer(settings.train(), null, null)) {
                for (int step = 0; step < settings.steps(); step++) {
                    final List<SequenceBatch.Pair> batch = new ArrayList<>(settings.batchSize());
                    while (batch.size() < Math.min(settings.batchSize(), examples.size())) {
                        if (cursor == order.size()) {
                            Collections.shuffle(order, random);
                            cursor = 0;
                        }
                        batch.add(order.get(cursor++));
                    }
                    final StepMetrics metrics = trainer.sftStep(batch);
                    history.add(metrics);
                    progress.onStep(metrics, settings.steps());
                }
                return new Result(
                        model.checkpoint(0, trainer),
                        examples.size(),
                        skipped,
                        List.copyOf(history));
            }
        }
    }
}
