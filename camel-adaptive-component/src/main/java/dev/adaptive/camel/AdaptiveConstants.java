package dev.adaptive.camel;

import org.apache.camel.spi.Metadata;

/**
 * Names the component sets: headers on the caller's message when an exchange ends (whether it
 * succeeded or failed), and properties on each attempt's exchange in the consumer route.
 */
public final class AdaptiveConstants {

    /** Attempts made for the exchange, 1 when the first succeeded. Type {@code int}. */
    @Metadata(label = "producer", description = "Attempts made for the exchange: 1 when the first attempt succeeded.",
            javaType = "int")
    public static final String ATTEMPTS = "AdaptiveAttempts";

    /** The pool's concurrency limit when the exchange ended. Type {@code int}. */
    @Metadata(label = "producer", description = "The pool's concurrency limit when the exchange ended.",
            javaType = "int")
    public static final String CONCURRENCY = "AdaptiveConcurrency";

    /**
     * Exchange property on each attempt's exchange (the one the consumer route sees: a copy, or
     * the caller's exchange for a first attempt run in place): the attempt's number, 1 for the
     * first. Type {@code int}.
     */
    public static final String ATTEMPT = "AdaptiveAttempt";

    /**
     * Exchange property on each attempt's exchange: the pool's ticker reading
     * ({@link System#nanoTime()} by default) when the attempt was granted its slot. Only
     * differences within one JVM mean anything. Type {@code long}.
     */
    public static final String DISPATCHED = "AdaptiveDispatched";

    private AdaptiveConstants() {
    }
}
