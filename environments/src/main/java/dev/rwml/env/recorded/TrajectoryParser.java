package dev.rwml.env.recorded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rwml.events.NextStateKind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads recorded trajectories, one episode per line of a JSONL file.
 *
 * <p>The format (unknown fields are ignored, so exports may carry more):
 *
 * <pre>{@code
 * {"env": "alfworld",                      required unless the import names the env
 *  "env_version": "1",                     optional, default "recorded"
 *  "split": "valid_seen",                  required unless the import names the split
 *  "episode_id": "trial_T2019_0001",       required, unique within env
 *  "task": "put a clean apple in fridge.", required
 *  "initial_observation": "-= Welcome ...", required: s_0
 *  "policy": "react-gpt-4o",               optional, default "recorded"
 *  "agent_id": "run-7",                    optional, default "import"
 *  "steps": [                              required, at least one
 *    {"action": "go to fridge 1",          required: a_t
 *     "observation": "You arrive at ...",  required: s_t+1
 *     "reward": 0,                         optional number, default 0
 *     "done": false,                       optional, default false; true only on the last step
 *     "valid": true,                       optional, default true
 *     "kind": "TEXT",                      optional: TEXT, TOOL_RESULT or USER_MESSAGE, default TEXT
 *     "admissible_actions": ["go to ..."]} optional: the valid actions before the step
 *  ],
 *  "metadata": {"taskType": "pick_clean_then_place"}}  optional; non-string values are kept as
 *                                                       their JSON text
 * }</pre>
 *
 * <p>How the Python benchmarks map onto it: an ALFWorld run is {@code env.reset()}'s observation as
 * {@code initial_observation} and each {@code env.step(action)} as a step ({@code obs}, {@code
 * score} as reward, {@code done}, the previous {@code info["admissible_commands"]}); a tau2
 * conversation gives one step per assistant turn: a tool call (its JSON as the action) followed by
 * the tool's message ({@code TOOL_RESULT}), or a message to the user followed by the user's reply
 * ({@code USER_MESSAGE}). The environment name must not contain {@code /}, which separates the
 * parts of transition ids.
 */
public final class TrajectoryParser {

    /** The env version recorded when a line does not give one. */
    public static final String DEFAULT_ENV_VERSION = "recorded";

    /** The policy name recorded when a line does not give one. */
    public static final String DEFAULT_POLICY = "recorded";

    /** The agent id recorded when a line does not give one. */
    public static final String DEFAULT_AGENT_ID = "import";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Optional<String> envName;
    private final Optional<String> split;

    /**
     * @param envName when present, the env of every episode (a line's own {@code env} is ignored)
     * @param split when present, the split of every episode (a line's own {@code split} is ignored)
     */
    public TrajectoryParser(final Optional<String> envName, final Optional<String> split) {
        envName.ifPresent(TrajectoryParser::checkEnvName);
        this.envName = envName;
        this.split = split;
    }

    /**
     * Parses one line.
     *
     * @throws MalformedLineException saying what is wrong: bad JSON, a missing or mistyped field,
     *     no steps, or {@code done} before the last step
     */
    public RecordedEpisode parse(final int lineNumber, final String line)
            throws MalformedLineException {
        final JsonNode root;
        try {
            root = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new MalformedLineException(
                    lineNumber, "not valid JSON (" + e.getOriginalMessage() + ")");
        }
        if (root == null || !root.isObject()) {
            throw new MalformedLineException(
                    lineNumber, "expected one JSON object per line (one episode)");
        }
        final Fields fields = new Fields(lineNumber, root, "");
        final String env = envName.isPresent() ? envName.get() : fields.text("env");
        if (env.isBlank() || env.contains("/")) {
            throw new MalformedLineException(
                    lineNumber,
                    "env \""
                            + env
                            + "\" must be non-empty and free of '/' (it starts every"
                            + " transition id)");
        }
        final String episodeSplit = split.isPresent() ? split.get() : fields.text("split");
        final String episodeId = fields.text("episode_id");
        if (episodeId.isBlank()) {
            throw new MalformedLineException(lineNumber, "episode_id is empty");
        }
        final String task = fields.text("task");
        final String initial = fields.text("initial_observation");
        final List<RecordedStep> steps = steps(lineNumber, root.get("steps"));
        return new RecordedEpisode(
                lineNumber,
                env,
                fields.optionalText("env_version").orElse(DEFAULT_ENV_VERSION),
                episodeSplit,
                episodeId,
                task,
                initial,
                fields.optionalText("policy").orElse(DEFAULT_POLICY),
                fields.optionalText("agent_id").orElse(DEFAULT_AGENT_ID),
                steps,
                metadata(lineNumber, root.get("metadata")));
    }

