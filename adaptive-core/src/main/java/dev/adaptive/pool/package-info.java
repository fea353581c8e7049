/**
 * Map-like runs over items with self-tuning concurrency: {@link dev.adaptive.pool.ItemPool}
 * (over an array, {@code Iterable}, {@code Iterator}, {@code Stream} or {@code Flow.Publisher},
 * pulled lazily) with its {@link dev.adaptive.pool.PoolOptions}; a run is a
 * {@link dev.adaptive.pool.PoolRun} whose outcome is an {@link dev.adaptive.pool.AdaptiveResult}
 * or, streamed, {@link dev.adaptive.pool.PoolStats}; each item ends once, as an
 * {@link dev.adaptive.pool.ItemResult} or an {@link dev.adaptive.pool.ItemError} (published one
 * by one as {@link dev.adaptive.pool.Settled} values by a {@link dev.adaptive.pool.PoolPublisher});
 * a run ended early says why with a {@link dev.adaptive.pool.PoolAbortedException}.
 *
 * <p>Status: public API, except the batch runner the faces build on
 * ({@link dev.adaptive.pool.PoolEngine} with its {@link dev.adaptive.pool.Source} and
 * {@link dev.adaptive.pool.Sink}), which is SPI for the Vert.x pool: public because that module
 * uses it, not meant for applications. It stays in this package because it speaks the pool's
 * types and the pool's API runs on it; apart, the two packages would depend on each other.
 */
package dev.adaptive.pool;
