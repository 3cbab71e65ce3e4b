package dev.rwml.scoring.score;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rwml.events.NextStateKind;
import org.junit.jupiter.api.Test;

class RewardSpecTableTest {

    @Test
    void shouldUseThePapersSpecsByDefault() {
        final RewardSpecTable table = RewardSpecTable.paperDefaults();
        assertThat(table.specFor("alfworld", NextStateKind.TEXT)).isEqualTo(RewardSpec.cosine(0.8));
        assertThat(table.specFor("retail", NextStateKind.USER_MESSAGE))
                .isEqualTo(RewardSpec.cosine(0.6));
        assertThat(table.specFor("retail", NextStateKind.TOOL_RESULT))
                .isEqualTo(RewardSpec.rougeL(0.6));
    }

    @Test
    void shouldPreferAnEnvironmentEntryOverTheKindEntry() {
        final RewardSpecTable table = RewardSpecTable.parse("TEXT=cosine:0.7; alfworld/TEXT=exact");
        assertThat(table.specFor("alfworld", NextStateKind.TEXT))
                .isEqualTo(RewardSpec.exactMatch());
        assertThat(table.specFor("other", NextStateKind.TEXT)).isEqualTo(RewardSpec.cosine(0.7));
        assertThat(table.specFor("other", NextStateKind.TOOL_RESULT))
                .isEqualTo(RewardSpec.rougeL(0.6));
    }

    @Test
    void shouldRoundTripThroughItsTextForm() {
        final RewardSpecTable table =
                RewardSpecTable.parse("USER_MESSAGE=rouge-l:0.4,airline/TOOL_RESULT=exact-match");
        assertThat(RewardSpecTable.parse(table.toString())).isEqualTo(table);
    }

    @Test
    void shouldRejectMalformedEntriesWithAHint() {
        assertThatThrownBy(() -> RewardSpecTable.parse("TEXT"))
                .hasMessageContaining("[env/]KIND=method[:threshold]");
        assertThatThrownBy(() -> RewardSpecTable.parse("PICTURE=cosine"))
                .hasMessageContaining("TEXT, TOOL_RESULT or USER_MESSAGE");
        assertThatThrownBy(() -> RewardSpecTable.parse("TEXT=bleu:0.5"))
                .hasMessageContaining("unknown reward method 'bleu'");
        assertThatThrownBy(() -> RewardSpecTable.parse("TEXT=cosine:1.5"))
                .hasMessageContaining("[0, 1)");
    }

    @Test
    void shouldRewardOnlySimilarityStrictlyAboveThreshold() {
        final RewardSpec spec = RewardSpec.cosine(0.8);
        assertThat(spec.reward(0.8)).isZero();
        assertThat(spec.reward(0.8000001)).isEqualTo(1.0);
    }
}
