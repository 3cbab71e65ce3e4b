package dev.rwml.worldmodel.hf;

import dev.rwml.worldmodel.tokenizer.GenerationTokenizer;

/**
 * A tokenizer of a model's vocabulary that never ends a sample, so every sampler run draws its full
 * length (benchmarks and tests of the decode loop).
 */
record NeverEndingTokenizer(int vocabSize) implements GenerationTokenizer {
    @Override
    public int padId() {
        return 0;
    }

    @Override
    public String decode(final int[] ids) {
        return "";
    }

    @Override
    public boolean isEnd(final int id) {
        return false;
    }

    @Override
    public int endId() {
        return 0;
    }

    @Override
    public boolean closesNextState(final int[] tokens, final int count) {
        return false;
    }

    @Override
    public int[] encode(final String text) {
        return new int[0];
    }

    @Override
    public void close() {}
}
