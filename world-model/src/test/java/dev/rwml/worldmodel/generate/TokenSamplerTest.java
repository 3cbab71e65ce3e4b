package dev.rwml.worldmodel.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TokenSamplerTest {

    private static final int DRAWS = 20_000;

    @Test
    void shouldDrawOnlyFromTheNucleusInProportionToItsRenormalisedProbabilities() {
        final float[] probs = {0.05f, 0.5f, 0.15f, 0.3f};
        final TokenSampler sampler = new TokenSampler(4);
        final SplittableRandom random = new SplittableRandom(1);
        final int[] counts = new int[4];
        for (int i = 0; i < DRAWS; i++) {
            counts[sampler.draw(probs, 0, 0.75f, random)]++;
        }
        // nucleus of 0.75: tokens 1 (0.5) and 3 (0.3), renormalised to 0.625 and 0.375
        assertThat(counts[0]).isZero();
        assertThat(counts[2]).isZero();
        assertThat(counts[1] / (double) DRAWS).isCloseTo(0.625, within(0.02));
        assertThat(counts[3] / (double) DRAWS).isCloseTo(0.375, within(0.02));
    }

    @Test
    void shouldDrawEveryTokenInProportionToItsProbabilityAtTopPOne() {
        final float[] probs = {0, 0.05f, 0.5f, 0.15f, 0.3f};
        final TokenSampler sampler = new TokenSampler(4);
        final SplittableRandom random = new SplittableRandom(2);
        final int[] counts = new int[4];
        for (int i = 0; i < DRAWS; i++) {
            // the row starts at offset 1: the leading 0 belongs to another row
            counts[sampler.draw(probs, 1, 1f, random)]++;
        }
        assertThat(counts[0] / (double) DRAWS).isCloseTo(0.05, within(0.01));
        assertThat(counts[1] / (double) DRAWS).isCloseTo(0.5, within(0.02));
        assertThat(counts[2] / (double) DRAWS).isCloseTo(0.15, within(0.015));
        assertThat(counts[3] / (double) DRAWS).isCloseTo(0.3, within(0.02));
    }

    @Test
    void shouldFindTheExactNucleusWhenItHoldsManySmallTokens() {
        // one dominant token and a long flat tail: the nucleus of 0.9 takes most of the tail
        final int vocab = 1000;
        final float[] probs = new float[vocab];
        probs[7] = 0.5f;
        for (int i = 0; i < vocab; i++) {
            if (i != 7) {
                probs[i] = 0.5f / (vocab - 1) * (1 + (i % 3) * 0.01f);
            }
        }
        final Set<Integer> nucleus = referenceNucleus(probs, 0.9f);
        assertThat(nucleus).hasSizeGreaterThan(700).contains(7);
        final TokenSampler sampler = new TokenSampler(vocab);
        final SplittableRandom random = new SplittableRandom(3);
        final Set<Integer> drawn = new HashSet<>();
        for (int i = 0; i < DRAWS; i++) {
            drawn.add(sampler.draw(probs, 0, 0.9f, random));
        }
        assertThat(nucleus).containsAll(drawn);
        assertThat(drawn.size()).isGreaterThan(nucleus.size() * 9 / 10);
    }

    @Test
    void shouldPickTheLowestIdAmongEquallyLikelyBestTokens() {
        final TokenSampler sampler = new TokenSampler(4);
        assertThat(sampler.argmax(new float[] {-3f, -1f, -2f, -1f}, 0)).isEqualTo(1);
    }

    /** The nucleus by sorting the whole row: most likely first, ties by id. */
    private static Set<Integer> referenceNucleus(final float[] probs, final float topP) {
        final List<Integer> order = new ArrayList<>();
        double total = 0;
        for (int i = 0; i < probs.length; i++) {
            order.add(i);
            total += probs[i];
        }
        order.sort(
                Comparator.comparingDouble((Integer i) -> -probs[i])
                        .thenComparing(Comparator.naturalOrder()));
        final Set<Integer> nucleus = new HashSet<>();
        double kept = 0;
        for (final int i : order) {
            nucleus.add(i);
            kept += probs[i];
            if (kept >= topP * total) {
                break;
            }
        }
        return nucleus;
    }
}
