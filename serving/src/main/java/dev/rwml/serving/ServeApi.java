package dev.rwml.serving;

import dev.rwml.events.EnvRef;
import dev.rwml.events.NextStateKind;
import dev.rwml.events.PolicyRef;
import dev.rwml.events.Transition;
import dev.rwml.events.Turn;
import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.hf.ChatTemplate;
import dev.rwml.worldmodel.prompt.Prompt;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.openai.ChatCompletionRequest;
import dev.rwml.worldmodel.serve.openai.ChatCompletionResponse;
import dev.rwml.worldmodel.serve.openai.CompletionPrompt;
import dev.rwml.worldmodel.serve.openai.CompletionRequest;
import dev.rwml.worldmodel.serve.openai.CompletionResponse;
import dev.rwml.worldmodel.serve.openai.LoraAdapterRequest;
import dev.rwml.worldmodel.serve.openai.ModelList;
import dev.rwml.worldmodel.serve.openai.TokenizeRequest;
import dev.rwml.worldmodel.serve.openai.TokenizeResponse;
import dev.rwml.worldmodel.serve.openai.Usage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigException;

/**
 * What each endpoint answers, apart from HTTP: checks a request against the limits, has the model
 * thread sample it and turns the samples into vLLM's answer. Model names: the run ({@code R}) or a
 * version of it ({@code R-v12}); either is answered by the version being served, which every answer
 * names as {@code R-v<version>}.
 */
final class ServeApi {

    /** The completion length when a request gives none (the prediction stage's default). */
    static final int DEFAULT_MAX_TOKENS = 64;

    private static final Duration LORA_WAIT = Duration.ofSeconds(30);

    private final String run;
    private final ServedModel models;
    private final ModelWorker worker;
    private final ServeLimits limits;
    private final Pattern versionName;

    ServeApi(
            final String run,
            final ServedModel models,
            final ModelWorker worker,
            final ServeLimits limits) {
        this.run = run;
        this.models = models;
        this.worker = worker;
        this.limits = limits;
        this.versionName = Pattern.compile(Pattern.quote(run) + "-v(\\d+)");
    }

    /** The name answers carry for {@code version}: {@code <run>-v<version>}. */
    String modelName(final long version) {
        return run + "-v" + version;
    }

    /** {@code GET /v1/models}: the run, and the version being served under its own name. */
    ModelList models() {
        final long version = models.version();
        final long created = Instant.now().getEpochSecond();
        final Integer context = version < 0 ? null : models.maxContext();
        final List<ModelList.Card> cards = new ArrayList<>();
        cards.add(new ModelList.Card(run, "model", created, "rwml", "rwml:" + run, null, context));
        if (version >= 0) {
            cards.add(
                    new ModelList.Card(
                            modelName(version),
                            "model",
                            created,
                            "rwml",
                            "rwml:" + run + "/" + version,
                            run,
                            context));
        }
        return ModelList.of(cards);
    }

    /** {@code GET /health}: 200 once a version serves, else 503 saying what it waits for. */
    Map<String, Object> health() {
        final long version = models.version();
        return version < 0
                ? Map.of("status", "waiting for version 0 of run " + run, "run", run)
                : Map.of("status", "ok", "run", run, "version", version, "queued", worker.queued());
    }

    /** {@code POST /v1/completions}. */
    Answered<CompletionResponse> complete(final CompletionRequest request) {
        checkModel(request.model());
        refuseStreaming(request.stream());
        final CompletionPrompt prompt = required(request.prompt(), "prompt");
        if (prompt.size() > limits.maxPrompts()) {
            throw ApiException.badRequest(
                    "at most " + limits.maxPrompts() + " prompts per request, got " + prompt.size(),
                    "prompt");
        }
        final SamplingSettings settings =
                settings(request.n(), request.maxTokens(), request.temperature(), request.topP());
        final boolean ids = Boolean.TRUE.equals(request.returnTokenIds());
        return await(
                worker.draw(
                        model -> promptIds(prompt, model),
                        settings,
                        seed(request.seed()),
                        (model, draws) -> {
                            final List<CompletionResponse.Choice> choices = new ArrayList<>();
                            int promptTokens = 0;
                            int completionTokens = 0;
                            for (int p = 0; p < draws.prompts().size(); p++) {
                                final int[] promptIds = draws.prompts().get(p);
                                promptTokens += promptIds.length;
                                for (final Sample sample : draws.samples().get(p)) {
                                    final Completion c =
                                            Completion.of(sample, request.stop(), model);
                                    completionTokens += c.tokenIds().length;
                                    choices.add(
                                            new CompletionResponse.Choice(
                                                    choices.size(),
                                                    c.text(),
                                                    request.logprobs() == null
                                                            ? null
                                                            : c.logprobs(),
                                                    c.finishReason(),
                                                    ids ? boxed(c.tokenIds()) : null,
                                                    ids ? boxed(promptIds) : null));
                                }
                            }
                            return new CompletionResponse(
                                    "cmpl-" + UUID.randomUUID().toString().replace("-", ""),
                                    CompletionResponse.OBJECT,
                                    Instant.now().getEpochSecond(),
                                    modelName(model.version()),
                                    choices,
                                    Usage.of(promptTokens, completionTokens));
                        }));
    }

