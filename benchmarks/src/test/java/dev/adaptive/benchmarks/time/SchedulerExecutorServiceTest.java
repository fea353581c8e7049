package dev.adaptive.benchmarks.time;

import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The executor that lets Resilience4j and Failsafe wait in virtual time. */
class SchedulerExecutorServiceTest {

    private final VirtualTime time = new VirtualTime();
    private final SchedulerExecutorService executor = new SchedulerExecutorService(time, time);

    @Test
    void tasksRunWhenVirtualTimeReachesThem() throws Exception {
        List<Long> ran = new ArrayList<>();
        ScheduledFuture<String> f = executor.schedule(() -> {
            ran.add(time.nanoTime());
            return "done";
        }, 250, TimeUnit.MILLISECONDS);
        assertThat(f.getDelay(TimeUnit.MILLISECONDS)).isEqualTo(250);
        time.advance(Duration.ofMillis(249));
        assertThat(f.isDone()).isFalse();
        time.advance(Duration.ofMillis(1));
        assertThat(f.get()).isEqualTo("done");
        assertThat(ran).containsExactly(Duration.ofMillis(250).toNanos());
    }

    @Test
    void cancelledTasksNeverRun() {
        List<String> ran = new ArrayList<>();
        ScheduledFuture<?> f = executor.schedule(() -> ran.add("x"), 1, TimeUnit.SECONDS);
        assertThat(f.cancel(false)).isTrue();
        time.runUntilIdle();
        assertThat(ran).isEmpty();
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void fixedRateAndFixedDelayRepeatUntilCancelled() {
        List<Long> rate = new ArrayList<>();
        List<Long> delay = new ArrayList<>();
        ScheduledFuture<?> a = executor.scheduleAtFixedRate(() -> rate.add(time.nanoTime() / 1_000_000), 10, 100,
                TimeUnit.MILLISECONDS);
        ScheduledFuture<?> b = executor.scheduleWithFixedDelay(() -> delay.add(time.nanoTime() / 1_000_000), 0, 50,
                TimeUnit.MILLISECONDS);
        time.advance(Duration.ofMillis(310));
        a.cancel(false);
        b.cancel(false);
        time.runUntilIdle();
        assertThat(rate).containsExactly(10L, 110L, 210L, 310L);
        assertThat(delay).containsExactly(0L, 50L, 100L, 150L, 200L, 250L, 300L);
    }

    @Test
    void shutdownRefusesNewTasksAndTerminatesWhenTheQueuedOnesAreDone() throws Exception {
        executor.schedule(() -> { }, 5, TimeUnit.MILLISECONDS);
        executor.shutdown();
        assertThat(executor.isShutdown()).isTrue();
        assertThat(executor.isTerminated()).isFalse();
        assertThatThrownBy(() -> executor.execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        time.runUntilIdle();
        assertThat(executor.isTerminated()).isTrue();
        assertThat(executor.awaitTermination(1, TimeUnit.MILLISECONDS)).isTrue();
    }
}
