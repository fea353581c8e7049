package dev.adaptive.pool;

import dev.adaptive.TaskTimeoutException;
import dev.adaptive.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocking processors, with real threads and real time (no timing assertions: every wait is a
 * generous upper bound on something that happens at once).
 */
class BlockingPoolTest {

    private static final long GENEROUS_SECONDS = 30;

    /** Waits for every thread of the pool's default executor to end; fails if one does not. */
    private static void assertThreadsGone(String poolName) throws InterruptedException {
        String prefix = BlockingThreads.prefix(poolName);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                t.join(TimeUnit.SECONDS.toMillis(GENEROUS_SECONDS));
                assertThat(t.isAlive()).as("thread %s still alive after the run", t.getName()).isFalse();
            }
        }
    }

    @Test
    void aTimedOutBlockingTaskIsInterruptedAndNoThreadOutlivesTheRun() throws Exception {
        String name = "blocking-timeout";
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(3);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AdaptiveResult<Integer, Integer> r = ItemPool.of(0, 1, 2)
                .withName(name)
                .withLimits(3, 1, 3)
                .withTaskTimeout(Duration.ofMillis(100))
                .withRetryPolicy(RetryPolicy.none())
                .processBlocking((Integer item, dev.adaptive.TaskContext ctx) -> {
                    threads.add(Thread.currentThread().getName());
                    try {
                        never.await();
                        return item;
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                })
                .toCompletableFuture().get(GENEROUS_SECONDS, TimeUnit.SECONDS);

        assertThat(r.errors()).hasSize(3).allSatisfy(e -> {
            assertThat(e.error()).isInstanceOf(TaskTimeoutException.class);
            assertThat(e.attempts()).isEqualTo(1);
        });
        assertThat(interrupted.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).as("every worker interrupted").isTrue();
        assertThat(threads).isNotEmpty().allMatch(t -> t.startsWith(BlockingThreads.prefix(name)));
        assertThreadsGone(name);
    }

    @Test
    void blockingWorkRunsOnAtMostMaxDaemonThreadsThatEndWithTheRun() throws Exception {
        String name = "blocking-bounded";
        Set<Thread> threads = ConcurrentHashMap.newKeySet();
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(IntStream.range(0, 200).boxed().toList())
                .withName(name)
                .withLimits(2, 1, 4)
                .processBlocking((Integer i, dev.adaptive.TaskContext ctx) -> {
                    threads.add(Thread.currentThread());
                    return i * i;
                });
        AdaptiveResult<Integer, Integer> r = run.toCompletableFuture().get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        assertThat(r.resultsInInputOrder()).isEqualTo(IntStream.range(0, 200).map(i -> i * i).boxed().toList());
        assertThat(threads).hasSizeBetween(1, 4).allMatch(Thread::isDaemon);
        assertThreadsGone(name);
    }

    @Test
    void cancellingARunInterruptsItsBlockingWorkers() throws Exception {
        String name = "blocking-cancel";
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch interrupted = new CountDownLatch(2);
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(IntStream.range(0, 10).iterator())
                .withName(name)
                .withLimits(2, 2, 2)
                .processBlocking((Integer i, dev.adaptive.TaskContext ctx) -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await();
                        return i;
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                        throw e;
                    }
                });
        assertThat(started.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(run.cancel()).isTrue();
        AdaptiveResult<Integer, Integer> r = run.toCompletableFuture().get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        assertThat(interrupted.await(GENEROUS_SECONDS, TimeUnit.SECONDS)).isTrue();
        assertThat(r.errors()).hasSize(2).allSatisfy(e -> assertThat(e.error()).isInstanceOf(PoolAbortedException.class));
        assertThat(r.stats().accepted()).isEqualTo(2);
        assertThreadsGone(name);
    }

    @Test
    void aUserExecutorIsUsedAndNotShutDown() throws Exception {
        ExecutorService mine = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "mine");
            t.setDaemon(true);
            return t;
        });
        try {
            Set<String> names = ConcurrentHashMap.newKeySet();
            PoolStats s = ItemPool.of(1, 2, 3, 4, 5)
                    .withBlockingExecutor(mine)
                    .streamBlocking((Integer i, dev.adaptive.TaskContext ctx) -> {
                        names.add(Thread.currentThread().getName());
                        return i;
                    }, PoolListener.of(x -> { }, x -> { }))
                    .toCompletableFuture().get(GENEROUS_SECONDS, TimeUnit.SECONDS);
            assertThat(s.succeeded()).isEqualTo(5);
            assertThat(names).containsExactly("mine");
            assertThat(mine.isShutdown()).isFalse();
        } finally {
            mine.shutdownNow();
        }
    }

    @Test
    void aBlockingTaskThatThrowsIsRetried() throws Exception {
        ConcurrentHashMap<Integer, Integer> calls = new ConcurrentHashMap<>();
        AdaptiveResult<Integer, Integer> r = ItemPool.of(1, 2, 3)
                .withName("blocking-retry")
                .withRetryPolicy(RetryPolicy.builder().retries(2).minDelay(Duration.ofMillis(1)).build())
                .processBlocking((Integer i, dev.adaptive.TaskContext ctx) -> {
                    if (calls.merge(i, 1, Integer::sum) < 2) {
                        throw new IllegalStateException("first call fails");
                    }
                    return i;
                })
                .toCompletableFuture().get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        assertThat(r.successes()).hasSize(3).allSatisfy(s -> assertThat(s.attempts()).isEqualTo(2));
        assertThreadsGone("blocking-retry");
    }

    @Test
    void adaptiveMapShortcutsCollectEveryItem() throws Exception {
        List<Integer> input = IntStream.range(0, 50).boxed().toList();
        AdaptiveResult<Integer, Integer> async = ItemPool.map(input, i -> CompletableFuture.completedFuture(i + 1))
                .get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        assertThat(async.resultsInInputOrder()).isEqualTo(input.stream().map(i -> i + 1).toList());
        AdaptiveResult<Integer, String> blocking = ItemPool.mapBlocking(input, String::valueOf,
                        PoolOptions.builder().name("map-blocking").limits(2, 1, 3).build())
                .get(GENEROUS_SECONDS, TimeUnit.SECONDS);
        assertThat(blocking.resultsInInputOrder()).isEqualTo(input.stream().map(String::valueOf).toList());
        assertThat(blocking.allSucceeded()).isTrue();
        assertThreadsGone("map-blocking");
    }
}
