package dev.rwml.trainer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.events.RewardedGroup;
import dev.rwml.events.RewardedSample;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trainer's checks of a rewarded group as it reads it. */
class GroupRulesTest {

    private static final byte[] KEY = "alfworld/e/0".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldAcceptAGroupOfItsOwnSize() {
        assertThat(GroupRules.invalidReason(KEY, Groups.group("alfworld/e/0", 0, 4, 384))).isNull();
    }

    @Test
    void shouldRefuseAGroupWithASampleRepeated() {
        final RewardedGroup group = Groups.group("alfworld/e/0", 0, 4, 384);
        final List<RewardedSample> five = new ArrayList<>(group.getSamples());
        five.add(five.get(0));
        group.setSamples(five);
        assertThat(GroupRules.invalidReason(KEY, group))
                .isEqualTo("rewarded group alfworld/e/0 has 5 samples but was sampled with G = 4");
    }

    @Test
    void shouldAcceptAGroupWrittenBeforeGWasRecorded() {
        final RewardedGroup group = Groups.group("alfworld/e/0", 0, 4, 384);
        group.getSampling().setGroupSize(0);
        group.getSamples().remove(3);
        assertThat(GroupRules.invalidReason(KEY, group)).isNull();
    }
}