    /** {@code POST /v1/chat/completions}: the messages through the checkpoint's chat template. */
    Answered<ChatCompletionResponse> chat(final ChatCompletionRequest request) {
        checkModel(request.model());
        refuseStreaming(request.stream());
        final List<ChatCompletionRequest.Message> messages =
                required(request.messages(), "messages");
        if (messages.isEmpty()) {
            throw ApiException.badRequest("messages must not be empty", "messages");
        }
        final SamplingSettings settings =
                settings(
                        request.n(),
                        request.maxCompletionTokens() != null
                                ? request.maxCompletionTokens()
                                : request.maxTokens(),
                        request.temperature(),
                        request.topP());
        final boolean ids = Boolean.TRUE.equals(request.returnTokenIds());
        final boolean logprobs = Boolean.TRUE.equals(request.logprobs());
        return await(
                worker.draw(
                        model -> List.of(model.encode(render(messages, model))),
                        settings,
                        seed(request.seed()),
                        (model, draws) -> {
                            final int[] promptIds = draws.prompts().get(0);
                            final List<ChatCompletionResponse.Choice> choices = new ArrayList<>();
                            int completionTokens = 0;
                            for (final Sample sample : draws.samples().get(0)) {
                                final Completion c = Completion.of(sample, request.stop(), model);
                                completionTokens += c.tokenIds().length;
                                choices.add(
                                        new ChatCompletionResponse.Choice(
                                                choices.size(),
                                                new ChatCompletionRequest.Message(
                                                        "assistant", c.text()),
                                                logprobs ? c.chatLogprobs() : null,
                                                c.finishReason(),
                                                ids ? boxed(c.tokenIds()) : null));
                            }
                            return new ChatCompletionResponse(
                                    "chatcmpl-" + UUID.randomUUID().toString().replace("-", ""),
                                    ChatCompletionResponse.OBJECT,
                                    Instant.now().getEpochSecond(),
                                    modelName(model.version()),
                                    choices,
                                    Usage.of(promptIds.length, completionTokens),
                                    ids ? boxed(promptIds) : null);
                        }));
    }

    /** {@code POST /tokenize}: the served version's token ids of a text. */
    Answered<TokenizeResponse> tokenize(final TokenizeRequest request) {
        checkModel(request.model());
        final String text = required(request.prompt(), "prompt");
        return await(
                worker.call(
                        model -> {
                            final int[] ids = model.encode(text);
                            return new TokenizeResponse(boxed(ids), ids.length, model.maxContext());
                        }));
    }

    /** {@code POST /v1/world-model/predict}: the next state of each candidate action. */
    Answered<WorldModelResponse> predict(final WorldModelRequest request) {
        final List<String> actions = required(request.actions(), "actions");
        if (actions.isEmpty() || actions.size() > limits.maxPrompts()) {
            throw ApiException.badRequest(
                    "give 1 to " + limits.maxPrompts() + " actions, got " + actions.size(),
                    "actions");
        }
        final String observation = required(request.observation(), "observation");
        final SamplingSettings settings =
                settings(request.n(), request.maxTokens(), request.temperature(), request.topP());
        return await(
                worker.draw(
                        model -> {
                            final int budget = budget(settings, model);
                            final List<int[]> prompts = new ArrayList<>();
                            for (final String action : actions) {
                                prompts.add(
                                        prompt(request, observation, action, model, budget)
                                                .tokenIds());
                            }
                            return prompts;
                        },
                        settings,
                        seed(request.seed()),
                        (model, draws) -> {
                            final List<WorldModelResponse.Prediction> predictions =
                                    new ArrayList<>();
                            for (int a = 0; a < actions.size(); a++) {
                                final List<WorldModelResponse.Predicted> samples =
                                        new ArrayList<>();
                                for (final Sample s : draws.samples().get(a)) {
                                    samples.add(
                                            new WorldModelResponse.Predicted(
                                                    s.prediction().orElse(null),
                                                    s.text(),
                                                    Completion.finishReason(s)));
                                }
                                predictions.add(
                                        new WorldModelResponse.Prediction(actions.get(a), samples));
                            }
                            return new WorldModelResponse(
                                    modelName(model.version()), model.version(), predictions);
                        }));
    }