    private static List<RecordedStep> steps(final int lineNumber, final JsonNode node)
            throws MalformedLineException {
        if (node == null || node.isNull()) {
            throw new MalformedLineException(lineNumber, "missing field \"steps\"");
        }
        if (!node.isArray()) {
            throw new MalformedLineException(lineNumber, "\"steps\" must be an array of steps");
        }
        if (node.isEmpty()) {
            throw new MalformedLineException(
                    lineNumber, "\"steps\" is empty; an episode needs at least one step");
        }
        final List<RecordedStep> steps = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            final JsonNode step = node.get(i);
            if (!step.isObject()) {
                throw new MalformedLineException(
                        lineNumber, "steps[" + i + "] must be an object with action, observation");
            }
            final Fields f = new Fields(lineNumber, step, "steps[" + i + "].");
            final boolean done = f.bool("done", false);
            if (done && i < node.size() - 1) {
                throw new MalformedLineException(
                        lineNumber,
                        "steps["
                                + i
                                + "] has done=true but "
                                + (node.size() - 1 - i)
                                + " more steps follow; only the last step may end the episode");
            }
            steps.add(
                    new RecordedStep(
                            f.text("action"),
                            f.text("observation"),
                            f.number("reward", 0.0),
                            done,
                            f.bool("valid", true),
                            f.kind("kind"),
                            f.optionalTexts("admissible_actions")));
        }
        return steps;
    }

    private static Map<String, String> metadata(final int lineNumber, final JsonNode node)
            throws MalformedLineException {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw new MalformedLineException(lineNumber, "\"metadata\" must be an object");
        }
        final Map<String, String> out = new LinkedHashMap<>();
        node.properties()
                .forEach(
                        e ->
                                out.put(
                                        e.getKey(),
                                        e.getValue().isTextual()
                                                ? e.getValue().asText()
                                                : e.getValue().toString()));
        return out;
    }

    private static void checkEnvName(final String name) {
        if (name.isBlank() || name.contains("/")) {
            throw new IllegalArgumentException(
                    "env name \"" + name + "\" must be non-empty and free of '/'");
        }
    }

    /** Typed field access that names the field and the line in every complaint. */
    private record Fields(int lineNumber, JsonNode node, String prefix) {

        String text(final String name) throws MalformedLineException {
            final JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                throw new MalformedLineException(
                        lineNumber, "missing field \"" + prefix + name + "\"");
            }
            if (!value.isTextual()) {
                throw new MalformedLineException(
                        lineNumber,
                        "\"" + prefix + name + "\" must be a string, not " + describe(value));
            }
            return value.asText();
        }

        Optional<String> optionalText(final String name) throws MalformedLineException {
            final JsonNode value = node.get(name);
            return value == null || value.isNull() ? Optional.empty() : Optional.of(text(name));
        }

        double number(final String name, final double fallback) throws MalformedLineException {
            final JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isNumber() || !Double.isFinite(value.asDouble())) {
                throw new MalformedLineException(
                        lineNumber,
                        "\""
                                + prefix
                                + name
                                + "\" must be a finite number, not "
                                + describe(value));
            }
            return value.asDouble();
        }

        boolean bool(final String name, final boolean fallback) throws MalformedLineException {
            final JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return fallback;
            }
            if (!value.isBoolean()) {
                throw new MalformedLineException(
                        lineNumber,
                        "\"" + prefix + name + "\" must be true or false, not " + describe(value));
            }
            return value.asBoolean();
        }

        NextStateKind kind(final String name) throws MalformedLineException {
            final Optional<String> value = optionalText(name);
            if (value.isEmpty()) {
                return NextStateKind.TEXT;
            }
            final String wanted = value.get().trim().toUpperCase(Locale.ROOT);
            for (final NextStateKind kind : NextStateKind.values()) {
                if (kind.name().equals(wanted)) {
                    return kind;
                }
            }
            throw new MalformedLineException(
                    lineNumber,
                    "\""
                            + prefix
                            + name
                            + "\" is \""
                            + value.get()
                            + "\"; use one of "
                            + Arrays.stream(NextStateKind.values())
                                    .map(Enum::name)
                                    .collect(Collectors.joining(", ")));
        }

        Optional<List<String>> optionalTexts(final String name) throws MalformedLineException {
            final JsonNode value = node.get(name);
            if (value == null || value.isNull()) {
                return Optional.empty();
            }
            final String complaint = "\"" + prefix + name + "\" must be an array of strings";
            if (!value.isArray()) {
                throw new MalformedLineException(lineNumber, complaint);
            }
            final List<String> out = new ArrayList<>();
            for (final JsonNode item : value) {
                if (!item.isTextual()) {
                    throw new MalformedLineException(lineNumber, complaint);
                }
                out.add(item.asText());
            }
            return Optional.of(out);
        }

        private static String describe(final JsonNode value) {
            return value.getNodeType().name().toLowerCase(Locale.ROOT);
        }
    }
}
