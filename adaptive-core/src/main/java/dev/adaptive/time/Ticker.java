package dev.adaptive.time;

/**
 * A monotonic source of nanoseconds. All engine code reads time only through a
 * {@code Ticker}, so a whole pool can run in virtual time ({@link VirtualTime}).
 *
 * <p>Values are only meaningful as differences, like {@link System#nanoTime()}.
 * Implementations must be thread-safe. The default is {@link #system()}.
 */
@FunctionalInterface
public interface Ticker {

    /** @return the current reading in nanoseconds; only differences are meaningful */
    long nanoTime();

    /** @return the ticker backed by {@link System#nanoTime()}; thread-safe, stateless */
    static Ticker system() {
        return SystemTime.TICKER;
    }
}