    /**
     * {@code POST /v1/load_lora_adapter}: {@code rwml serve} follows the run's versions itself, so
     * loading {@code R-vN} waits until version N (or a newer one) was offered, and fails with 404
     * when it does not come within 30 seconds; the adapter path is not read.
     */
    String loadAdapter(final LoraAdapterRequest request) throws InterruptedException {
        final String name = required(request.loraName(), "lora_name");
        final long version = versionOf(name);
        if (!models.awaitVersion(version, LORA_WAIT)) {
            throw new ApiException(
                    404,
                    "NotFoundError",
                    "version "
                            + version
                            + " of run "
                            + run
                            + " did not arrive on the run's models topic within "
                            + LORA_WAIT.toSeconds()
                            + " s (serving version "
                            + models.version()
                            + ")",
                    "lora_name");
        }
        return "Success: LoRA adapter '" + name + "' added successfully.";
    }

    /** {@code POST /v1/unload_lora_adapter}: nothing to free; the served version stays. */
    String unloadAdapter(final LoraAdapterRequest request) {
        final String name = required(request.loraName(), "lora_name");
        versionOf(name);
        return "Success: LoRA adapter '" + name + "' removed successfully.";
    }

    private long versionOf(final String name) {
        if (name.equals(run)) {
            return 0;
        }
        final Matcher m = versionName.matcher(name);
        if (!m.matches()) {
            throw notFound(name);
        }
        return Long.parseLong(m.group(1));
    }

    private void checkModel(final String model) {
        if (model != null && !model.equals(run) && !versionName.matcher(model).matches()) {
            throw notFound(model);
        }
    }

    private ApiException notFound(final String model) {
        return new ApiException(
                404,
                "NotFoundError",
                "the model `"
                        + model
                        + "` does not exist; this server serves run "
                        + run
                        + " as `"
                        + run
                        + "` or `"
                        + run
                        + "-v<version>` (GET /v1/models)",
                "model");
    }

    private static void refuseStreaming(final Boolean stream) {
        if (Boolean.TRUE.equals(stream)) {
            throw ApiException.badRequest(
                    "streaming is not supported; send \"stream\": false", "stream");
        }
    }

    private SamplingSettings settings(
            final Integer n, final Integer maxTokens, final Double temperature, final Double topP) {
        final int count = n == null ? 1 : n;
        if (count < 1 || count > limits.maxN()) {
            throw ApiException.badRequest(
                    "n must be between 1 and " + limits.maxN() + ", got " + count, "n");
        }
        final int tokens = maxTokens == null ? DEFAULT_MAX_TOKENS : maxTokens;
        if (tokens < 1 || tokens > limits.maxTokens()) {
            throw ApiException.badRequest(
                    "max_tokens must be between 1 and " + limits.maxTokens() + ", got " + tokens,
                    "max_tokens");
        }
        final double t = temperature == null ? 1.0 : temperature;
        if (!(t >= 0 && t <= 100)) {
            throw ApiException.badRequest(
                    "temperature must be between 0 and 100, got " + t, "temperature");
        }
        final double p = topP == null ? 1.0 : topP;
        if (!(p > 0 && p <= 1)) {
            throw ApiException.badRequest("top_p must be in (0, 1], got " + p, "top_p");
        }
        return new SamplingSettings(count, (float) t, (float) p, tokens);
    }

    private static OptionalLong seed(final Long seed) {
        return seed == null ? OptionalLong.empty() : OptionalLong.of(seed);
    }

