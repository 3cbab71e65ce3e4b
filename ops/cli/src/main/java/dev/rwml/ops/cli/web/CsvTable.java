package dev.rwml.ops.cli.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A CSV file of the CLI's reports, written by Jackson's CSV writer: a header line, then one line
 * per row, every field quoted where a reader needs it (commas, quotes, line breaks). Fields are
 * text as the caller formatted it; {@code null} is an empty field.
 */
public final class CsvTable {

    // Strict: quote only where a reader needs it, so "no world model" stays bare as before.
    private static final CsvMapper MAPPER =
            CsvMapper.builder().enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING).build();

    private final CsvSchema schema;
    private final List<List<String>> rows = new ArrayList<>();

    /** A table with these column names, in this order. */
    public CsvTable(final List<String> columns) {
        this.schema =
                CsvSchema.builder()
                        .addColumns(columns, CsvSchema.ColumnType.STRING)
                        .build()
                        .withHeader();
    }

    /** A table with these column names, in this order. */
    public CsvTable(final String... columns) {
        this(List.of(columns));
    }

    /** Adds a row of one field per column, each written as {@link String#valueOf(Object)}. */
    public CsvTable row(final Object... fields) {
        if (fields.length != schema.size()) {
            throw new IllegalArgumentException(
                    "a row of "
                            + fields.length
                            + " fields for "
                            + schema.size()
                            + " columns: "
                            + Arrays.toString(fields));
        }
        rows.add(Arrays.stream(fields).map(f -> f == null ? "" : String.valueOf(f)).toList());
        return this;
    }

    /** The CSV text, header first, each line ending in {@code \n}. */
    public String text() {
        try {
            return MAPPER.writer(schema).writeValueAsString(rows);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write CSV text of plain strings", e);
        }
    }

    /** Writes {@link #text()} to {@code file} as UTF-8, replacing it. */
    public Path write(final Path file) throws IOException {
        return Files.writeString(file, text(), StandardCharsets.UTF_8);
    }
}
