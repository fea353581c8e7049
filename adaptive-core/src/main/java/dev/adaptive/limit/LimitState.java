package dev.adaptive.limit;

import java.util.Map;

/**
 * The immutable state of a {@link Limit} between two samples. Each algorithm has its own
 * record implementing this interface; only the algorithm that made a state may fold it.
 */
public interface LimitState {

    /** @return the number of calls that may be in flight now, within the limit's [min, max] */
    int limit();

    /**
     * @return the algorithm's internals for tracing (for example Vegas's queue, baseRtt,
     *         probeRtt in milliseconds); never {@code null}, possibly empty
     */
    Map<String, Double> metrics();
}
