package dev.adaptive.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** One thread at a time, no news lost, and work that causes work runs as iteration. */
class WorkLoopTest {

    @Test
    void aCallFromInsideAPassOnlyMarksAnotherPassWhichRunsAfterIt() {
        WorkLoop loop = new WorkLoop();
        List<String> ran = new ArrayList<>();
        AtomicInteger passes = new AtomicInteger();
        Runnable[] pass = new Runnable[1];
        pass[0] = () -> {
            int n = passes.incrementAndGet();
            ran.add("start " + n);
            if (n < 3) {
                loop.run(pass[0]);
            }
            ran.add("end " + n);
        };
        loop.run(pass[0]);
        assertThat(ran).containsExactly("start 1", "end 1", "start 2", "end 2", "start 3", "end 3");
    }

    @Test
    void aMillionSynchronousStepsRunInConstantStackDepth() {
        WorkLoop loop = new WorkLoop();
        AtomicInteger left = new AtomicInteger(1_000_000);
        Runnable[] pass = new Runnable[1];
        pass[0] = () -> {
            if (left.decrementAndGet() > 0) {
                loop.run(pass[0]);
            }
        };
        loop.run(pass[0]);
        assertThat(left).hasValue(0);
    }

    @Test
    @Timeout(60)
    void passesNeverOverlapAndEveryCallIsFollowedByAPass() throws Exception {
        WorkLoop loop = new WorkLoop();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong posted = new AtomicLong();
        AtomicLong seen = new AtomicLong();
        Runnable pass = () -> {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            seen.set(posted.get());
            inside.decrementAndGet();
        };
        int threads = 4;
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < 100_000; i++) {
                    posted.incrementAndGet();
                    loop.run(pass);
                }
            });
            th.start();
            all.add(th);
        }
        go.countDown();
        for (Thread th : all) {
            th.join();
        }
        assertThat(overlaps).hasValue(0);
        // The last news posted was seen by a pass that ran after it.
        assertThat(seen.get()).isEqualTo(posted.get()).isEqualTo(threads * 100_000L);
    }
}
