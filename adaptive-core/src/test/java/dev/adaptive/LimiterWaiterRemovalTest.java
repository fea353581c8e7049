package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shape of waiter removal, not its speed (measured in {@code benchmarks/}): a waiter that
 * leaves does not search the queue for itself, the nodes it leaves behind are swept out in
 * amortized constant work per leaving waiter, so the queue stays within about twice the live
 * waiters, and an abort takes each waiter once.
 */
class LimiterWaiterRemovalTest {

    private final VirtualTime time = new VirtualTime();

    private Limiter full() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .maxQueueSize(Integer.MAX_VALUE).build(); // 100,000 waiters, past the default bound
        limiter.tryAcquire().orElseThrow();
        return limiter;
    }

    private static List<CompletableFuture<Lease>> queue(Limiter limiter, int n) {
        List<CompletableFuture<Lease>> waiters = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            waiters.add(limiter.acquire());
        }
        return waiters;
    }

    @Test
    void aWaiterThatLeavesIsNotSearchedFor() {
        Limiter limiter = full();
        List<CompletableFuture<Lease>> waiters = queue(limiter, 1_000);
        assertThat(waiters.get(500).cancel(false)).isTrue();
        assertThat(limiter.waiting()).isEqualTo(999);
        // Left in place: unlinking it would have meant walking the queue up to it.
        assertThat(limiter.core().queuedWaiterNodes()).isEqualTo(1_000);
        assertThat(limiter.core().sweptWaiterNodes()).isZero();
    }

    @Test
    void goneWaitersAreSweptInAmortizedConstantWork() {
        int n = 100_000;
        Limiter limiter = full();
        List<CompletableFuture<Lease>> waiters = queue(limiter, n);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < n - 1; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(42));
        int maxNodes = 0;
        for (int k = 0; k < order.size(); k++) {
            waiters.get(order.get(k)).cancel(false);
            if (k % 1_000 == 0) {
                int nodes = limiter.core().queuedWaiterNodes();
                maxNodes = Math.max(maxNodes, nodes);
                assertThat(nodes).as("queued nodes after %d leavings", k + 1)
                        .isLessThanOrEqualTo(2 * limiter.waiting() + 2 * LimiterCore.SWEEP_SLACK + 2);
            }
        }
        assertThat(limiter.waiting()).isEqualTo(1);
        assertThat(limiter.core().queuedWaiterNodes()).isLessThanOrEqualTo(2 * LimiterCore.SWEEP_SLACK + 2);
        // Every sweep looked at no more nodes than about twice the leavings that caused it.
        assertThat(limiter.core().sweptWaiterNodes()).isLessThanOrEqualTo(3L * n);
        // The one live waiter is still served, past every gone node.
        CompletableFuture<Lease> last = waiters.get(n - 1);
        assertThat(last).isNotDone();
        limiter.core().giveBack();
        assertThat(last).isCompleted();
        assertThat(limiter.waiting()).isZero();
        assertThat(limiter.core().queuedWaiterNodes()).isZero();
    }

    @Test
    void waitersThatTimeOutAreSweptToo() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).waitTimeout(Duration.ofSeconds(1))
                .build();
        limiter.tryAcquire().orElseThrow();
        for (int round = 0; round < 50; round++) {
            queue(limiter, 1_000);
            time.advance(Duration.ofSeconds(1));
            assertThat(limiter.waiting()).isZero();
        }
        assertThat(limiter.core().queuedWaiterNodes()).isLessThanOrEqualTo(LimiterCore.SWEEP_SLACK + 1);
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void abortTakesEveryWaiterOnceAndLeavesNothingQueued() {
        Limiter limiter = full();
        List<CompletableFuture<Lease>> waiters = queue(limiter, 100_000);
        for (int i = 0; i < 100; i++) {
            waiters.get(i * 7).cancel(false);
        }
        limiter.abort();
        assertThat(waiters).allMatch(CompletableFuture::isCompletedExceptionally);
        assertThat(limiter.waiting()).isZero();
        assertThat(limiter.core().queuedWaiterNodes()).isZero();
        assertThat(limiter.core().sweptWaiterNodes()).isZero();
    }

    @Test
    void aWaiterThatLeavesCancelsItsTimeout() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).waitTimeout(Duration.ofHours(1))
                .build();
        limiter.tryAcquire().orElseThrow();
        List<CompletableFuture<Lease>> waiters = queue(limiter, 10);
        assertThat(time.pendingTasks()).isEqualTo(10);
        waiters.forEach(f -> f.cancel(false));
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void aQueuedAcquisitionCarriesNoCallbackOfTheLimitersOwn() {
        // Being the future itself, a waiter learns that it left without a dependent: an abort of
        // n waiters then completes n futures and runs nothing else.
        Limiter limiter = full();
        CompletableFuture<Lease> waiter = limiter.acquire();
        assertThat(waiter.getNumberOfDependents()).isZero();
        waiter.completeExceptionally(new IllegalStateException("caller gave up"));
        assertThat(limiter.waiting()).isZero();
    }
}
