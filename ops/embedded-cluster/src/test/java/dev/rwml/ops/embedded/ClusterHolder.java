package dev.rwml.ops.embedded;

import java.nio.file.Path;

/** Child-JVM entry point for tests: starts a cluster, prints the registry pid, waits forever. */
public final class ClusterHolder {

    static final String READY = "CLUSTER-READY ";

    private ClusterHolder() {}

    public static void main(final String[] args) throws InterruptedException {
        final EmbeddedCluster cluster = EmbeddedCluster.start(Path.of(args[0]));
        System.out.println(READY + cluster.registryPid());
        System.out.flush();
        Thread.currentThread().join();
    }
}
