package dev.adaptive.pool;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pool's callbacks are user code too: a stream's close handler or a listener that throws an
 * {@code Error} is ignored as its documented fallback says, and the run still finishes with
 * every accepted item in its place.
 */
class PoolCallbackErrorsTest {

    private final VirtualTime time = new VirtualTime();

    @Test
    void aStreamWhoseCloseHandlerThrowsAnErrorStillFinishesTheRun() {
        AtomicInteger closed = new AtomicInteger();
        Stream<Integer> items = Stream.of(1, 2, 3).onClose(() -> {
            closed.incrementAndGet();
            throw new AssertionError("close handler bug");
        });
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(items).withAlgorithm(FixedLimit.of(2))
                .withVirtualTime(time)
                .process((item, ctx) -> CompletableFuture.completedFuture(item * 10));
        time.runUntilIdle();
        assertThat(run.isDone()).isTrue();
        assertThat(run.join().results()).containsExactlyInAnyOrder(10, 20, 30);
        assertThat(closed).hasValue(1);
        assertThat(run.limiter().inflight()).isZero();
    }

    @Test
    void aListenerThrowingAnErrorLosesOnlyItsOwnCall() {
        AtomicInteger heard = new AtomicInteger();
        PoolRun<PoolStats> run = ItemPool.of(List.of(1, 2, 3, 4)).withAlgorithm(FixedLimit.of(2))
                .withVirtualTime(time)
                .stream((item, ctx) -> CompletableFuture.completedFuture(item), new PoolListener<Integer, Integer>() {
                    @Override
                    public void onResult(ItemResult<Integer, Integer> result) {
                        heard.incrementAndGet();
                        throw new StackOverflowError("listener recursion");
                    }

                    @Override
                    public void onError(ItemError<Integer> error) {
                    }
                });
        time.runUntilIdle();
        PoolStats stats = run.join();
        assertThat(heard).hasValue(4);
        assertThat(stats.succeeded()).isEqualTo(4);
        assertThat(stats.callbackFailures()).isEqualTo(4);
    }
}
