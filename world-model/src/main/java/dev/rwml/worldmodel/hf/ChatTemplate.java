package dev.rwml.worldmodel.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import jinjava.javax.el.CompositeELResolver;

/**
 * A checkpoint's chat template ({@code chat_template} of {@code tokenizer_config.json}) rendered
 * with Jinjava the way Hugging Face renders it (trim_blocks, lstrip_blocks, {@code
 * raise_exception}, Python string methods), so system and user messages reach the model in its own
 * chat format.
 */
public final class ChatTemplate {

    /** The file that holds the template and the special-token strings. */
    public static final String FILE = "tokenizer_config.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** One chat message: a role (system, user, assistant) and its text. */
    public record Message(String role, String content) {

        public Message {
            if (role == null || role.isBlank() || content == null) {
                throw new IllegalArgumentException("a message needs a role and a content");
            }
        }

        /** A system message. */
        public static Message system(final String content) {
            return new Message("system", content);
        }

        /** A user message. */
        public static Message user(final String content) {
            return new Message("user", content);
        }

        /** An assistant message. */
        public static Message assistant(final String content) {
            return new Message("assistant", content);
        }
    }

    private final String template;
    private final Map<String, Object> specialTokens;
    private final Jinjava jinjava;

    private ChatTemplate(final String template, final Map<String, Object> specialTokens) {
        this.template = translate(template);
        this.specialTokens = Map.copyOf(specialTokens);
        final CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonStringMethods());
        resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_WRITE);
        this.jinjava =
                new Jinjava(
                        JinjavaConfig.newBuilder()
                                .withTrimBlocks(true)
                                .withLstripBlocks(true)
                                .withKeepTrailingNewline(true)
                                .withElResolver(resolver)
                                .withLegacyOverrides(
                                        LegacyOverrides.newBuilder()
                                                // {{- and -}} strip whitespace as in Jinja2
                                                .withUseTrimmingForNotesAndExpressions(true)
                                                .withParseWhitespaceControlStrictly(true)
                                                // a|length - 1 is (a|length) - 1
                                                .withUseNaturalOperatorPrecedence(true)
                                                .withHandleBackslashInQuotesOnly(true)
                                                .build())
                                .build());
        jinjava.getGlobalContext()
                .registerFunction(
                        new ELFunctionDefinition(
                                "", "raise_exception", ChatTemplate.class, "raise", String.class));
        jinjava.getGlobalContext()
                .registerFunction(
                        new ELFunctionDefinition(
                                "", "strftime_now", ChatTemplate.class, "today", String.class));
    }

    /** The template of a checkpoint directory, or an error when its tokenizer has none. */
    public static ChatTemplate load(final Path checkpointDir) {
        final Path file = checkpointDir.resolve(FILE);
        final JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        final String template = templateText(root.get("chat_template"));
        if (template == null) {
            throw new IllegalArgumentException(
                    file
                            + " has no chat_template: the checkpoint is a base model without a chat"
                            + " format; give a template with ChatTemplate.of");
        }
        return new ChatTemplate(template, specialTokens(root));
    }

    /**
     * The template of a checkpoint directory, or empty when it has no {@code tokenizer_config.json}
     * or no {@code chat_template} in it (a base model: prompts stay plain text).
     */
    public static java.util.Optional<ChatTemplate> find(final Path checkpointDir) {
        final Path file = checkpointDir.resolve(FILE);
        if (!java.nio.file.Files.isRegularFile(file)) {
            return java.util.Optional.empty();
        }
        final JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (final IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        final String template = templateText(root.get("chat_template"));
        return template == null
                ? java.util.Optional.empty()
                : java.util.Optional.of(new ChatTemplate(template, specialTokens(root)));
    }

    /** A template given as text, with the special-token strings it may refer to. */
    public static ChatTemplate of(final String template, final Map<String, String> specialTokens) {
        return new ChatTemplate(template, new HashMap<>(specialTokens));
    }

    /** The special-token strings of a {@code tokenizer_config.json} (bos_token, eos_token, ...). */
    static Map<String, Object> specialTokens(final JsonNode root) {
        final Map<String, Object> out = new HashMap<>();
        for (final String name : List.of("bos_token", "eos_token", "pad_token", "unk_token")) {
            final JsonNode node = root.get(name);
            if (node == null || node.isNull()) {
                out.put(name, "");
            } else if (node.isObject()) {
                out.put(name, node.path("content").asText(""));
            } else {
                out.put(name, node.asText());
            }
        }
        return out;
    }

    /** Renders messages; with {@code addGenerationPrompt} the text ends where the model answers. */
    public String render(final List<Message> messages, final boolean addGenerationPrompt) {
        return render(messages, addGenerationPrompt, Map.of());
    }

    /** As {@link #render(List, boolean)}, with extra template variables (e.g. enable_thinking). */
    public String render(
            final List<Message> messages,
            final boolean addGenerationPrompt,
            final Map<String, Object> variables) {
        final List<Map<String, Object>> list = new ArrayList<>();
        for (final Message m : messages) {
            final Map<String, Object> map = new LinkedHashMap<>();
            map.put("role", m.role());
            map.put("content", m.content());
            list.add(map);
        }
        final Map<String, Object> context = new HashMap<>(specialTokens);
        context.putAll(variables);
        context.put("messages", list);
        context.put("add_generation_prompt", addGenerationPrompt);
        final RenderResult result = jinjava.renderForResult(template, context);
        final List<TemplateError> fatal =
                result.getErrors().stream()
                        .filter(e -> e.getSeverity() == TemplateError.ErrorType.FATAL)
                        .toList();
        if (!fatal.isEmpty()) {
            throw new IllegalArgumentException(
                    "chat template failed: "
                            + fatal.stream()
                                    .map(ChatTemplate::describe)
                                    .collect(Collectors.joining("; ")));
        }
        return result.getOutput();
    }

    /** Bound to the template's {@code raise_exception(message)}. */
    public static String raise(final String message) {
        throw new TemplateException(message);
    }

    /** Bound to the template's {@code strftime_now(format)} (Llama 3 templates date the prompt). */
    public static String today(final String format) {
        final String java =
                format.replace("%d", "dd")
                        .replace("%b", "MMM")
                        .replace("%Y", "yyyy")
                        .replace("%m", "MM")
                        .replace("%B", "MMMM");
        return LocalDate.now().format(DateTimeFormatter.ofPattern(java, Locale.ENGLISH));
    }

    /** What a template's {@code raise_exception} threw. */
    static final class TemplateException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TemplateException(final String message) {
            super(message);
        }
    }

    private static String describe(final TemplateError e) {
        Throwable cause = e.getException();
        while (cause != null) {
            if (cause instanceof TemplateException) {
                return "raise_exception: " + cause.getMessage();
            }
            cause = cause.getCause();
        }
        return e.getMessage() + (e.getLineno() > 0 ? " (line " + e.getLineno() + ")" : "");
    }

    /**
     * Rewrites the few Jinja2 forms Jinjava reads differently: a reversing slice becomes the
     * reverse filter, each keyword argument of namespace(...) is parenthesised (Jinjava binds a
     * filter in it wrongly), and one trailing newline of the source is dropped as Jinja2 does.
     */
    static String translate(final String template) {
        String t = template.replace("[::-1]", "|reverse");
        if (t.endsWith("\n")) {
            t = t.substring(0, t.length() - 1);
        }
        final StringBuilder out = new StringBuilder();
        int from = 0;
        int at;
        while ((at = t.indexOf("namespace(", from)) >= 0) {
            final int open = at + "namespace(".length();
            final int close = matchingParen(t, open);
            out.append(t, from, open);
            final List<String> args = topLevelSplit(t.substring(open, close));
            for (int i = 0; i < args.size(); i++) {
                final String arg = args.get(i);
                final int eq = arg.indexOf('=');
                out.append(i == 0 ? "" : ",");
                if (eq > 0 && arg.substring(0, eq).trim().matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    out.append(arg, 0, eq + 1)
                            .append('(')
                            .append(arg.substring(eq + 1))
                            .append(')');
                } else {
                    out.append(arg);
                }
            }
            from = close;
        }
        return out.append(t.substring(from)).toString();
    }

    private static int matchingParen(final String t, final int open) {
        int depth = 1;
        char quote = 0;
        for (int i = open; i < t.length(); i++) {
            final char c = t.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if ((c == ')' || c == ']' || c == '}') && --depth == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("chat template: unclosed namespace(");
    }

    private static List<String> topLevelSplit(final String args) {
        final List<String> parts = new ArrayList<>();
        int depth = 0;
        char quote = 0;
        int start = 0;
        for (int i = 0; i < args.length(); i++) {
            final char c = args.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
            } else if (c == ',' && depth == 0) {
                parts.add(args.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(args.substring(start));
        return parts;
    }

    private static String templateText(final JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isArray()) {
            // a list of named templates: the default one renders chats
            for (final JsonNode t : node) {
                if ("default".equals(t.path("name").asText())) {
                    return t.path("template").asText();
                }
            }
        }
        throw new IllegalArgumentException(
                "chat_template must be a string or a list with a template named default");
    }
}
