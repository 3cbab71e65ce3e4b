package dev.rwml.worldmodel;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.pytorch.jni.JniUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DJL PyTorch engine as this module uses it: thread counts per stage, the device (a GPU when
 * the engine sees one, else the CPU) and base managers on it.
 */
public final class DjlRuntime {

    /** The engine every world model runs on. */
    public static final String ENGINE = "PyTorch";

    private static final Logger LOG = LoggerFactory.getLogger(DjlRuntime.class);
    private static final String THREADS = "ai.djl.pytorch.num_threads";
    private static final String INTEROP = "ai.djl.pytorch.num_interop_threads";
    private static volatile boolean engineStarted;
    private static volatile Device chosen;

    private DjlRuntime() {}

    /**
     * Sets PyTorch's intra-op and inter-op thread counts. Call it before the first use of the
     * engine: PyTorch reads the inter-op count once; the intra-op count is also applied later.
     */
    public static void configureThreads(final int intraOp, final int interOp) {
        if (intraOp <= 0 || interOp <= 0) {
            throw new IllegalArgumentException(
                    "thread counts must be positive, got " + intraOp + "/" + interOp);
        }
        System.setProperty(THREADS, Integer.toString(intraOp));
        System.setProperty(INTEROP, Integer.toString(interOp));
        if (Engine.hasEngine(ENGINE) && engineStarted) {
            JniUtils.setNumThreads(intraOp);
            LOG.info(
                    "PyTorch already started: intra-op threads now {}, inter-op threads unchanged",
                    intraOp);
        }
    }

    /** The started engine. */
    public static Engine engine() {
        final Engine engine = Engine.getEngine(ENGINE);
        engineStarted = true;
        return engine;
    }

    /**
     * The device models run on: the one {@link #useDevice} chose, else the engine's default (GPU 0
     * when present, else the CPU).
     */
    public static Device device() {
        final Device d = chosen;
        return d != null ? d : engine().defaultDevice();
    }

    /**
     * Chooses the device of every manager created from now on ({@code cpu}, {@code gpu} or {@code
     * auto}) and describes the choice: engine version, device, threads.
     *
     * @throws IllegalStateException when {@code gpu} is asked for and PyTorch sees no GPU
     */
    static String useDevice(final String choice) {
        final Engine engine = engine();
        final int gpus = engine.getGpuCount();
        final Device device;
        switch (choice) {
            case "cpu" -> device = Device.cpu();
            case "gpu" -> {
                if (gpus == 0) {
                    throw new IllegalStateException(
                            "model.device=gpu, but PyTorch "
                                    + engine.getVersion()
                                    + " sees no GPU: the CPU build of libtorch is loaded. Point"
                                    + " PYTORCH_LIBRARY_PATH at a CUDA build and set"
                                    + " PYTORCH_FLAVOR and PYTORCH_VERSION (docs/models-and-gpus.md, 'On a GPU'),"
                                    + " or run with --device cpu");
                }
                device = Device.gpu();
            }
            default -> device = gpus > 0 ? Device.gpu() : Device.cpu();
        }
        chosen = device;
        final String line =
                String.format(
                        java.util.Locale.ROOT,
                        "PyTorch %s on %s (model.device=%s, %d GPU(s) visible): %s intra-op"
                                + " thread(s), %s inter-op, %d cores",
                        engine.getVersion(),
                        device,
                        choice,
                        gpus,
                        System.getProperty(THREADS),
                        System.getProperty(INTEROP),
                        Runtime.getRuntime().availableProcessors());
        return line;
    }

    /** A new base manager on {@link #device()}; close it to free what it holds. */
    public static NDManager newManager() {
        return NDManager.newBaseManager(device(), ENGINE);
    }

    /**
     * Turns PyTorch's autograd recording on or off for the calling thread (it is thread-local);
     * inference and optimizer updates run with it off.
     */
    public static boolean setGradMode(final boolean enabled) {
        engine();
        final boolean previous = JniUtils.isGradMode();
        JniUtils.setGradMode(enabled);
        return previous;
    }
}
