package dev.rwml.env.tau2;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.UncheckedIOException;

/**
 * The JSON conventions of the service desk: snake_case fields, keys sorted everywhere, nulls left
 * out, compact output, and a lenient reader for agent-written tool calls.
 */
public final class Tau2Json {

    private static final ObjectMapper MAPPER =
            JsonMapper.builder()
                    .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                    .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                    .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                    .serializationInclusion(JsonInclude.Include.NON_NULL)
                    .enable(
                            JsonReadFeature.ALLOW_SINGLE_QUOTES,
                            JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES,
                            JsonReadFeature.ALLOW_TRAILING_COMMA,
                            JsonReadFeature.ALLOW_JAVA_COMMENTS)
                    .build();

    private Tau2Json() {}

    /** The shared mapper; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * Writes a value as compact JSON with sorted keys; JSON trees are first turned into plain maps
     * so that their keys are sorted too.
     */
    public static String write(final Object value) {
        try {
            final Object plain =
                    value instanceof JsonNode node
                            ? MAPPER.convertValue(node, Object.class)
                            : value;
            return MAPPER.writeValueAsString(plain);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write JSON for " + value.getClass(), e);
        }
    }

    /** Reads JSON leniently (single quotes, unquoted names, trailing commas, comments). */
    public static JsonNode read(final String text) throws JsonProcessingException {
        return MAPPER.readTree(text);
    }
}
