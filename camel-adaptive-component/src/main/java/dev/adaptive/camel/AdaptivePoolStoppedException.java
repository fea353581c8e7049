package dev.adaptive.camel;

import dev.adaptive.AdaptiveException;

/**
 * An exchange was still queued (waiting for a slot, a backoff or a Retry-After pause) when its
 * pool stopped: the shutdown of the consumer route ran out of time, or the Camel context
 * stopped. The exchange did not run, or did not run again; it is failed rather than dropped.
 * Also the end of an exchange whose attempt was running when the pool stopped and failed
 * meanwhile (often because the stop closed what it was using, such as camel-http's connection
 * pool): then {@link #getCause()} is that attempt's exception. Never retried.
 */
public class AdaptivePoolStoppedException extends AdaptiveException {

    /** @param message which pool stopped, and why */
    public AdaptivePoolStoppedException(String message) {
        super(message);
    }

    /**
     * @param message which pool stopped, and why
     * @param cause   the exception of the attempt that was running when it stopped
     */
    public AdaptivePoolStoppedException(String message, Throwable cause) {
        super(message, cause);
    }
}
