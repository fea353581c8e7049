package dev.adaptive;

/**
 * Called when a {@link Limiter}'s limit moves, on the thread whose sample moved it. Must be
 * fast and thread-safe; one that throws is ignored for that change and counted in
 * {@link LimiterStats#listenerFailures()}.
 */
@FunctionalInterface
public interface LimitChangeListener {

    /**
     * @param from the old limit
     * @param to   the new limit
     */
    void onChange(int from, int to);
}
