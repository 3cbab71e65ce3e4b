package dev.rwml.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rwml.prediction.PredictionConfig;
import dev.rwml.reward.RewardConfig;
import dev.rwml.reward.filter.FilterConfig;
import dev.rwml.runtime.settings.SettingsDefinition;
import dev.rwml.trainer.TrainerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's configuration tables are the stages' setting definitions: this fails when a key,
 * default or meaning changes in one place only. Regenerate a table with {@code rwml <stage>
 * --help-config}.
 */
class ConfigurationTablesTest {

    private static final Path README = Path.of("..", "..", "README.md");

    @Test
    void shouldDocumentTheSettingsOfEveryStageExactlyAsTheyAreDefined() throws Exception {
        final String readme = Files.readString(README);

        assertThat(table(readme, "common")).isEqualTo(SettingsDefinition.commonMarkdownTable());
        assertThat(table(readme, "prediction"))
                .isEqualTo(PredictionConfig.DEFINITION.markdownTable());
        assertThat(table(readme, "reward")).isEqualTo(RewardConfig.DEFINITION.markdownTable());
        assertThat(table(readme, "trainer")).isEqualTo(TrainerConfig.DEFINITION.markdownTable());
        assertThat(table(readme, "filter")).isEqualTo(FilterConfig.DEFINITION.markdownTable());
    }

    private static String table(final String readme, final String name) {
        final Matcher m =
                Pattern.compile(
                                "<!-- settings:" + name + " -->\n(.*?)<!-- /settings -->",
                                Pattern.DOTALL)
                        .matcher(readme);
        assertThat(m.find())
                .as(
                        "README.md has a table between <!-- settings:%s --> and <!-- /settings -->",
                        name)
                .isTrue();
        return m.group(1);
    }
}
