package dev.rwml.serving;

import dev.rwml.worldmodel.WorldModel;
import dev.rwml.worldmodel.model.ModelConfig;
import dev.rwml.worldmodel.prompt.PromptFormat;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import dev.rwml.worldmodel.serve.WorldModelPredictor;
import dev.rwml.worldmodel.tokenizer.BpeTrainer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code rwml serve}'s HTTP path (in-process server, loopback) against the generator alone with the
 * tiny model: prompts per second at 1, 4 and 16 concurrent clients (one unseeded prompt each, so
 * the server batches them) beside {@link PredictionModel#sample} on batches of the same sizes,
 * latency p50/p99, and what 2x the queue in clients gets (200s, 503s, other errors). Prints;
 * asserts nothing.
 */
class ServeBenchmark {

    private static final int VOCAB = 1024;
    private static final int PROMPT = 32;
    private static final int N = 4;
    private static final int NEW = 16;
    private static final int REQUESTS_PER_CLIENT = 12;

    @Test
    void benchmarkServing() throws Exception {
        final List<String> lines = new ArrayList<>();
        final Random random = new Random(5);
        try (WorldModel model = WorldModel.create(ModelConfig.tiny(VOCAB), tokenizer(), 1)) {
            final PredictionModel predictor =
                    new WorldModelPredictor(
                            0, model.model(), model.tokenizer(), PromptFormat.standard());
            final SamplingSettings settings = new SamplingSettings(N, 1f, 1f, NEW);
            for (final int clients : new int[] {1, 4, 16}) {
                final double alone =
                        generatorPromptsPerSecond(predictor, settings, clients, random);
                final Result served = serve(predictor, clients, 64, random);
                lines.add(
                        String.format(
                                "%2d clients: serve %.1f prompts/s, generator alone (batch %d)"
                                        + " %.1f prompts/s, serve/generator %.2f; latency p50 %d"
                                        + " ms, p99 %d ms; %s; mean batch %.1f rows (%d per"
                                        + " prompt)",
                                clients,
                                served.promptsPerSecond(),
                                clients,
                                alone,
                                served.promptsPerSecond() / alone,
                                served.p50(),
                                served.p99(),
                                served.statuses(),
                                served.meanBatchRows(),
                                N));
            }
            final int queue = 8;
            final Result overload = serve(predictor, 2 * queue, queue, random);
            lines.add(
                    String.format(
                            "2x overload (%d clients, queue %d): %s, %.1f prompts/s answered,"
                                    + " latency p50 %d ms, p99 %d ms",
                            2 * queue,
                            queue,
                            overload.statuses(),
                            overload.promptsPerSecond(),
                            overload.p50(),
                            overload.p99()));
        }
        // benchmark output is the point of this class
        lines.forEach(System.out::println);
    }

    /** What the clients of one run saw. */
    private record Result(
            double promptsPerSecond,
            long p50,
            long p99,
            ConcurrentHashMap<Integer, Integer> statuses,
            double meanBatchRows) {}

    private static double generatorPromptsPerSecond(
            final PredictionModel model,
            final SamplingSettings settings,
            final int batch,
            final Random random) {
        model.sample(prompts(batch, random), settings, 1);
        final int reps = REQUESTS_PER_CLIENT;
        final long t0 = System.nanoTime();
        for (int i = 0; i < reps; i++) {
            model.sample(prompts(batch, random), settings, i);
        }
        return (double) reps * batch / ((System.nanoTime() - t0) / 1e9);
    }

    private static Result serve(
            final PredictionModel model, final int clients, final int queue, final Random random)
            throws Exception {
        final ServedModel served = new ServedModel();
        final KeepOpen open = new KeepOpen(model);
        served.offer(open);
        final SimpleMeterRegistry meters = new SimpleMeterRegistry();
        final ServeServer server =
                ServeServer.start(
                        "bench",
                        "127.0.0.1",
                        0,
                        served,
                        ServeLimits.defaults().withQueueCapacity(queue),
                        Optional.empty(),
                        meters,
                        () -> "");
        final HttpClient http = HttpClient.newHttpClient();
        final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
        final ConcurrentHashMap<Integer, Integer> statuses = new ConcurrentHashMap<>();
        final AtomicInteger answered = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            final List<String> bodies = new ArrayList<>();
            for (int i = 0; i < clients * REQUESTS_PER_CLIENT; i++) {
                bodies.add(body(prompts(1, random).get(0)));
            }
            post(http, server, bodies.get(0));
            final long t0 = System.nanoTime();
            final List<Future<?>> running = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                final int client = c;
                running.add(
                        pool.submit(
                                () -> {
                                    for (int r = 0; r < REQUESTS_PER_CLIENT; r++) {
                                        final long s = System.nanoTime();
                                        final int status =
                                                post(
                                                        http,
                                                        server,
                                                        bodies.get(
                                                                client * REQUESTS_PER_CLIENT + r));
                                        latencies.add((System.nanoTime() - s) / 1_000_000);
                                        statuses.merge(status, 1, Integer::sum);
                                        if (status == 200) {
                                            answered.incrementAndGet();
                                        }
                                    }
                                    return null;
                                }));
            }
            for (final Future<?> f : running) {
                f.get();
            }
            final double seconds = (System.nanoTime() - t0) / 1e9;
            final long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
            return new Result(
                    answered.get() / seconds,
                    sorted[(int) (0.5 * (sorted.length - 1))],
                    sorted[(int) Math.ceil(0.99 * (sorted.length - 1))],
                    statuses,
                    meters.get("rwml.serve.batch.rows").summary().mean());
        } finally {
            pool.shutdownNow();
            server.close();
            served.close();
        }
    }

    private static int post(final HttpClient http, final ServeServer server, final String body) {
        try {
            return http.send(
                            HttpRequest.newBuilder(server.uri("/v1/completions"))
                                    .timeout(Duration.ofMinutes(2))
                                    .POST(HttpRequest.BodyPublishers.ofString(body))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (final Exception e) {
            return -1;
        }
    }

    private static String body(final int[] prompt) {
        return "{\"prompt\":"
                + Arrays.stream(prompt)
                        .mapToObj(Integer::toString)
                        .collect(Collectors.joining(",", "[", "]"))
                + ",\"n\":"
                + N
                + ",\"max_tokens\":"
                + NEW
                + ",\"logprobs\":0,\"return_token_ids\":true}";
    }

    private static List<int[]> prompts(final int count, final Random random) {
        final List<int[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(random.ints(PROMPT, 10, VOCAB - 1).toArray());
        }
        return out;
    }

    private static String tokenizer() {
        final Random random = new Random(2);
        final List<String> corpus = new ArrayList<>();
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            text.setLength(0);
            for (int w = 0; w < 12; w++) {
                text.append(' ').append(Integer.toString(random.nextInt(5000), 36));
            }
            corpus.add(text.toString());
        }
        return BpeTrainer.withDefaultSpecials(VOCAB).train(corpus);
    }

    /** The benchmark's model, left open when a server closes it: the next server serves it too. */
    private record KeepOpen(PredictionModel model) implements PredictionModel {
        @Override
        public long version() {
            return model.version();
        }

        @Override
        public int maxContext() {
            return model.maxContext();
        }

        @Override
        public dev.rwml.worldmodel.prompt.Prompt prompt(
                final dev.rwml.events.Transition transition, final int maxTokens) {
            return model.prompt(transition, maxTokens);
        }

        @Override
        public String decode(final int[] tokenIds) {
            return model.decode(tokenIds);
        }

        @Override
        public List<List<dev.rwml.worldmodel.generate.Sample>> sample(
                final List<int[]> prompts, final SamplingSettings sampling, final long seed) {
            return model.sample(prompts, sampling, seed);
        }

        @Override
        public void close() {}
    }
}
