package dev.rwml.worldmodel.serve.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiWireTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldReadVllmCompletionRequestWithTokenBatchAndSingleStop() throws IOException {
        final CompletionRequest request = read("completion-request.json", CompletionRequest.class);

        assertThat(request.prompt().batch()).isTrue();
        assertThat(request.prompt().isText()).isFalse();
        assertThat(request.prompt().tokenArrays())
                .containsExactly(new int[] {101, 7, 42}, new int[] {101, 9});
        assertThat(request.n()).isEqualTo(2);
        assertThat(request.maxTokens()).isEqualTo(4);
        assertThat(request.topP()).isEqualTo(0.95);
        assertThat(request.seed()).isEqualTo(17L);
        assertThat(request.stop()).containsExactly("</next_state>");
        assertThat(request.logprobs()).isZero();
        assertThat(request.returnTokenIds()).isTrue();
        assertThat(roundTrip(request, CompletionRequest.class)).isEqualTo(request);
    }

    @Test
    void shouldReadVllmCompletionResponseWithLogprobsAndTokenIds() throws IOException {
        final CompletionResponse response =
                read("completion-response.json", CompletionResponse.class);

        assertThat(response.model()).isEqualTo("demo-v3");
        assertThat(response.choices()).hasSize(2);
        final CompletionResponse.Choice first = response.choices().get(0);
        assertThat(first.finishReason()).isEqualTo(CompletionResponse.LENGTH);
        assertThat(first.tokenIds()).containsExactly(262, 33758);
        assertThat(first.promptTokenIds()).containsExactly(101, 7, 42);
        assertThat(first.logprobs().tokenLogprobs())
                .containsExactly(-0.6931471805599453, -1.2039728043259361);
        assertThat(response.choices().get(1).finishReason()).isEqualTo(CompletionResponse.STOP);
        assertThat(response.usage().totalTokens()).isEqualTo(6);
        assertThat(roundTrip(response, CompletionResponse.class)).isEqualTo(response);
    }

    @Test
    void shouldWriteTheVllmFieldNames() throws IOException {
        final JsonNode written =
                JSON.valueToTree(read("completion-response.json", CompletionResponse.class));
        final JsonNode choice = written.get("choices").get(0);

        assertThat(choice.has("finish_reason")).isTrue();
        assertThat(choice.has("token_ids")).isTrue();
        assertThat(choice.has("prompt_token_ids")).isTrue();
        assertThat(choice.get("logprobs").has("token_logprobs")).isTrue();
        assertThat(written.get("usage").has("completion_tokens")).isTrue();
    }

    @Test
    void shouldKeepEachPromptFormWhenWrittenBack() throws IOException {
        for (final String json :
                List.of("\"a text\"", "[\"one\",\"two\"]", "[1,2,3]", "[[1,2],[3]]")) {
            final CompletionPrompt prompt = JSON.readValue(json, CompletionPrompt.class);
            assertThat(JSON.writeValueAsString(prompt)).isEqualTo(json);
        }
        assertThat(JSON.readValue("[[1,2],[3]]", CompletionPrompt.class).size()).isEqualTo(2);
    }

    @Test
    void shouldRefuseMalformedPrompts() {
        for (final String json : List.of("[]", "[[1],\"x\"]", "[1,-2]", "{\"a\":1}")) {
            assertThatThrownBy(() -> JSON.readValue(json, CompletionPrompt.class))
                    .isInstanceOf(ValueInstantiationException.class);
        }
    }

    @Test
    void shouldReadErrorModelsTokenizeAndLoraBodies() throws IOException {
        final ErrorResponse error = read("error.json", ErrorResponse.class);
        assertThat(error.error().param()).isEqualTo("n");
        assertThat(error.error().code()).isEqualTo("400");
        assertThat(roundTrip(error, ErrorResponse.class)).isEqualTo(error);

        final ModelList models = read("models.json", ModelList.class);
        assertThat(models.data()).extracting(ModelList.Card::id).containsExactly("demo", "demo-v3");
        assertThat(models.data().get(1).parent()).isEqualTo("demo");
        assertThat(roundTrip(models, ModelList.class)).isEqualTo(models);

        final TokenizeResponse tokens = read("tokenize.json", TokenizeResponse.class);
        assertThat(tokens.tokens()).containsExactly(101, 7, 42);
        assertThat(tokens.maxModelLen()).isEqualTo(256);

        final LoraAdapterRequest lora = read("load-lora.json", LoraAdapterRequest.class);
        assertThat(lora.loraName()).isEqualTo("demo-v3");
        assertThat(JSON.writeValueAsString(lora))
                .isEqualTo("{\"lora_name\":\"demo-v3\",\"lora_path\":\"/adapters/demo-v3\"}");
    }

    private static <T> T read(final String name, final Class<T> type) throws IOException {
        try (InputStream in = OpenAiWireTest.class.getResourceAsStream("/openai/" + name)) {
            return JSON.readValue(in, type);
        }
    }

    private static <T> T roundTrip(final T value, final Class<T> type) throws IOException {
        return JSON.readValue(JSON.writeValueAsString(value), type);
    }
}
