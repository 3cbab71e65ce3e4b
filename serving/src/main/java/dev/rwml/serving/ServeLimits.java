package dev.rwml.serving;

import java.time.Duration;

/**
 * What one server accepts and how it batches.
 *
 * @param maxBodyBytes the largest request body; a larger one is answered 413
 * @param maxN the most completions per prompt ({@code n})
 * @param maxTokens the longest completion a request may ask for ({@code max_tokens})
 * @param maxPrompts the most prompts in one request
 * @param queueCapacity requests waiting for the model at most; one more is answered 503
 * @param batchWindow how long the model thread waits for more requests to sample with the first
 * @param maxBatchRows the most rows (prompts times n) sampled together
 * @param retryAfter what a 503's {@code Retry-After} header asks a client to wait
 */
public record ServeLimits(
        int maxBodyBytes,
        int maxN,
        int maxTokens,
        int maxPrompts,
        int queueCapacity,
        Duration batchWindow,
        int maxBatchRows,
        Duration retryAfter) {

    public ServeLimits {
        positive("maxBodyBytes", maxBodyBytes);
        positive("maxN", maxN);
        positive("maxTokens", maxTokens);
        positive("maxPrompts", maxPrompts);
        positive("queueCapacity", queueCapacity);
        positive("maxBatchRows", maxBatchRows);
        if (batchWindow.isNegative() || retryAfter.isNegative()) {
            throw new IllegalArgumentException("batch window and Retry-After cannot be negative");
        }
    }

    /** 1 MiB bodies, n up to 64, 2048 tokens, 256 prompts, 64 queued, a 5 ms window, 512 rows. */
    public static ServeLimits defaults() {
        return new ServeLimits(
                1 << 20, 64, 2048, 256, 64, Duration.ofMillis(5), 512, Duration.ofSeconds(1));
    }

    /** These limits with another queue capacity. */
    public ServeLimits withQueueCapacity(final int capacity) {
        return new ServeLimits(
                maxBodyBytes,
                maxN,
                maxTokens,
                maxPrompts,
                capacity,
                batchWindow,
                maxBatchRows,
                retryAfter);
    }

    private static void positive(final String name, final int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, got " + value);
        }
    }
}
