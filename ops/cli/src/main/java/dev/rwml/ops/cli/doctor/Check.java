package dev.rwml.ops.cli.doctor;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * One check of {@code rwml doctor}: its name, the longest it may take, and its body.
 *
 * @param name the name its line starts with
 * @param limit the longest the body may run before the check is reported as hanging
 * @param onTimeout what to do when the body did not finish within {@code limit}
 * @param body the check itself; an exception it throws is reported with its root cause
 */
public record Check(String name, Duration limit, String onTimeout, Callable<Finding> body) {}
