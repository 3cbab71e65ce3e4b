package dev.rwml.ops.cli.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The reports' CSV writer. */
class CsvTableTest {

    @Test
    void shouldQuoteFieldsWithSeparatorsQuotesAndLineBreaks() {
        final String text =
                new CsvTable("model", "group", "value")
                        .row("demo@15", "alfworld/valid_seen", 0.25)
                        .row("a, b", "say \"hi\"", "two\nlines")
                        .text();
        assertThat(text)
                .isEqualTo(
                        "model,group,value\n"
                                + "demo@15,alfworld/valid_seen,0.25\n"
                                + "\"a, b\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
    }

    @Test
    void shouldWriteNullAsAnEmptyFieldAndAHeaderWithoutRows() {
        assertThat(new CsvTable("a", "b").row(null, 1).text()).isEqualTo("a,b\n,1\n");
        assertThat(new CsvTable("a", "b").text()).isEqualTo("a,b\n");
    }

    @Test
    void shouldRejectARowWhoseLengthIsNotTheHeaders() {
        assertThatThrownBy(() -> new CsvTable("a", "b").row("only one"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a row of 1 fields for 2 columns: [only one]");
    }
}
