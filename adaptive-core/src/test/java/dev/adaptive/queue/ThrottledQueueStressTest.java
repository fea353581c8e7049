package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real threads, real time: several threads submit at once while another pauses and resumes,
 * and tasks complete on a worker pool, some after a failed first attempt. Every task must
 * complete exactly once with its own value. Bounded: a few thousand tasks at a high rate.
 */
class ThrottledQueueStressTest {

    private static final int SUBMITTERS = 6;
    private static final int PER_SUBMITTER = 1500;

    @Test
    @Timeout(120)
    void concurrentSubmitsAllCompleteExactlyOnce() throws Exception {
        int total = SUBMITTERS * PER_SUBMITTER;
        ExecutorService workers = Executors.newFixedThreadPool(3);
        ExecutorService submitters = Executors.newFixedThreadPool(SUBMITTERS + 1);
        try {
            ThrottledQueue q = ThrottledQueue.builder().name("stress")
                    .minRate(500).maxRate(4000).interval(Duration.ofMillis(10))
                    .evenlySpaced(false).errorsPerInterval(50).concurrency(64).retries(2).build();
            AtomicIntegerArray successes = new AtomicIntegerArray(total);
            AtomicIntegerArray calls = new AtomicIntegerArray(total);
            AtomicIntegerArray completions = new AtomicIntegerArray(total);
            List<List<CompletableFuture<Integer>>> perThread = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int t = 0; t < SUBMITTERS; t++) {
                List<CompletableFuture<Integer>> mine = new ArrayList<>();
                perThread.add(mine);
                int base = t * PER_SUBMITTER;
                done.add(CompletableFuture.runAsync(() -> {
                    await(go);
                    for (int i = 0; i < PER_SUBMITTER; i++) {
                        int id = base + i;
                        CompletableFuture<Integer> f = q.submit(task(id, workers, calls, successes));
                        f.whenComplete((v, e) -> completions.incrementAndGet(id));
                        mine.add(f);
                    }
                }, submitters));
            }
            AtomicInteger toggles = new AtomicInteger();
            done.add(CompletableFuture.runAsync(() -> {
                await(go);
                for (int i = 0; i < 40; i++) {
                    q.pause();
                    Thread.yield();
                    q.resume();
                    toggles.incrementAndGet();
                    assertThat(q.state().rate()).isBetween(500, 4000);
                }
            }, submitters));
            go.countDown();
            CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            q.resume();

            List<CompletableFuture<Integer>> all = perThread.stream().flatMap(List::stream).toList();
            CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            q.awaitIdle().get(30, TimeUnit.SECONDS);

            for (int t = 0; t < SUBMITTERS; t++) {
                List<CompletableFuture<Integer>> mine = perThread.get(t);
                for (int i = 0; i < PER_SUBMITTER; i++) {
                    assertThat(mine.get(i).join()).isEqualTo(t * PER_SUBMITTER + i);
                }
            }
            int firstAttemptFailures = 0;
            long totalCalls = 0;
            for (int id = 0; id < total; id++) {
                assertThat(successes.get(id)).as("successes of task %d", id).isEqualTo(1);
                assertThat(completions.get(id)).as("completions of task %d", id).isEqualTo(1);
                totalCalls += calls.get(id);
                if (failsFirst(id)) {
                    firstAttemptFailures++;
                }
            }
            QueueState s = q.state();
            assertThat(s.idle()).isTrue();
            assertThat(s.status()).isEqualTo(QueueStatus.RUNNING);
            assertThat(s.succeeded()).isEqualTo(total);
            assertThat(s.failed()).isEqualTo(firstAttemptFailures);
            assertThat(s.retried()).isEqualTo(firstAttemptFailures);
            assertThat(s.started()).isEqualTo(totalCalls).isEqualTo(total + firstAttemptFailures);
            assertThat(toggles).hasValue(40);
        } finally {
            submitters.shutdownNow();
            workers.shutdownNow();
            assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static boolean failsFirst(int id) {
        return id % 7 == 0;
    }

    private static AsyncTask<Integer> task(int id, ExecutorService workers, AtomicIntegerArray calls,
                                           AtomicIntegerArray successes) {
        return ctx -> {
            calls.incrementAndGet(id);
            boolean fail = ctx.attempt() == 1 && failsFirst(id);
            return CompletableFuture.supplyAsync(() -> {
                if (fail) {
                    throw new IllegalStateException("first attempt of " + id);
                }
                successes.incrementAndGet(id);
                return id;
            }, workers);
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("start signal never came");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
