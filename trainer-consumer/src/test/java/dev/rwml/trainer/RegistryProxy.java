package dev.rwml.trainer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder in front of the embedded schema registry that a test stops (the port then refuses
 * connections, as a registry that went away does) and starts again on the same port.
 */
final class RegistryProxy implements AutoCloseable {

    private final URI target;
    private final int port;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile ServerSocket server;

    private RegistryProxy(final URI target, final int port) {
        this.target = target;
        this.port = port;
    }

    /** A started proxy to the registry at {@code registryUrl}, on a free local port. */
    static RegistryProxy to(final String registryUrl) {
        final URI target = URI.create(registryUrl);
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        final RegistryProxy proxy = new RegistryProxy(target, port);
        proxy.start();
        return proxy;
    }

    /** The registry URL through the proxy (same path as the target's). */
    String url() {
        return "http://127.0.0.1:" + port + target.getRawPath();
    }

    /** Listens again on the same port and forwards connections to the registry. */
    synchronized void start() {
        if (server != null) {
            return;
        }
        try {
            final ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            server = s;
            daemon("registry-proxy-accept", () -> accept(s));
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Closes the port and every forwarded connection: the registry is unreachable. */
    synchronized void stop() {
        final ServerSocket s = server;
        server = null;
        if (s != null) {
            closeQuietly(s);
        }
        open.forEach(RegistryProxy::closeQuietly);
        open.clear();
    }

    @Override
    public void close() {
        stop();
    }

    private void accept(final ServerSocket s) {
        while (!s.isClosed()) {
            final Socket client;
            try {
                client = s.accept();
            } catch (final IOException e) {
                return;
            }
            try {
                final Socket upstream = new Socket(target.getHost(), target.getPort());
                open.add(client);
                open.add(upstream);
                daemon("registry-proxy-up", () -> pump(client, upstream));
                daemon("registry-proxy-down", () -> pump(upstream, client));
            } catch (final IOException e) {
                closeQuietly(client);
            }
        }
    }

    private static void pump(final Socket from, final Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (final IOException e) {
            // The other side closed or the proxy stopped; the peer sees the connection end.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void daemon(final String name, final Runnable task) {
        final Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(final AutoCloseable c) {
        try {
            c.close();
        } catch (final Exception e) {
            // Nothing to do for a socket that will not close.
        }
    }
}
