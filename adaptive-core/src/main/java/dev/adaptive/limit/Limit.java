package dev.adaptive.limit;

/**
 * A concurrency-limit algorithm as a pure fold: {@code (state, sample) -> state'}. A limit
 * has no clock, no threads and no I/O; the {@link dev.adaptive.Limiter} owns those and calls
 * {@link #update} with each finished attempt.
 *
 * <p>Implementations are immutable and thread-safe: the same {@code Limit} may back many
 * limiters. {@link #update} must be a pure function of its arguments, because the limiter
 * may call it more than once for one sample when two threads race to fold.
 *
 * <p>Built-ins: {@link Vegas} (the default), {@link Aimd}, {@link Gradient2},
 * {@link FixedLimit}.
 */
public interface Limit {

    /** @return the limit before any sample */
    int initialLimit();

    /** @return the smallest limit this algorithm will ever return, at least 1 */
    int minLimit();

    /** @return the largest limit this algorithm will ever return */
    int maxLimit();

    /** @return a short name for tracing, for example {@code "vegas"} */
    String name();

    /** @return the state before any sample; its {@link LimitState#limit()} is {@link #initialLimit()} */
    LimitState initialState();

    /**
     * Folds one sample into the state.
     *
     * @param state  a state made by this limit ({@link #initialState()} or an earlier update)
     * @param sample the finished attempt; {@link dev.adaptive.limit.Outcome#IGNORED} samples are
     *               never passed
     * @return the next state; may be {@code state} itself when nothing changed
     */
    LimitState update(LimitState state, Sample sample);
}
