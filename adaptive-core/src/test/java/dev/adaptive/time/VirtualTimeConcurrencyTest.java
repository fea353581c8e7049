package dev.adaptive.time;

import org.junit.jupiter.api.RepeatedTest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.assertj.core.api.Assertions.assertThat;

/** Scheduling and cancelling from many threads; running from one. */
class VirtualTimeConcurrencyTest {

    private static final int THREADS = 8;
    private static final int TASKS_PER_THREAD = 2_000;

    @RepeatedTest(5)
    void tasksScheduledFromManyThreadsEachRunExactlyOnceInDueOrder() throws Exception {
        VirtualTime time = new VirtualTime();
        AtomicIntegerArray runs = new AtomicIntegerArray(THREADS * TASKS_PER_THREAD);
        long[] lastSeen = {Long.MIN_VALUE};
        boolean[] ordered = {true};
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(new Thread(() -> {
                await(start);
                for (int i = 0; i < TASKS_PER_THREAD; i++) {
                    int id = thread * TASKS_PER_THREAD + i;
                    long delay = (id * 7919L) % 1000;
                    time.schedule(() -> {
                        // Runs on the test thread only, so plain fields are safe here.
                        if (time.nanoTime() < lastSeen[0]) {
                            ordered[0] = false;
                        }
                        lastSeen[0] = time.nanoTime();
                        runs.incrementAndGet(id);
                    }, delay);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }

        assertThat(time.pendingTasks()).isEqualTo(THREADS * TASKS_PER_THREAD);
        assertThat(time.runUntilIdle()).isEqualTo(THREADS * TASKS_PER_THREAD);
        for (int id = 0; id < runs.length(); id++) {
            assertThat(runs.get(id)).as("runs of task %d", id).isEqualTo(1);
        }
        assertThat(ordered[0]).isTrue();
        assertThat(time.uncaught()).isEmpty();
    }

    @RepeatedTest(5)
    void concurrentCancelsRemoveExactlyTheCancelledTasks() throws Exception {
        VirtualTime time = new VirtualTime();
        int total = THREADS * TASKS_PER_THREAD;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        List<Cancellable> handles = new ArrayList<>();
        for (int id = 0; id < total; id++) {
            int task = id;
            handles.add(time.schedule(() -> runs.incrementAndGet(task), id % 100));
        }
        AtomicIntegerArray cancelled = new AtomicIntegerArray(total);
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            new Thread(() -> {
                // Two threads race on each even task; only one cancel may win.
                for (int id = 0; id < total; id += 2) {
                    if ((id / 2) % (THREADS / 2) == thread % (THREADS / 2) && handles.get(id).cancel()) {
                        cancelled.incrementAndGet(id);
                    }
                }
                done.countDown();
            }).start();
        }
        done.await();

        assertThat(time.pendingTasks()).isEqualTo(total / 2);
        assertThat(time.runUntilIdle()).isEqualTo(total / 2);
        for (int id = 0; id < total; id++) {
            boolean even = id % 2 == 0;
            assertThat(cancelled.get(id)).as("cancels won for task %d", id).isEqualTo(even ? 1 : 0);
            assertThat(runs.get(id)).as("runs of task %d", id).isEqualTo(even ? 0 : 1);
        }
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
