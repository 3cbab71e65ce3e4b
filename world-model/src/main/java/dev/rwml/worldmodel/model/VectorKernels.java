package dev.rwml.worldmodel.model;

/**
 * Whether a Hugging Face decoder computes its decode steps on the CPU in Java with {@link
 * PackedLinear} instead of in the engine: when the JVM was started with {@code --add-modules
 * jdk.incubator.vector} (Java 17's Vector API is an incubator module, and the JVM prints one
 * warning line when it is added) and {@value #SETTING} is not {@code engine}. Without the module
 * nothing here loads it.
 */
public final class VectorKernels {

    /** System property: {@code engine} keeps every matmul in the engine. */
    public static final String SETTING = "rwml.decode.kernel";

    private static final String MODULE = "jdk.incubator.vector";

    private VectorKernels() {}

    /** Whether the module is there and the kernel is not switched off; read at each call. */
    public static boolean enabled() {
        return !"engine".equals(System.getProperty(SETTING))
                && ModuleLayer.boot().findModule(MODULE).isPresent();
    }
}
