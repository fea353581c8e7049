/**
 * The runner SPI: what code that runs tasks through an {@link dev.adaptive.AdaptiveExecutor}
 * and follows each one (the pool, the queue, the Camel and Vert.x faces) uses, through
 * {@link dev.adaptive.AdaptiveExecutor#start}: the {@link dev.adaptive.spi.Execution} handle
 * of one task and the {@link dev.adaptive.spi.ExecutionHooks} it reports to, and
 * {@link dev.adaptive.spi.OneListenerFuture}, the future of an attempt or a result that a
 * runner listens to without a dependent stage. A caller that
 * only wants a result uses {@link dev.adaptive.AdaptiveExecutor#execute} and needs none of it.
 *
 * <p>Status: SPI, for implementers of runners. It names no type of the root package, so that
 * the root package can depend on it and not the other way round.
 */
package dev.adaptive.spi;
