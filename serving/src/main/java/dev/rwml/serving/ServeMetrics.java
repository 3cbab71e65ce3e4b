package dev.rwml.serving;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The server's Micrometer meters, tagged with the run: requests by endpoint and status, requests
 * shed by a full queue, latency by endpoint, rows per sampled batch, generated tokens, the queue
 * depth and the version answering.
 */
final class ServeMetrics {

    /** Requests answered, tagged by endpoint and HTTP status. */
    static final String REQUESTS = "rwml.serve.requests";

    /** Requests answered 503 because the queue was full. */
    static final String SHED = "rwml.serve.shed";

    private final MeterRegistry registry;
    private final String run;
    private final Counter shed;
    private final Counter tokens;
    private final DistributionSummary batchRows;
    private final Timer generation;

    ServeMetrics(final MeterRegistry registry, final String run, final Supplier<Number> version) {
        this.registry = registry;
        this.run = run;
        this.shed =
                Counter.builder(SHED)
                        .description("requests answered 503 because the queue was full")
                        .tag("run", run)
                        .register(registry);
        this.tokens =
                Counter.builder("rwml.serve.tokens")
                        .description("completion tokens generated")
                        .tag("run", run)
                        .register(registry);
        this.batchRows =
                DistributionSummary.builder("rwml.serve.batch.rows")
                        .description("rows (prompts times n) sampled together")
                        .tag("run", run)
                        .register(registry);
        this.generation =
                Timer.builder("rwml.serve.generation")
                        .description("wall time of one batch's sampling")
                        .tag("run", run)
                        .register(registry);
        Gauge.builder("rwml.serve.model.version", version)
                .description("the model version answering (-1 before version 0)")
                .tag("run", run)
                .register(registry);
    }

    /** Adds the gauge of the requests waiting for the model. */
    void watchQueue(final Supplier<Number> queued) {
        Gauge.builder("rwml.serve.queue", queued)
                .description("requests waiting for the model")
                .tag("run", run)
                .register(registry);
    }

    void answered(final String endpoint, final int status, final Duration took) {
        Counter.builder(REQUESTS)
                .description("requests answered, by endpoint and HTTP status")
                .tags("run", run, "endpoint", endpoint, "status", Integer.toString(status))
                .register(registry)
                .increment();
        Timer.builder("rwml.serve.latency")
                .description("time from a request's arrival to its answer")
                .tags("run", run, "endpoint", endpoint)
                .publishPercentiles(0.5, 0.99)
                .register(registry)
                .record(took);
    }

    void shed() {
        shed.increment();
    }

    void sampled(final int rows, final int completionTokens, final Duration took) {
        batchRows.record(rows);
        tokens.increment(completionTokens);
        generation.record(took);
    }
}
