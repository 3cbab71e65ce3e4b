package dev.rwml.ops.cli.doctor;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs checks one after the other, each bounded by its limit, and prints one aligned line per check
 * as soon as it is known.
 */
public final class Checklist {

    private Checklist() {}

    /** Runs {@code checks} in order, prints their lines and returns whether all were ok. */
    public static boolean run(final List<Check> checks, final PrintWriter out) {
        final int width = checks.stream().mapToInt(c -> c.name().length()).max().orElse(0);
        boolean allOk = true;
        for (final Check check : checks) {
            final Finding finding = run(check);
            out.println(finding.line(width));
            out.flush();
            allOk &= finding.ok();
        }
        return allOk;
    }

    /**
     * Runs one check on its own daemon thread, so that one that hangs (a native library, a host
     * that never answers) is left behind at its limit instead of holding up the others.
     */
    static Finding run(final Check check) {
        final CompletableFuture<Finding> result = new CompletableFuture<>();
        final Thread thread =
                new Thread(
                        () -> {
                            try {
                                result.complete(check.body().call());
                            } catch (Throwable e) {
                                result.completeExceptionally(e);
                            }
                        },
                        "rwml-doctor-" + check.name());
        thread.setDaemon(true);
        thread.start();
        try {
            return result.get(check.limit().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return Finding.fix(
                    check.name(), "no answer within " + seconds(check) + ": " + check.onTimeout());
        } catch (ExecutionException e) {
            return Finding.fix(check.name(), rootMessage(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Finding.fix(check.name(), "interrupted");
        }
    }

    /**
     * The message of the innermost cause a user can read, after its wrapper's when that adds what
     * failed: {@code Failed to load SSL keystore x.p12 of type PKCS12: keystore password was
     * incorrect}, not the cipher's padding error beneath it.
     */
    static String rootMessage(final Throwable error) {
        final List<Throwable> chain = new ArrayList<>();
        for (Throwable t = error; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        int deepest = -1;
        for (int i = 0; i < chain.size(); i++) {
            if (readable(chain.get(i))) {
                deepest = i;
            }
        }
        if (deepest < 0) {
            return error.toString();
        }
        final String message = chain.get(deepest).getMessage();
        if (deepest > 0 && readable(chain.get(deepest - 1))) {
            final String wrapper = chain.get(deepest - 1).getMessage();
            return wrapper.contains(message) ? message : wrapper + ": " + message;
        }
        return message;
    }

    /**
     * Whether the exception has a message a user can act on (the JDK's crypto internals have none).
     */
    private static boolean readable(final Throwable t) {
        final String type = t.getClass().getName();
        return t.getMessage() != null
                && !t.getMessage().isBlank()
                && !type.startsWith("java.security.")
                && !type.startsWith("javax.crypto.")
                && !type.startsWith("sun.security.");
    }

    private static String seconds(final Check check) {
        return check.limit().toSeconds() + " s";
    }
}
