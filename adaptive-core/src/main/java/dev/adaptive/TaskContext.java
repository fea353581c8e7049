package dev.adaptive;

/**
 * What a task knows about its attempt. Immutable apart from the {@link Cancellation}, which is
 * thread-safe.
 */
public interface TaskContext {

    /** @return the item's position in the input, or a sequence number for standalone calls */
    long index();

    /** @return 1 for the first attempt, 2 for the first retry, ... */
    int attempt();

    /**
     * @return the limiter's {@link dev.adaptive.time.Ticker} reading when this attempt was granted
     *         its slot, the instant its round-trip time is measured from; only differences
     *         within one JVM mean anything
     */
    long startNanos();

    /**
     * @return fires on task timeout, on pool stop and on pool cancellation or deadline; a task
     *         should stop its work when it fires (its result is ignored by then)
     */
    Cancellation cancellation();
}
