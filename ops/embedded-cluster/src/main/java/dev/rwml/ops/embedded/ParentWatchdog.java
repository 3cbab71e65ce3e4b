package dev.rwml.ops.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Optional;

/**
 * Entry point of a child JVM that runs another program's {@code main} and exits as soon as the
 * parent process is gone, even when the parent was killed with SIGKILL and ran no shutdown hook.
 *
 * <p>It exits through the program's shutdown hooks, so the registry closes its database and keeps
 * what it stored; only if those hooks hang does it halt.
 *
 * <p>Usage: {@code java -cp <program>:<this jar> dev.rwml.ops.embedded.ParentWatchdog <parent pid>
 * <main class> [args...]}. The parent keeps the child's stdin open and never writes to it; the
 * kernel closes the pipe when the parent dies, so end of input means the parent is gone. The parent
 * pid is polled as a second signal in case stdin was redirected. Uses only the JDK, since it runs
 * on the other program's classpath.
 */
public final class ParentWatchdog {

    private static final long POLL_MILLIS = 500;

    /** How long the program's shutdown hooks may run before the child halts anyway. */
    private static final long HOOKS_TIMEOUT_MILLIS = 20_000;

    private ParentWatchdog() {}

    public static void main(final String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException(
                    "usage: ParentWatchdog <parent pid> <main class> [args...]");
        }
        final long parentPid = Long.parseLong(args[0]);
        startDaemon("rwml-watchdog-stdin", ParentWatchdog::exitAtEndOfInput);
        startDaemon("rwml-watchdog-parent", () -> exitWhenParentExits(parentPid));
        final Method main = Class.forName(args[1]).getMethod("main", String[].class);
        main.invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
    }

    private static void startDaemon(final String name, final Runnable body) {
        final Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void exitAtEndOfInput() {
        final InputStream in = System.in;
        final byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // The parent never writes; anything read is ignored.
            }
        } catch (IOException e) {
            // A broken pipe means the same as end of input: the parent is gone.
        }
        exit();
    }

    private static void exitWhenParentExits(final long parentPid) {
        final Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
        while (parent.map(ProcessHandle::isAlive).orElse(false)) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
        exit();
    }

    /**
     * Runs the shutdown hooks (a SIGTERM from the parent may already have started them, and then
     * this call just waits for them), halting if they take longer than {@link
     * #HOOKS_TIMEOUT_MILLIS}.
     */
    private static void exit() {
        startDaemon(
                "rwml-watchdog-halt",
                () -> {
                    try {
                        Thread.sleep(HOOKS_TIMEOUT_MILLIS);
                    } catch (InterruptedException e) {
                        // Halting now is what the timeout would do anyway.
                    }
                    Runtime.getRuntime().halt(1);
                });
        System.exit(0);
    }
}
