package dev.rwml.evaluation;

import dev.rwml.channel.ModelSlot;
import dev.rwml.env.Agent;
import dev.rwml.env.Environment;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.ActionAnswer;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.prompt.PromptView;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The agent whose policy is the run's model: at every step it asks the newest version in a {@link
 * ModelSlot} (the one the world model is trained as, in its acting role) for the next action, from
 * the task, the last turns, the observation and, where the environment gives them, the admissible
 * actions, and takes the action after its reasoning. An answer that holds no action, or a prompt
 * that does not fit the model, is an invalid step with its reason (see {@link Choice#invalid}),
 * never a failure.
 *
 * <p>A step holds the version it leases from the slot until its answer is read, so a version
 * swapped in meanwhile acts from the next step on; each transition names the version that chose it.
 * With a fixed version the episode's own generator seeds every sample, so an episode replays
 * exactly.
 */
public final class ModelAgent implements Agent {

    /** The policy name recorded on the transitions of this agent. */
    public static final String NAME = "model";

    private final ModelSlot models;
    private final SamplingSettings sampling;
    private final int maxPromptTokens;

    /**
     * An agent over {@code models}, sampling one answer per step with {@code sampling} (its group
     * size must be 1) from prompts of at most {@code maxPromptTokens} tokens.
     */
    public ModelAgent(
            final ModelSlot models, final SamplingSettings sampling, final int maxPromptTokens) {
        this.models = Objects.requireNonNull(models, "models");
        this.sampling = Objects.requireNonNull(sampling, "sampling");
        if (sampling.groupSize() != 1) {
            throw new IllegalArgumentException(
                    "an agent samples one answer per step, got a group of " + sampling.groupSize());
        }
        if (maxPromptTokens < SamplingSettings.MIN_PROMPT_TOKENS) {
            throw new IllegalArgumentException(
                    "the acting prompt needs at least "
                            + SamplingSettings.MIN_PROMPT_TOKENS
                            + " tokens, got "
                            + maxPromptTokens);
        }
        this.maxPromptTokens = maxPromptTokens;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Choice act(final Environment env, final List<Turn> history, final RandomGenerator rng) {
        final ActingView view = view(env, history);
        final long seed = rng.nextLong();
        try (ModelSlot.Lease lease = models.acquire()) {
            final PredictionModel model = lease.model();
            final int budget = sampling.promptBudget(maxPromptTokens, model.maxContext());
            final Prompt prompt = model.actingPrompt(view, budget);
            if (!prompt.fits()) {
                return Choice.invalid(
                        "",
                        model.version(),
                        "the acting prompt takes "
                                + prompt.tokenIds().length
                                + " tokens, more than the "
                                + budget
                                + " the model leaves it",
                        Optional.empty());
            }
            final Sample sample =
                    model.sample(List.of(prompt.tokenIds()), sampling, seed).get(0).get(0);
            final Sampled sampled =
                    new Sampled(prompt.tokenIds(), sample.tokenIds(), sample.logProbs());
            final ActionAnswer answer =
                    ActionAnswer.parse(
                            sample.text(), sample.stopReason() != Sample.StopReason.LENGTH);
            return answer.action()
                    .map(action -> Choice.byModel(action, model.version(), sampled))
                    .orElseGet(
                            () ->
                                    Choice.invalid(
                                            sample.text().strip(),
                                            model.version(),
                                            answer.problem().orElseThrow(),
                                            Optional.of(sampled)));
        }
    }

    /** What the agent sees now: the admissible actions only where the action space is closed. */
    static ActingView view(final Environment env, final List<Turn> history) {
        return new ActingView(
                env.name(),
                env.task(),
                history.stream()
                        .map(t -> new PromptView.HistoryTurn(t.getAction(), t.getObservation()))
                        .toList(),
                env.observation(),
                PromptFormat.isDialogue(env.name()) ? List.of() : env.admissibleActions());
    }
}
