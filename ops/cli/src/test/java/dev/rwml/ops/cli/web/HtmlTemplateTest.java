package dev.rwml.ops.cli.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reports' HTML templates. */
class HtmlTemplateTest {

    @Test
    void shouldEscapeEveryValueButTheOnesMarkedSafe() {
        final String page =
                HtmlTemplate.of(HtmlTemplateTest.class, "sample.html.jinja")
                        .render(Map.of("title", "<run> & \"q\"", "svg", "<svg></svg>"));
        assertThat(page).isEqualTo("<h1>&lt;run&gt; &amp; &quot;q&quot;</h1><svg></svg>\n");
    }

    @Test
    void shouldFailOnAValueTheTemplateNamesButIsNotGiven() {
        final HtmlTemplate template =
                HtmlTemplate.of(HtmlTemplateTest.class, "unknown-value.html.jinja");
        assertThatThrownBy(() -> template.render(Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("the template unknown-value.html.jinja did not render:")
                .hasMessageContaining("missing");
    }

    @Test
    void shouldFailOnAMissingTemplate() {
        assertThatThrownBy(() -> HtmlTemplate.of(HtmlTemplateTest.class, "none.html.jinja"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "no template none.html.jinja beside " + HtmlTemplateTest.class.getName());
    }
}
