package dev.adaptive.benchmarks.model;

/**
 * A 500 from the flaky server, as the clients see it. Carries no stack trace: the
 * simulations create many and the trace says nothing about the server.
 */
public final class ServerErrorException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** @param overCap whether the server refused past its hard cap (rather than a transient error) */
    public ServerErrorException(boolean overCap) {
        super(overCap ? "500 (over capacity)" : "500 (transient)", null, false, false);
    }
}
