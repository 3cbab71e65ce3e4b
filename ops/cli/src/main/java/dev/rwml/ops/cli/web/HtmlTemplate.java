package dev.rwml.ops.cli.web;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.RenderResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An HTML page from a Jinja template on the class path, rendered by Jinjava with every value
 * HTML-escaped unless the template marks it {@code |safe} (the charts' SVG).
 */
public final class HtmlTemplate {

    private static final Jinjava JINJAVA = autoescaping();

    private final String name;
    private final String text;

    private HtmlTemplate(final String name, final String text) {
        this.name = name;
        this.text = text;
    }

    /** The template {@code resource}, a name relative to {@code owner}'s package. */
    public static HtmlTemplate of(final Class<?> owner, final String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(
                        "no template " + resource + " beside " + owner.getName());
            }
            return new HtmlTemplate(
                    resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the template " + resource, e);
        }
    }

    /**
     * The page for these values. A template that names an unknown value or does not parse is a bug
     * of this program, so any error Jinjava reports throws.
     */
    public String render(final Map<String, ?> values) {
        final RenderResult result = JINJAVA.renderForResult(text, values);
        if (!result.getErrors().isEmpty()) {
            throw new IllegalStateException(
                    "the template " + name + " did not render: " + result.getErrors());
        }
        return result.getOutput();
    }

    private static Jinjava autoescaping() {
        final Jinjava jinjava =
                new Jinjava(
                        JinjavaConfig.newBuilder()
                                .withFailOnUnknownTokens(true)
                                .withTrimBlocks(true)
                                .withLstripBlocks(true)
                                .withKeepTrailingNewline(true)
                                .build());
        jinjava.getGlobalContext().setAutoEscape(true);
        return jinjava;
    }
}
