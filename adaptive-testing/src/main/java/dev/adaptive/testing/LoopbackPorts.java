package dev.adaptive.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free ports on 127.0.0.1 for servers that must be told their port before they bind it (a
 * Hazelcast member whose peers list it, say). A port found free is released before its server
 * binds it, and in that gap anything that asks the system for a port ({@code port 0}: another
 * test's server, a Vert.x event bus) may be handed the same one. So the ports come from
 * {@value #FROM}..{@value #TO}, below the ports a system hands out for port 0 (from 32768 on
 * Linux, 49152 on macOS and Windows): nothing that binds port 0 can take one, and each is
 * checked free by binding it once. A clash is then left only with another process that picks
 * fixed ports in that range, which a random pick makes unlikely.
 */
public final class LoopbackPorts {

    /** The lowest port handed out. */
    public static final int FROM = 20_000;
    /** The highest port handed out. */
    public static final int TO = 32_000;

    private static final int TRIES = 200;

    private LoopbackPorts() {
    }

    /**
     * @param count how many ports, at least 1
     * @return {@code count} distinct ports, each free on 127.0.0.1 when checked
     * @throws IllegalArgumentException if {@code count} is below 1
     * @throws UncheckedIOException     if no free port was found in {@value #TRIES} tries
     */
    public static List<Integer> free(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1: " + count);
        }
        Set<Integer> ports = new LinkedHashSet<>();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        int tries = 0;
        while (ports.size() < count) {
            if (++tries > TRIES) {
                throw new UncheckedIOException(new IOException("no free port on 127.0.0.1 in " + FROM + ".." + TO
                        + " after " + TRIES + " tries"));
            }
            int port = ThreadLocalRandom.current().nextInt(FROM, TO + 1);
            if (ports.contains(port)) {
                continue;
            }
            try (ServerSocket probe = new ServerSocket(port, 1, loopback)) {
                ports.add(probe.getLocalPort());
            } catch (IOException taken) {
                // In use: pick another.
            }
        }
        return new ArrayList<>(ports);
    }
}
