package dev.rwml.ops.embedded;

/** A program for watchdog tests: announces itself, then waits until its JVM is stopped. */
public final class BlockForever {

    static final String STARTED = "block-forever started";

    private BlockForever() {}

    public static void main(final String[] args) throws InterruptedException {
        System.out.println(STARTED);
        System.out.flush();
        Thread.currentThread().join();
    }
}
