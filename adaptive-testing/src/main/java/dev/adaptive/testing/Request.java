package dev.adaptive.testing;

import java.util.Objects;

/**
 * What a caller tells the flaky model about one request, beyond its arrival.
 *
 * @param client          the client it comes from, for the per-client Retry-After windows;
 *                        {@link #ANONYMOUS} by default
 * @param path            the request's path, recorded with the arrival; {@code ""} by default
 * @param read429s        429 answers the client had read when it sent it; negative if unknown
 *                        (the default)
 * @param attempt         the client's attempt number for its item, 1 for the first; 0 if
 *                        unknown (the default)
 * @param dispatchedNanos when the client dispatched it, on the model's clock; -1 if unknown
 *                        (the default)
 */
public record Request(String client, String path, long read429s, int attempt, long dispatchedNanos) {

    /** The client of a request that does not say which. */
    public static final String ANONYMOUS = "anonymous";

    private static final Request PLAIN = new Request(ANONYMOUS, "", -1, 0, -1);

    /**
     * Validates.
     *
     * @param client the client it comes from
     * @param path the request's path
     * @param read429s 429 answers the client had read when it sent it; negative if unknown
     * @param attempt the client's attempt number for its item; 0 if unknown
     * @param dispatchedNanos when the client dispatched it; -1 if unknown
     */
    public Request {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(path, "path");
    }

    /** @return a request that says nothing about itself */
    public static Request plain() {
        return PLAIN;
    }

    /**
     * @param read429s 429 answers the client had read when it sent the request; negative if unknown
     * @param attempt  the client's attempt number for its item, 1 for the first; 0 if unknown
     * @return an anonymous request that says what its client knew
     */
    public static Request of(long read429s, int attempt) {
        return new Request(ANONYMOUS, "", read429s, attempt, -1);
    }
}
