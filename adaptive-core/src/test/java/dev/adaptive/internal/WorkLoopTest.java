package dev.adaptive.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class WorkLoopTest {

    @Test
    void aSignalFromInsideAPassOnlyCountsAndTheLoopRunsOneMorePass() {
        AtomicInteger depth = new AtomicInteger();
        AtomicInteger maxDepth = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        WorkLoop[] loop = new WorkLoop[1];
        loop[0] = new WorkLoop(Runnable::run, () -> {
            maxDepth.accumulateAndGet(depth.incrementAndGet(), Math::max);
            if (passes.incrementAndGet() < 10_000) {
                loop[0].signal(); // news from inside: a synchronous completion, say
            }
            depth.decrementAndGet();
            return true;
        });
        loop[0].signal();
        assertThat(passes).hasValue(10_000);
        assertThat(maxDepth).as("passes never nest").hasValue(1);
    }

    @Test
    void aYieldingPassKeepsTheLoopClaimedUntilItResumes() {
        Queue<Runnable> later = new ArrayDeque<>();
        List<String> log = new ArrayList<>();
        AtomicInteger pass = new AtomicInteger();
        WorkLoop[] loop = new WorkLoop[1];
        loop[0] = new WorkLoop(Runnable::run, () -> {
            int n = pass.incrementAndGet();
            log.add("pass " + n);
            if (n == 1) {
                later.add(loop[0]::resume);
                return false;
            }
            return true;
        });
        loop[0].signal();
        loop[0].signal(); // while yielded: counted, no pass of its own
        assertThat(log).containsExactly("pass 1");
        later.poll().run();
        assertThat(log).as("the resumed pass covers the signal that came meanwhile").containsExactly("pass 1", "pass 2");
        loop[0].signal();
        assertThat(log).containsExactly("pass 1", "pass 2", "pass 3");
    }

    @Test
    void passesRunOnTheExecutorOneAtATimeWhateverThreadSignals() throws Exception {
        Queue<Runnable> hops = new java.util.concurrent.ConcurrentLinkedQueue<>();
        Executor elsewhere = hops::add;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger passes = new AtomicInteger();
        WorkLoop loop = new WorkLoop(elsewhere, () -> {
            if (inside.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            passes.incrementAndGet();
            inside.decrementAndGet();
            return true;
        });
        CountDownLatch done = new CountDownLatch(4);
        for (int t = 0; t < 4; t++) {
            new Thread(() -> {
                for (int i = 0; i < 1_000; i++) {
                    loop.signal();
                }
                done.countDown();
            }).start();
        }
        done.await();
        Runnable hop;
        while ((hop = hops.poll()) != null) {
            hop.run(); // the one "event loop" thread
        }
        assertThat(overlaps).hasValue(0);
        assertThat(passes.get()).isPositive().isLessThanOrEqualTo(4_000);
        int before = passes.get();
        loop.signal();
        hops.poll().run();
        assertThat(passes.get()).as("idle again: a new signal runs a new pass").isEqualTo(before + 1);
    }
}
