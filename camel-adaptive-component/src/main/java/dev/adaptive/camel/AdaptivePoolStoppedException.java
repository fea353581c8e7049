package dev.adaptive.camel;

/**
 * An exchange was still queued (waiting for a slot, a backoff or a Retry-After pause) when its
 * pool stopped: the shutdown of the consumer route ran out of time, or the Camel context
 * stopped. The exchange did not run, or did not run again; it is failed rather than dropped.
 * Never retried.
 */
public class AdaptivePoolStoppedException extends RuntimeException {

    /** @param message which pool stopped, and why */
    public AdaptivePoolStoppedException(String message) {
        super(message);
    }
}
