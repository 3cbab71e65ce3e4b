package dev.rwml.runtime.lifecycle;

import java.util.concurrent.CompletableFuture;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into a requested stop instead of an abrupt JVM exit: the first signal
 * completes the future (the main thread then closes what it started, in reverse order, and exits
 * 0); a second one halts at once, for an operator who does not want to wait.
 */
public final class StopSignals {

    private static final CompletableFuture<String> REQUESTED = new CompletableFuture<>();
    private static boolean installed;

    private StopSignals() {}

    /** Installs the handlers once per JVM; returns the future the first signal completes. */
    public static synchronized CompletableFuture<String> install() {
        if (!installed) {
            for (final String name : new String[] {"TERM", "INT"}) {
                Signal.handle(
                        new Signal(name),
                        signal -> {
                            if (!REQUESTED.complete("SIG" + signal.getName())) {
                                Runtime.getRuntime().halt(128 + signal.getNumber());
                            }
                        });
            }
            installed = true;
        }
        return REQUESTED;
    }
}
