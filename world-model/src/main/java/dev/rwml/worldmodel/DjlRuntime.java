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

    /** The device models run on: the engine's default (GPU 0 when present, else the CPU). */
    public static Device device() {
        return engine().defaultDevice();
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
