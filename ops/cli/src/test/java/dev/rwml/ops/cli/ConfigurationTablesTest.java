package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.filter.FilterConfig;
import dev.rwml.prediction.PredictionConfig;
import dev.rwml.reward.RewardConfig;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.trainer.TrainerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration tables of docs/configuration.md are the stages' setting definitions: this fails
 * when a key, default or meaning changes in one place only. Regenerate a table with {@code rwml
 * <stage> --help-config}.
 */
class ConfigurationTablesTest {

    private static final Path PAGE = Path.of("..", "..", "docs", "configuration.md");

    @Test
    void shouldDocumentTheSettingsOfEveryStageExactlyAsTheyAreDefined() throws Exception {
        final String page = Files.readString(PAGE);

        assertThat(table(page, "common")).isEqualTo(SettingsDefinition.commonMarkdownTable());
        assertThat(table(page, "prediction"))
                .isEqualTo(PredictionConfig.DEFINITION.markdownTable());
        assertThat(table(page, "reward")).isEqualTo(RewardConfig.DEFINITION.markdownTable());
        assertThat(table(page, "trainer")).isEqualTo(TrainerConfig.DEFINITION.markdownTable());
        assertThat(table(page, "filter")).isEqualTo(FilterConfig.DEFINITION.markdownTable());
    }

    private static String table(final String page, final String name) {
        final Matcher m =
                Pattern.compile(
                                "<!-- settings:" + name + " -->\n(.*?)<!-- /settings -->",
                                Pattern.DOTALL)
                        .matcher(page);
        assertThat(m.find())
                .as(
                        "docs/configuration.md has a table between <!-- settings:%s --> and <!-- /settings -->",
                        name)
                .isTrue();
        return m.group(1);
    }
}
