package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retry-After pauses opened from real threads at the same instant: whatever the interleaving,
 * the later end wins and an open pause is never lost. Twenty 429s that come back together with
 * different {@code Retry-After} values are this case. The clock is virtual and never advanced,
 * so no pause ends on its own and every trial reads exactly what the race left.
 */
class LimiterPauseRaceTest {

    private static final int TRIALS = 20_000;
    private static final long LONG_NANOS = Duration.ofSeconds(10).toNanos();

    /**
     * Runs {@code a(trial)} and {@code b(trial)} on two threads, released together for each trial
     * by a spinning barrier (a parking one wakes them microseconds apart, far wider than any
     * race window); thread b then spins a varying few iterations, so that over the trials its
     * call sweeps across every instant of a's.
     */
    private static void race(IntConsumer a, IntConsumer b) throws Exception {
        AtomicInteger arrived = new AtomicInteger();
        AtomicReference<Throwable> error = new AtomicReference<>();
        Thread ta = new Thread(() -> loop(arrived, a, false, error), "pause-race-a");
        Thread tb = new Thread(() -> loop(arrived, b, true, error), "pause-race-b");
        ta.start();
        tb.start();
        ta.join(TimeUnit.MINUTES.toMillis(2));
        tb.join(TimeUnit.MINUTES.toMillis(2));
        assertThat(ta.isAlive() || tb.isAlive()).as("both threads finished").isFalse();
        assertThat(error.get()).isNull();
    }

    private static void loop(AtomicInteger arrived, IntConsumer body, boolean stagger, AtomicReference<Throwable> error) {
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            for (int i = 0; i < TRIALS; i++) {
                int target = 2 * (i + 1);
                arrived.incrementAndGet();
                while (arrived.get() < target) {
                    if (error.get() != null || System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("the other thread is gone at trial " + i);
                    }
                    Thread.onSpinWait();
                }
                if (stagger) {
                    for (int k = i % 64; k > 0; k--) {
                        Thread.onSpinWait();
                    }
                }
                body.accept(i);
            }
        } catch (Throwable t) {
            error.compareAndSet(null, t);
        }
    }

    @Test
    void twoPausesOpenedAtOnceKeepTheLaterEnd() throws Exception {
        VirtualTime time = new VirtualTime();
        Limiter[] limiters = new Limiter[TRIALS];
        for (int i = 0; i < TRIALS; i++) {
            limiters[i] = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        }
        race(i -> limiters[i].pauseFor(Duration.ofSeconds(10)), i -> limiters[i].pauseFor(Duration.ofMillis(1)));
        int shorterWon = 0;
        for (Limiter l : limiters) {
            assertThat(l.isRatePaused()).isTrue();
            if (l.pausedUntilNanos() != LONG_NANOS) {
                shorterWon++;
            }
        }
        assertThat(shorterWon).as("trials in which the 1 ms pause replaced the 10 s one").isZero();
    }

    @Test
    void aReleaseRateLimitedTogetherWithAPauseFromOutsideKeepsTheLaterEnd() throws Exception {
        VirtualTime time = new VirtualTime();
        Limiter[] limiters = new Limiter[TRIALS];
        Lease[] leases = new Lease[TRIALS];
        for (int i = 0; i < TRIALS; i++) {
            limiters[i] = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
            leases[i] = limiters[i].tryAcquire().orElseThrow();
        }
        race(i -> leases[i].release(Outcome.rateLimited(Duration.ofMillis(1))),
                i -> limiters[i].pauseUntil(LONG_NANOS));
        AtomicInteger shorterWon = new AtomicInteger();
        for (Limiter l : limiters) {
            assertThat(l.isRatePaused()).isTrue();
            assertThat(l.inflight()).isZero();
            if (l.pausedUntilNanos() != LONG_NANOS) {
                shorterWon.incrementAndGet();
            }
        }
        assertThat(shorterWon.get()).as("trials in which the 1 ms pause replaced the 10 s one").isZero();
    }

    @Test
    void aPauseOpenedWhileAnotherEndsStaysOpen() throws Exception {
        VirtualTime[] clocks = new VirtualTime[TRIALS];
        Limiter[] limiters = new Limiter[TRIALS];
        for (int i = 0; i < TRIALS; i++) {
            clocks[i] = new VirtualTime();
            limiters[i] = Limiter.builder().limit(FixedLimit.of(1)).time(clocks[i]).build();
            limiters[i].pauseFor(Duration.ofMillis(1));
        }
        race(i -> clocks[i].advance(Duration.ofMillis(1)), i -> limiters[i].pauseFor(Duration.ofSeconds(10)));
        for (int i = 0; i < TRIALS; i++) {
            Limiter l = limiters[i];
            assertThat(l.isRatePaused()).as("trial %d", i).isTrue();
            assertThat(l.pausedUntilNanos()).as("trial %d", i).isGreaterThanOrEqualTo(LONG_NANOS);
            assertThat(l.tryAcquire()).as("trial %d", i).isEmpty();
        }
    }
}
