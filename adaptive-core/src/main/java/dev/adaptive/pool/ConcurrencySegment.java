package dev.adaptive.pool;

import java.time.Duration;

/**
 * One stretch of a run during which the pool's limit stayed at {@code concurrency}: an entry of
 * {@link PoolStats#performanceData()}. Immutable.
 *
 * @param concurrency the limit during the stretch
 * @param duration    how long it lasted, in the pool's ticker time; positive
 */
public record ConcurrencySegment(int concurrency, Duration duration) {
}
