package dev.rwml.pipeline.deadletters;

import dev.rwml.events.DeadLetter;
import dev.rwml.schemas.deadletter.DeadLetters;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * One record of a dead-letter topic: where it sits, and the decoded {@link DeadLetter} (null when
 * the record itself cannot be decoded, with {@code problem} saying why).
 *
 * @param topic the dead-letter topic
 * @param partition its partition
 * @param offset its offset there
 * @param timestamp the record's timestamp
 * @param reason the reason header ({@link DeadLetters#REASON_HEADER}), or "-" when absent
 * @param letter the decoded letter, or null
 * @param problem why the letter could not be decoded, or null
 */
public record DeadLetterEntry(
        String topic,
        int partition,
        long offset,
        Instant timestamp,
        String reason,
        DeadLetter letter,
        String problem) {

    /** Whether the letter was decoded (only decoded letters can be sent back). */
    public boolean decoded() {
        return letter != null;
    }

    /** The stage that gave up, or "-" for an undecodable record. */
    public String stage() {
        return letter == null ? "-" : letter.getStage();
    }

    /** {@code topic/partition/offset} of the original record, or "-". */
    public String source() {
        return letter == null
                ? "-"
                : letter.getSourceTopic()
                        + "/"
                        + letter.getSourcePartition()
                        + "/"
                        + letter.getSourceOffset();
    }

    /** When the stage gave up (the record timestamp for an undecodable record). */
    public Instant failedAt() {
        return letter == null ? timestamp : letter.getFailedAt();
    }

    /** The error message, or the decoding problem of an undecodable record. */
    public String message() {
        return letter == null ? problem : letter.getErrorMessage();
    }

    /** The original value bytes, empty when there were none or the letter is undecodable. */
    public byte[] originalValue() {
        return letter == null ? new byte[0] : bytes(letter.getOriginalValue());
    }

    /** The original key bytes, empty when there were none or the letter is undecodable. */
    public byte[] originalKey() {
        return letter == null ? new byte[0] : bytes(letter.getOriginalKey());
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        if (buffer == null) {
            return new byte[0];
        }
        final ByteBuffer view = buffer.duplicate();
        final byte[] out = new byte[view.remaining()];
        view.get(out);
        return out;
    }
}