    private static List<int[]> promptIds(
            final CompletionPrompt prompt, final PredictionModel model) {
        if (!prompt.isText()) {
            final List<int[]> arrays = prompt.tokenArrays();
            final OptionalInt vocab = model.vocabSize();
            for (int p = 0; p < arrays.size(); p++) {
                for (final int id : arrays.get(p)) {
                    if (vocab.isPresent() && id >= vocab.getAsInt()) {
                        throw ApiException.badRequest(
                                "token id "
                                        + id
                                        + " of prompt "
                                        + p
                                        + " is outside the model's vocabulary"
                                        + (vocab.isPresent()
                                                ? " of " + vocab.getAsInt() + " ids"
                                                : ""),
                                "prompt");
                    }
                }
            }
            return arrays;
        }
        final List<int[]> ids = new ArrayList<>();
        for (final String text : prompt.texts()) {
            ids.add(model.encode(text));
        }
        return ids;
    }

    private static String render(
            final List<ChatCompletionRequest.Message> messages, final PredictionModel model) {
        final ChatTemplate template =
                model.chatTemplate()
                        .orElseThrow(
                                () ->
                                        ApiException.badRequest(
                                                "this model has no chat template (a small model or"
                                                        + " a base checkpoint); send the prompt"
                                                        + " to /v1/completions instead",
                                                "messages"));
        final List<ChatTemplate.Message> turns = new ArrayList<>();
        for (final ChatCompletionRequest.Message m : messages) {
            if (m.role() == null || m.content() == null) {
                throw ApiException.badRequest(
                        "every message needs a role and a content", "messages");
            }
            turns.add(new ChatTemplate.Message(m.role(), m.content()));
        }
        try {
            return template.render(turns, true);
        } catch (final IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage(), "messages");
        }
    }

    private static int budget(final SamplingSettings settings, final PredictionModel model) {
        try {
            return settings.promptBudget(model.maxContext(), model.maxContext());
        } catch (final ConfigException e) {
            throw ApiException.badRequest(
                    "max_tokens "
                            + settings.maxNewTokens()
                            + " leaves too little of the model's "
                            + model.maxContext()
                            + " context tokens for the prompt; lower max_tokens",
                    "max_tokens");
        }
    }

    /** The prompt the prediction stage would build for this transition. */
    private static Prompt prompt(
            final WorldModelRequest request,
            final String observation,
            final String action,
            final PredictionModel model,
            final int budget) {
        final String env = request.env() == null ? "alfworld" : request.env();
        final List<Turn> history = new ArrayList<>();
        if (request.history() != null) {
            for (final WorldModelRequest.Turn t : request.history()) {
                history.add(new Turn(orEmpty(t.action()), orEmpty(t.observation())));
            }
        }
        final Transition transition =
                Transition.newBuilder()
                        .setTransitionId(env + "/serve/0")
                        .setEnv(new EnvRef(env, "1", "serve"))
                        .setEpisodeId("serve")
                        .setStep(history.size())
                        .setAgentId("rwml-serve")
                        .setPolicy(new PolicyRef("rwml-serve", null))
                        .setTask(orEmpty(request.task()))
                        .setHistory(history)
                        .setObservation(observation)
                        .setAction(action)
                        .setNextObservation("")
                        .setNextKind(kind(env, action))
                        .setEventTime(Instant.EPOCH)
                        .build();
        final Prompt prompt = model.prompt(transition, budget);
        if (!prompt.fits()) {
            throw ApiException.badRequest(
                    "the task, observation and action take more than the "
                            + budget
                            + " prompt tokens the model leaves beside max_tokens, even without"
                            + " history; shorten them or lower max_tokens",
                    "observation");
        }
        return prompt;
    }

    /** As the agents label transitions: ALFWorld observations, else a tool call or a user turn. */
    private static NextStateKind kind(final String env, final String action) {
        if (env.equals("alfworld")) {
            return NextStateKind.TEXT;
        }
        return action.strip().startsWith("{")
                ? NextStateKind.TOOL_RESULT
                : NextStateKind.USER_MESSAGE;
    }

    private static String orEmpty(final String s) {
        return s == null ? "" : s;
    }

    private static <T> T required(final T value, final String param) {
        if (value == null) {
            throw ApiException.badRequest("the request needs \"" + param + "\"", param);
        }
        return value;
    }

    /** The answer of the model thread, its failure rethrown as it was. */
    private static <T> T await(final CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (final CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    static List<Integer> boxed(final int[] ids) {
        final List<Integer> list = new ArrayList<>(ids.length);
        for (final int id : ids) {
            list.add(id);
        }
        return list;
    }
}
