package dev.rwml.worldmodel;

import dev.rwml.worldmodel.model.MemoryEstimate;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where and how a stage that holds a world model runs it: the device ({@code cpu}, {@code gpu} or
 * {@code auto}) and PyTorch's intra-op threads. The prediction, filter and training stages declare
 * these settings through {@link #define} and apply them with {@link #apply} before loading a model.
 *
 * @param threads PyTorch intra-op threads
 * @param device {@code cpu}, {@code gpu} (the first GPU; refused when PyTorch sees none) or {@code
 *     auto} (the first GPU when PyTorch sees one, else the CPU)
 * @param memoryLimit bytes a batch may use beside the loaded model; empty: what the device has free
 */
public record ModelRuntime(int threads, String device, OptionalLong memoryLimit) {

    /** The setting of the thread count. */
    public static final String THREADS = "model.threads";

    /** The setting of the device. */
    public static final String DEVICE = "model.device";

    /** The setting of the memory a batch may use beside the loaded model. */
    public static final String MEMORY_LIMIT = "model.memory.limit";

    /** The device choices. */
    public static final List<String> DEVICES = List.of("cpu", "gpu", "auto");

    /** On {@code device} with {@code threads}, limited by what the device has free. */
    public ModelRuntime(final int threads, final String device) {
        this(threads, device, OptionalLong.empty());
    }

    public ModelRuntime {
        if (threads < 1) {
            throw new IllegalArgumentException("model.threads must be at least 1, got " + threads);
        }
        device = device.toLowerCase(Locale.ROOT);
        if (!DEVICES.contains(device)) {
            throw new IllegalArgumentException(
                    "model.device must be one of " + DEVICES + ", got '" + device + "'");
        }
    }

    /** The three settings as {@link #define} declared them. */
    public static ModelRuntime from(final AbstractConfig settings) {
        final String limit = settings.getString(MEMORY_LIMIT).trim();
        return new ModelRuntime(
                settings.getInt(THREADS),
                settings.getString(DEVICE),
                limit.isEmpty() ? OptionalLong.empty() : OptionalLong.of(bytes(limit)));
    }

    /** {@code 512m}, {@code 8g}, {@code 1.5g} or a byte count, as a number of bytes. */
    static long bytes(final String size) {
        final String s = size.trim().toLowerCase(Locale.ROOT);
        final int unit = "kmgt".indexOf(s.isEmpty() ? ' ' : s.charAt(s.length() - 1));
        try {
            final double value =
                    Double.parseDouble(unit < 0 ? s : s.substring(0, s.length() - 1).trim());
            if (value <= 0) {
                throw new NumberFormatException();
            }
            return (long) (value * Math.pow(1024, unit + 1));
        } catch (final NumberFormatException e) {
            throw new ConfigException(
                    MEMORY_LIMIT, size, "give a positive size such as 512m, 8g or a byte count");
        }
    }

    /** Bytes a batch may use beside the loaded model: the limit, else what the device has free. */
    public OptionalLong batchMemory() {
        return memoryLimit.isPresent()
                ? memoryLimit
                : MemoryEstimate.available(DjlRuntime.device());
    }

    /**
     * Why {@code need} cannot run beside the loaded model, e.g. {@code needs about 98 MiB (KV cache
     * 36 MiB, ...) beyond the loaded model, but 1 MiB is allowed (model.memory.limit)}; empty when
     * it fits or the free memory is unknown.
     */
    public Optional<String> shortfall(final MemoryEstimate need) {
        final OptionalLong free = batchMemory();
        if (free.isEmpty() || need.total() <= free.getAsLong()) {
            return Optional.empty();
        }
        return Optional.of(
                "needs about "
                        + need.describe()
                        + " beyond the loaded model, but "
                        + MemoryEstimate.size(free.getAsLong())
                        + (memoryLimit.isPresent()
                                ? " is allowed (" + MEMORY_LIMIT + ")"
                                : " is free on " + DjlRuntime.device()));
    }

    /** What a stage logs of a {@code need} that fits: the estimate beside what is available. */
    public String headroom(final MemoryEstimate need) {
        final OptionalLong free = batchMemory();
        return "needs about "
                + need.describe()
                + " beyond the loaded model; "
                + (free.isPresent() ? MemoryEstimate.size(free.getAsLong()) : "unknown")
                + " available on "
                + DjlRuntime.device();
    }

    /** Declares {@link #THREADS}, {@link #DEVICE} and {@link #MEMORY_LIMIT}. */
    public static ConfigDef define(final ConfigDef def) {
        return def.define(
                        THREADS,
                        ConfigDef.Type.INT,
                        1,
                        ConfigDef.Range.between(1, 256),
                        ConfigDef.Importance.MEDIUM,
                        "PyTorch intra-op threads.")
                .define(
                        DEVICE,
                        ConfigDef.Type.STRING,
                        "auto",
                        ConfigDef.ValidString.in(DEVICES.toArray(new String[0])),
                        ConfigDef.Importance.MEDIUM,
                        "Where the world model runs: cpu, gpu (refused when PyTorch sees none) or"
                                + " auto (a GPU when PyTorch sees one, else the CPU). The command"
                                + " flag --device sets it.")
                .define(
                        MEMORY_LIMIT,
                        ConfigDef.Type.STRING,
                        "",
                        ConfigDef.Importance.LOW,
                        "Memory a batch may use beside the loaded model (e.g. 6g, as a container's"
                                + " limit allows); empty: what the device has free (the host's"
                                + " MemAvailable, a GPU's free memory). A prediction batch or the"
                                + " trainer's first step estimated above it is refused at start.");
    }

    /**
     * Sets the threads and the device for every model this process loads from now on, and returns
     * the line the stage logs: engine version, device and threads.
     *
     * @throws IllegalStateException when {@code gpu} is asked for and PyTorch sees no GPU
     */
    public String apply() {
        DjlRuntime.configureThreads(threads, 1);
        return DjlRuntime.useDevice(device);
    }
}
