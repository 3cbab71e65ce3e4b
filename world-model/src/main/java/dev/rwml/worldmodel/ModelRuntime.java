package dev.rwml.worldmodel;

import java.util.List;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Where and how a stage that holds a world model runs it: the device ({@code cpu}, {@code gpu} or
 * {@code auto}) and PyTorch's intra-op threads. The prediction, filter and training stages declare
 * these settings through {@link #define} and apply them with {@link #apply} before loading a model.
 *
 * @param threads PyTorch intra-op threads
 * @param device {@code cpu}, {@code gpu} (the first GPU; refused when PyTorch sees none) or {@code
 *     auto} (the first GPU when PyTorch sees one, else the CPU)
 */
public record ModelRuntime(int threads, String device) {

    /** The setting of the thread count. */
    public static final String THREADS = "model.threads";

    /** The setting of the device. */
    public static final String DEVICE = "model.device";

    /** The device choices. */
    public static final List<String> DEVICES = List.of("cpu", "gpu", "auto");

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

    /** Declares {@link #THREADS} and {@link #DEVICE}. */
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
                                + " flag --device sets it.");
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
