package dev.rwml.serving;

import dev.rwml.events.Transition;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A model whose samples are computed from their prompt, seed, prompt index and sample index, that
 * records each call to {@link #sample} and can hold a call until released. Token id k is the
 * character k (so texts and ids map one to one).
 */
final class ScriptedModel implements PredictionModel {

    /** One call to {@link #sample}. */
    record Call(List<int[]> prompts, SamplingSettings settings, long seed) {}

    final List<Call> calls = new CopyOnWriteArrayList<>();
    private final long version;
    private final int maxContext;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    volatile boolean closed;

    ScriptedModel(final long version, final int maxContext) {
        this.version = version;
        this.maxContext = maxContext;
    }

    /** From now on each call to {@link #sample} waits until {@link #release()}. */
    void hold() {
        gate = new CountDownLatch(1);
    }

    void release() {
        gate.countDown();
    }

    /** The completion this model writes for a prompt, seed, prompt index and sample index. */
    static String completion(final int[] prompt, final long seed, final int p, final int s) {
        return "<think>"
                + prompt.length
                + "</think><next_state>s"
                + seed
                + "p"
                + p
                + "n"
                + s
                + "</next_state>";
    }

    @Override
    public long version() {
        return version;
    }

    @Override
    public int maxContext() {
        return maxContext;
    }

    @Override
    public Prompt prompt(final Transition transition, final int maxTokens) {
        final String text = transition.getAction();
        return new Prompt(text, encode(text), 0, text.length() <= maxTokens);
    }

    /** Every char is a token. */
    @Override
    public OptionalInt vocabSize() {
        return OptionalInt.of(Character.MAX_VALUE + 1);
    }

    @Override
    public String decode(final int[] tokenIds) {
        return Arrays.stream(tokenIds)
                .mapToObj(id -> String.valueOf((char) id))
                .collect(Collectors.joining());
    }

    @Override
    public int[] encode(final String text) {
        return text.chars().toArray();
    }

    @Override
    public List<List<Sample>> sample(
            final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
        calls.add(new Call(List.copyOf(prompts), sampling, seed));
        try {
            gate.await(30, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        final List<List<Sample>> out = new ArrayList<>();
        for (int p = 0; p < prompts.size(); p++) {
            final List<Sample> group = new ArrayList<>();
            for (int s = 0; s < sampling.groupSize(); s++) {
                final String text = completion(prompts.get(p), seed, p, s);
                final int[] ids = encode(text);
                final float[] logProbs = new float[ids.length];
                for (int i = 0; i < ids.length; i++) {
                    logProbs[i] = -0.001f * (i + 1) * (s + 1);
                }
                final String state = text.replaceAll(".*<next_state>(.*)</next_state>", "$1");
                group.add(
                        new Sample(
                                ids,
                                logProbs,
                                text,
                                Optional.of(state),
                                Sample.StopReason.NEXT_STATE_CLOSED));
            }
            out.add(group);
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
    }
}
