package dev.rwml.worldmodel.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rwml.worldmodel.hf.ChatTemplate.Message;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChatTemplateTest {

    /** ChatML as Qwen2-style and SmolLM2-style checkpoints write it, with HF whitespace control. */
    private static final String CHATML =
            """
            {%- for message in messages %}
                {{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}
            {%- endfor %}
            {%- if add_generation_prompt %}
                {{- '<|im_start|>assistant\\n' }}
            {%- endif %}
            """;

    /**
     * A template in the manner of Qwen3's: a namespace, a reversed walk over the messages to find
     * the last user query, Python string methods, reasoning stripped from earlier answers.
     */
    private static final String THINKING =
            """
            {%- set ns = namespace(found=false, last_query=messages|length - 1) %}
            {%- for message in messages[::-1] %}
                {%- set index = (messages|length - 1) - loop.index0 %}
                {%- if message.role == 'user' and not message.content.startswith('<tool_response>') and not ns.found %}
                    {%- set ns.found = true %}
                    {%- set ns.last_query = index %}
                {%- endif %}
            {%- endfor %}
            {%- if messages[0].role not in ['system', 'user'] %}
                {{- raise_exception('the first message must be system or user') }}
            {%- endif %}
            {%- for message in messages %}
                {%- set content = message.content %}
                {%- if message.role == 'assistant' and '</think>' in content %}
                    {%- set content = content.split('</think>')[-1].lstrip('\\n') %}
                    {%- if loop.index0 > ns.last_query %}
                        {%- set content = '<think>\\n' + message.content.split('</think>')[0].split('<think>')[-1].strip('\\n') + '\\n</think>\\n\\n' + content %}
                    {%- endif %}
                {%- endif %}
                {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' }}
            {%- endfor %}
            {%- if add_generation_prompt %}
                {{- '<|im_start|>assistant\\n' }}
                {%- if enable_thinking is defined and enable_thinking is false %}
                    {{- '<think>\\n\\n</think>\\n\\n' }}
                {%- endif %}
            {%- endif %}
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    @Test
    void shouldRenderTheFixtureChatSampleThatTheTokenizerEncodesAsExpected() throws IOException {
        final Path fixture = HfFixtures.checkpoint("qwen2-tiny");
        final ObjectNode config =
                (ObjectNode) JSON.readTree(fixture.resolve(ChatTemplate.FILE).toFile());
        config.put("chat_template", CHATML);
        Files.writeString(dir.resolve(ChatTemplate.FILE), JSON.writeValueAsString(config));
        final String text =
                ChatTemplate.load(dir).render(List.of(Message.user("Where is the key?")), true);
        assertThat(text)
                .isEqualTo(
                        "<|im_start|>user\nWhere is the key?<|im_end|>\n<|im_start|>assistant\n");
        final JsonNode sample = HfFixtures.expected("qwen2-tiny").get("tokenizer_samples").get(2);
        assertThat(sample.get("text").asText()).isEqualTo(text);
        try (HfTokenizer tokenizer = HfTokenizer.load(fixture, HfConfig.load(fixture))) {
            final int[] ids = tokenizer.encode(text);
            assertThat(ids).hasSize(sample.get("ids").size());
            for (int i = 0; i < ids.length; i++) {
                assertThat(ids[i]).isEqualTo(sample.get("ids").get(i).asInt());
            }
        }
    }

    @Test
    void shouldSayWhenACheckpointHasNoChatTemplate() {
        assertThatThrownBy(() -> ChatTemplate.load(HfFixtures.checkpoint("llama-tiny")))
                .hasMessageContaining("has no chat_template");
    }

    @Test
    void shouldReadSpecialTokensFromTheFixtureTokenizerConfig() throws IOException {
        final JsonNode config =
                JSON.readTree(
                        HfFixtures.checkpoint("llama-tiny").resolve(ChatTemplate.FILE).toFile());
        assertThat(ChatTemplate.specialTokens(config))
                .containsEntry("bos_token", "<|begin_of_text|>")
                .containsEntry("eos_token", "<|end_of_text|>");
        final ChatTemplate bos =
                ChatTemplate.of(
                        "{{ bos_token }}{% for m in messages %}{{ m.content|trim }}{% endfor %}",
                        Map.of("bos_token", "<|begin_of_text|>"));
        assertThat(bos.render(List.of(Message.user("  hi  ")), false))
                .isEqualTo("<|begin_of_text|>hi");
    }

    @Test
    void shouldKeepOnlyTheLastAnswersReasoningAsAThinkingTemplateDoes() {
        final ChatTemplate template = ChatTemplate.of(THINKING, Map.of());
        final String text =
                template.render(
                        List.of(
                                Message.system(
                                        "You are an expert agent operating in the ALFRED Embodied Environment."),
                                Message.user("go to fridge 1"),
                                Message.assistant(
                                        "<think>\nThe fridge is closed.\n</think>\n\n<next_state>The fridge 1 is closed.</next_state>"),
                                Message.user("open fridge 1")),
                        true,
                        Map.of("enable_thinking", false));
        assertThat(text)
                .isEqualTo(
                        "<|im_start|>system\nYou are an expert agent operating in the ALFRED"
                                + " Embodied Environment.<|im_end|>\n"
                                + "<|im_start|>user\ngo to fridge 1<|im_end|>\n"
                                + "<|im_start|>assistant\n<next_state>The fridge 1 is"
                                + " closed.</next_state><|im_end|>\n"
                                + "<|im_start|>user\nopen fridge 1<|im_end|>\n"
                                + "<|im_start|>assistant\n<think>\n\n</think>\n\n");
    }

    @Test
    void shouldKeepTheReasoningOfAnswersAfterTheLastQuery() {
        final String text =
                ChatTemplate.of(THINKING, Map.of())
                        .render(
                                List.of(
                                        Message.user("q"),
                                        Message.assistant("<think>\nwhy\n</think>\n\nanswer")),
                                false);
        assertThat(text)
                .isEqualTo(
                        "<|im_start|>user\nq<|im_end|>\n"
                                + "<|im_start|>assistant\n<think>\nwhy\n</think>\n\nanswer<|im_end|>\n");
    }

    @Test
    void shouldReportTheTemplatesOwnException() {
        assertThatThrownBy(
                        () ->
                                ChatTemplate.of(THINKING, Map.of())
                                        .render(List.of(Message.assistant("hi")), true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the first message must be system or user");
    }

    @Test
    void shouldGivePythonStringMethodsTheirPythonMeaning() {
        final ChatTemplate t =
                ChatTemplate.of(
                        "{{ 'a</think>'.split('</think>')|length }}|{{ 'xxhixx'.strip('x') }}|"
                                + "{{ '  pad '.lstrip() }}.|{{ 'ab'.endswith(['c', 'b']) }}|"
                                + "{{ 'a b  c'.split()|join(',') }}|{{ 'Hi'.upper() }}",
                        Map.of());
        assertThat(t.render(List.of(), false)).isEqualTo("2|hi|pad .|true|a,b,c|HI");
    }

    @Test
    void shouldParenthesiseNamespaceArgumentsOnly() {
        assertThat(ChatTemplate.translate("{% set ns = namespace(a=x|length - 1, b='=,') %}\n"))
                .isEqualTo("{% set ns = namespace(a=(x|length - 1), b=('=,')) %}");
    }
}
