package dev.rwml.worldmodel.hf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's resident memory (heap and native: PyTorch's tensors) from {@code
 * /proc/self/status}: now ({@code VmRSS}) and its high-water mark ({@code VmHWM}); 0 where that
 * file does not exist.
 */
final class PeakResidentMemory {

    private static final Path STATUS = Path.of("/proc/self/status");

    private PeakResidentMemory() {}

    /**
     * Sets the high-water mark to the resident bytes now (Linux 4.0 and later: {@code 5} to {@code
     * /proc/self/clear_refs}); false where the kernel does not allow it.
     */
    static boolean resetHighWaterMark() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            return true;
        } catch (final IOException e) {
            return false;
        }
    }

    /** Resident bytes now. */
    static long resident() {
        return field("VmRSS:");
    }

    /** The most bytes this process has had resident. */
    static long highWaterMark() {
        return field("VmHWM:");
    }

    private static long field(final String name) {
        try {
            for (final String line : Files.readAllLines(STATUS)) {
                if (line.startsWith(name)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (final IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }
}
