package dev.rwml.serving;

import dev.rwml.worldmodel.generate.Sample;
import dev.rwml.worldmodel.serve.PredictionModel;
import dev.rwml.worldmodel.serve.SamplingSettings;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that uses the model, fed by a bounded queue. Requests that sample with the same
 * settings and no seed of their own are sampled together: the thread waits up to the batch window
 * after the first for more, up to the row limit. A request with a seed is sampled alone, so it gets
 * exactly what {@link PredictionModel#sample} gives for its prompts and seed (the prediction
 * stage's samples of the same batch). A full queue refuses at once (503).
 */
final class ModelWorker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ModelWorker.class);

    /** Work for the model thread. */
    private sealed interface Task permits Call, Draw {
        void fail(RuntimeException e);
    }

    /** Work on the model that is not sampling (tokenizing). */
    private record Call<T>(Function<PredictionModel, T> work, CompletableFuture<Answered<T>> done)
            implements Task {
        @Override
        public void fail(final RuntimeException e) {
            done.completeExceptionally(e);
        }
    }

    /**
     * Sampling: the request's prompts and the answer made of its samples, both built on the model
     * thread, and its settings.
     */
    private record Draw<T>(
            Function<PredictionModel, List<int[]>> prompts,
            SamplingSettings settings,
            OptionalLong seed,
            BiFunction<PredictionModel, Draws, T> answer,
            CompletableFuture<Answered<T>> done)
            implements Task {
        @Override
        public void fail(final RuntimeException e) {
            done.completeExceptionally(e);
        }

        boolean joins(final Draw<?> other) {
            return seed.isEmpty() && other.seed.isEmpty() && settings.equals(other.settings);
        }

        void complete(final PredictionModel model, final Draws draws) {
            try {
                done.complete(new Answered<>(model.version(), answer.apply(model, draws)));
            } catch (final RuntimeException e) {
                fail(e);
            }
        }
    }

    /** A draw whose prompts are built. */
    private record Ready(Draw<?> draw, List<int[]> prompts) {}

    private final ServedModel models;
    private final ServeLimits limits;
    private final ServeMetrics metrics;
    private final String run;
    private final BlockingQueue<Task> queue;
    private final Deque<Task> backlog = new ArrayDeque<>();
    private final SplittableRandom seeds = new SplittableRandom();
    private final Thread thread;
    private volatile boolean running = true;

    ModelWorker(
            final String run,
            final ServedModel models,
            final ServeLimits limits,
            final ServeMetrics metrics) {
        this.run = run;
        this.models = models;
        this.limits = limits;
        this.metrics = metrics;
        this.queue = new ArrayBlockingQueue<>(limits.queueCapacity());
        this.thread = new Thread(this::loop, "rwml-serve-model");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Requests waiting for the model thread. */
    int queued() {
        return queue.size();
    }

    /** Runs {@code work} on the model thread. */
    <T> CompletableFuture<Answered<T>> call(final Function<PredictionModel, T> work) {
        final CompletableFuture<Answered<T>> done = new CompletableFuture<>();
        enqueue(new Call<>(work, done));
        return done;
    }

    /**
     * Samples {@code settings.groupSize()} completions for each prompt {@code prompts} builds on
     * the model thread (with a seed alone, without one possibly beside other requests), and makes
     * the answer of them there.
     */
    <T> CompletableFuture<Answered<T>> draw(
            final Function<PredictionModel, List<int[]>> prompts,
            final SamplingSettings settings,
            final OptionalLong seed,
            final BiFunction<PredictionModel, Draws, T> answer) {
        final CompletableFuture<Answered<T>> done = new CompletableFuture<>();
        enqueue(new Draw<>(prompts, settings, seed, answer, done));
        return done;
    }

    private void enqueue(final Task task) {
        if (models.version() < 0) {
            throw new ApiException(
                    503,
                    "model_not_ready",
                    "no model version loaded yet: waiting for version 0 of run " + run,
                    null);
        }
        if (!running) {
            throw new ApiException(503, "server_stopping", "the server is stopping", null);
        }
        if (!queue.offer(task)) {
            metrics.shed();
            throw new ApiException(
                    503,
                    "server_overloaded",
                    "the server's queue of "
                            + limits.queueCapacity()
                            + " requests is full; retry after the Retry-After seconds",
                    null);
        }
    }

    private void loop() {
        while (running) {
            final Task first;
            try {
                first = next(Duration.ofMillis(100));
            } catch (final InterruptedException e) {
                break;
            }
            if (first == null) {
                continue;
            }
            final Optional<PredictionModel> model = models.take();
            if (model.isEmpty()) {
                first.fail(new ApiException(503, "model_not_ready", "no model loaded", null));
                continue;
            }
            try {
                if (first instanceof Call<?> call) {
                    run(call, model.get());
                } else {
                    sample(gather((Draw<?>) first, model.get()), model.get());
                }
            } catch (final InterruptedException e) {
                break;
            }
        }
        drain(new ApiException(503, "server_stopping", "the server is stopping", null));
    }

    private Task next(final Duration wait) throws InterruptedException {
        final Task held = backlog.pollFirst();
        return held != null ? held : queue.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    }

    private static <T> void run(final Call<T> call, final PredictionModel model) {
        try {
            call.done().complete(new Answered<>(model.version(), call.work().apply(model)));
        } catch (final RuntimeException e) {
            call.fail(e);
        }
    }

    /**
     * The first draw and those that join it within the window and the row limit; others wait in the
     * backlog, in order, for the next batch.
     */
    private List<Ready> gather(final Draw<?> first, final PredictionModel model)
            throws InterruptedException {
        final List<Ready> batch = new ArrayList<>();
        int rows = add(batch, first, model);
        if (first.seed().isPresent()) {
            return batch;
        }
        final List<Task> skipped = new ArrayList<>();
        final long deadline = System.nanoTime() + limits.batchWindow().toNanos();
        while (rows < limits.maxBatchRows()) {
            final long left = deadline - System.nanoTime();
            final Task t = backlog.isEmpty() ? (left > 0 ? pollQueue(left) : null) : backlog.poll();
            if (t == null) {
                break;
            }
            if (t instanceof Draw<?> d && first.joins(d)) {
                rows += add(batch, d, model);
            } else {
                skipped.add(t);
            }
        }
        for (int i = skipped.size() - 1; i >= 0; i--) {
            backlog.addFirst(skipped.get(i));
        }
        return batch;
    }

    private Task pollQueue(final long nanos) throws InterruptedException {
        return queue.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Builds a draw's prompts and adds it to the batch; a draw that cannot be built fails alone.
     */
    private int add(final List<Ready> batch, final Draw<?> draw, final PredictionModel model) {
        final List<int[]> prompts;
        try {
            prompts = draw.prompts().apply(model);
            for (final int[] p : prompts) {
                fits(p, draw.settings(), model);
            }
        } catch (final RuntimeException e) {
            draw.fail(e);
            return 0;
        }
        batch.add(new Ready(draw, prompts));
        return prompts.size() * draw.settings().groupSize();
    }

    private static void fits(
            final int[] prompt, final SamplingSettings settings, final PredictionModel model) {
        if (prompt.length == 0) {
            throw ApiException.badRequest("a prompt needs at least one token", "prompt");
        }
        if (prompt.length + settings.maxNewTokens() > model.maxContext()) {
            throw ApiException.badRequest(
                    "this model's maximum context length is "
                            + model.maxContext()
                            + " tokens, but a prompt of "
                            + prompt.length
                            + " tokens and max_tokens "
                            + settings.maxNewTokens()
                            + " need "
                            + (prompt.length + settings.maxNewTokens())
                            + "; shorten the prompt or lower max_tokens",
                    "max_tokens");
        }
    }

    private void sample(final List<Ready> batch, final PredictionModel model) {
        if (batch.isEmpty()) {
            return;
        }
        final Draw<?> first = batch.get(0).draw();
        final List<int[]> all = new ArrayList<>();
        batch.forEach(r -> all.addAll(r.prompts()));
        final long seed = first.seed().orElseGet(seeds::nextLong);
        final long start = System.nanoTime();
        final List<List<Sample>> samples;
        try {
            samples = model.sample(all, first.settings(), seed);
        } catch (final RuntimeException e) {
            LOG.error("Sampling a batch of {} prompts failed", all.size(), e);
            final ApiException failure =
                    new ApiException(500, "server_error", "sampling failed: " + e, null);
            batch.forEach(r -> r.draw().fail(failure));
            return;
        }
        int tokens = 0;
        for (final List<Sample> group : samples) {
            for (final Sample s : group) {
                tokens += s.tokenIds().length;
            }
        }
        metrics.sampled(
                all.size() * first.settings().groupSize(),
                tokens,
                Duration.ofNanos(System.nanoTime() - start));
        int from = 0;
        for (final Ready r : batch) {
            final int to = from + r.prompts().size();
            r.draw().complete(model, new Draws(r.prompts(), samples.subList(from, to)));
            from = to;
        }
    }

    private void drain(final ApiException stopping) {
        Task t;
        while ((t = backlog.poll()) != null || (t = queue.poll()) != null) {
            t.fail(stopping);
        }
    }

    /** Stops taking work, lets the batch in progress finish and answers the queued ones 503. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(Duration.ofMinutes(1).toMillis());
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // The model thread drained its backlog; what arrived since waits in the queue.
        Task t;
        while ((t = queue.poll()) != null) {
            t.fail(new ApiException(503, "server_stopping", "the server is stopping", null));
        }
    }
}
