package dev.rwml.prediction;

import dev.rwml.events.Transition;
import dev.rwml.runtime.errors.UnfitSettingsException;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.ActingView;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import dev.rwml.worldmodel.serve.openai.CompletionPrompt;
import dev.rwml.worldmodel.serve.openai.CompletionRequest;
import dev.rwml.worldmodel.serve.openai.CompletionResponse;
import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A model version whose completions an inference server samples: prompts and decoding come from the
 * version loaded locally (its tokenizer and prompt format), and {@link #sample} sends a batch's
 * prompts as token ids in one {@code /v1/completions} request ({@code n} = G, {@code logprobs},
 * {@code return_token_ids}, {@code seed}) and builds each {@link Sample} as the in-process
 * generator does.
 */
final class RemotePredictionModel implements PredictionModel {

    /** How the server holds this version. */
    enum Served {
        /** A LoRA version loaded into the server under {@code <run>-v<N>}. */
        ADAPTER,
        /** A LoRA run's base (version 0), served under {@code sampler.model}. */
        BASE,
        /**
         * A full-weight version: only a server that serves the run's own versions ({@code rwml
         * serve}) has it, and says which one answered.
         */
        RUN
    }

    /** Text whose token ids must be the same here and on the server. */
    static final String TOKENIZER_PROBE =
            "You are in the middle of a room. Looking quickly around you, you see a fridge 1."
                    + " <think>open it</think><next_state>You open the fridge 1. In it, you see"
                    + " an apple 2, and a mug 3.</next_state>";

    private final WorldModelPredictor local;
    private final RemoteSamplerClient client;
    private final String run;
    private final String servedName;
    private final Served served;
    private final Runnable release;

    RemotePredictionModel(
            final WorldModelPredictor local,
            final RemoteSamplerClient client,
            final String run,
            final String servedName,
            final Served served,
            final Runnable release) {
        this.local = local;
        this.client = client;
        this.run = run;
        this.servedName = servedName;
        this.served = served;
        this.release = release;
    }

    @Override
    public long version() {
        return local.version();
    }

    @Override
    public int maxContext() {
        return local.maxContext();
    }

    @Override
    public Prompt prompt(final Transition transition, final int maxTokens) {
        return local.prompt(transition, maxTokens);
    }

    @Override
    public Prompt actingPrompt(final ActingView view, final int maxTokens) {
        return local.actingPrompt(view, maxTokens);
    }

    @Override
    public OptionalInt vocabSize() {
        return local.vocabSize();
    }

    @Override
    public String decode(final int[] tokenIds) {
        return local.decode(tokenIds);
    }

    /** The name requests sample with, as their {@code model}. */
    String servedName() {
        return servedName;
    }

    /**
     * Refuses, before anything is consumed, a server that cannot sample this run: one whose
     * tokenizer differs from the version's, or one that cannot serve a full-weight version.
     *
     * @throws UnfitSettingsException saying what differs and what to do
     */
    void requireServerFits() {
        final GenerationTokenizer tokenizer = local.tokenizer();
        final int[] here = tokenizer.encode(TOKENIZER_PROBE);
        final int[] there =
                client.tokenize(servedName, TOKENIZER_PROBE).stream()
                        .mapToInt(Integer::intValue)
                        .toArray();
        // A server may put a BOS before a text it tokenizes; token-id prompts get none.
        final boolean same =
                Arrays.equals(here, there)
                        || (there.length == here.length + 1
                                && Arrays.equals(here, Arrays.copyOfRange(there, 1, there.length)));
        if (!same) {
            throw new UnfitSettingsException(
                    "the inference server at "
                            + client.server()
                            + " tokenizes differently from version "
                            + version()
                            + " of run "
                            + run
                            + ": the probe text is "
                            + Arrays.toString(here)
                            + " here but "
                            + Arrays.toString(there)
                            + " there (model '"
                            + servedName
                            + "'); serve the run's own checkpoint (its tokenizer files) or set"
                            + " sampler=local");
        }
        if (served == Served.RUN) {
            final CompletionResponse answer =
                    client.complete(
                            new CompletionRequest(
                                    servedName,
                                    CompletionPrompt.tokens(here),
                                    1,
                                    1,
                                    0.0,
                                    1.0,
                                    0L,
                                    null,
                                    1,
                                    true,
                                    null));
            if (reportedVersion(answer.model()) < 0) {
                throw new UnfitSettingsException(
                        "run "
                                + run
                                + " has full-weight versions, which an inference server cannot"
                                + " load while it runs, and "
                                + client.server()
                                + " answered as '"
                                + answer.model()
                                + "', not as a server of the run's versions ("
                                + run
                                + "-v<N>): start the run with LoRA (rwml model init --from-hf ..."
                                + " --lora r=16,alpha=32), serve it with"
                                + " rwml serve --run "
                                + run
                                + ", or set sampler=local");
            }
        }
    }

    @Override
    public List<List<Sample>> sample(
            final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
        if (prompts.isEmpty()) {
            return List.of();
        }
        int longest = 0;
        for (final int[] prompt : prompts) {
            longest = Math.max(longest, prompt.length);
        }
        final int g = sampling.groupSize();
        final CompletionResponse answer =
                client.complete(
                        new CompletionRequest(
                                servedName,
                                CompletionPrompt.tokenBatch(prompts),
                                g,
                                Math.min(sampling.maxNewTokens(), maxContext() - longest),
                                decimal(sampling.temperature()),
                                decimal(sampling.topP()),
                                seed,
                                List.of(GenerationTokenizer.NEXT_STATE_CLOSE),
                                1,
                                true,
                                null));
        requireVersion(answer.model());
        final List<CompletionResponse.Choice> choices = new ArrayList<>(answer.choices());
        if (choices.size() != prompts.size() * g) {
            throw new SamplerException(
                    "inference server "
                            + client.server()
                            + " answered "
                            + choices.size()
                            + " completions for "
                            + prompts.size()
                            + " prompts x n="
                            + g,
                    null);
        }
        choices.sort(Comparator.comparingInt(CompletionResponse.Choice::index));
        final List<List<Sample>> groups = new ArrayList<>(prompts.size());
        for (int p = 0; p < prompts.size(); p++) {
            final List<Sample> group = new ArrayList<>(g);
            for (int j = 0; j < g; j++) {
                group.add(toSample(choices.get(p * g + j)));
            }
            groups.add(List.copyOf(group));
        }
        return List.copyOf(groups);
    }

    /** A choice as the generator would have built its sample. */
    private Sample toSample(final CompletionResponse.Choice choice) {
        if (choice.tokenIds() == null
                || choice.logprobs() == null
                || choice.logprobs().tokenLogprobs() == null
                || choice.logprobs().tokenLogprobs().size() != choice.tokenIds().size()) {
            throw new UnfitSettingsException(
                    "inference server "
                            + client.server()
                            + " answered a completion without token ids and one log-prob per"
                            + " token (vLLM's return_token_ids with logprobs): run a vLLM release"
                            + " that supports return_token_ids, or rwml serve");
        }
        final int[] ids = choice.tokenIds().stream().mapToInt(Integer::intValue).toArray();
        final float[] logProbs = new float[ids.length];
        for (int i = 0; i < ids.length; i++) {
            final Double logProb = choice.logprobs().tokenLogprobs().get(i);
            logProbs[i] = logProb == null ? Float.NaN : logProb.floatValue();
        }
        return Sample.completed(ids, logProbs, stopReason(choice, ids), local::decode);
    }

    /** Why a completion ended, judged with this version's tokenizer as the generator does. */
    private Sample.StopReason stopReason(final CompletionResponse.Choice choice, final int[] ids) {
        if (ids.length == 0 || CompletionResponse.LENGTH.equals(choice.finishReason())) {
            return Sample.StopReason.LENGTH;
        }
        final GenerationTokenizer tokenizer = local.tokenizer();
        if (tokenizer.isEnd(ids[ids.length - 1])) {
            return Sample.StopReason.END_OF_TEXT;
        }
        return tokenizer.closesNextState(ids, ids.length)
                ? Sample.StopReason.NEXT_STATE_CLOSED
                : Sample.StopReason.LENGTH;
    }

    /**
     * Refuses an answer from another version than this one (a server of the run's versions swaps
     * them on its own): the batch is retried until both hold the same version, so the version
     * stamped on a group is always the one that answered.
     */
    private void requireVersion(final String answeredBy) {
        final long reported = reportedVersion(answeredBy);
        if (served == Served.BASE || (served == Served.ADAPTER && reported < 0)) {
            return;
        }
        if (reported != version()) {
            throw new SamplerException(
                    "inference server "
                            + client.server()
                            + " answered as '"
                            + answeredBy
                            + "' while the stage holds version "
                            + version()
                            + " of run "
                            + run
                            + "; the batch is retried until both serve the same version (a server"
                            + " pinned to one version never will: unpin it)",
                    null);
        }
    }

    /** The float as written in the settings (0.95, not 0.949999988079071). */
    private static double decimal(final float value) {
        return Double.parseDouble(Float.toString(value));
    }

    /** N of a model name {@code <run>-v<N>}, else -1. */
    private long reportedVersion(final String answeredBy) {
        if (answeredBy == null) {
            return -1;
        }
        final Matcher m = Pattern.compile(Pattern.quote(run) + "-v(\\d+)").matcher(answeredBy);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    @Override
    public void close() {
        try {
            release.run();
        } finally {
            local.close();
        }
    }
}
