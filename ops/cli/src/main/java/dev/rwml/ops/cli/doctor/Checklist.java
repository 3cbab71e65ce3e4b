package dev.rwml.ops.cli.doctor;

import dev.rwml.runtime.errors.ErrorLine;
import java.io.PrintWriter;
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
            return Finding.fix(check.name(), ErrorLine.of(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Finding.fix(check.name(), "interrupted");
        }
    }

    private static String seconds(final Check check) {
        return check.limit().toSeconds() + " s";
    }
}
