package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongBinaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter's admission gate in virtual time: its "not before" answers place starts to the
 * nanosecond, a hold arms nothing, every start is told once and ends once, and the two kinds of
 * rule a gate must be able to express (a time, a count) both come out of the same protocol.
 */
class LimiterGateTest {

    private final VirtualTime time = new VirtualTime();

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    /** Records the protocol and answers with {@code rule(now, inflight)}. */
    private static final class RecordingGate implements AdmissionGate {
        final List<String> calls = new ArrayList<>();
        final List<Object> unusedTickets = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();
        LongBinaryOperator rule = (now, inflight) -> now;
        int starts;

        @Override
        public synchronized long admitAt(long nowNanos, int inflight) {
            return rule.applyAsLong(nowNanos, inflight);
        }

        @Override
        public synchronized Object started(Lease lease) {
            String ticket = "start " + (++starts) + " at " + lease.startNanos();
            calls.add(ticket);
            return ticket;
        }

        @Override
        public synchronized void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
            calls.add("end of " + ticket + ": " + outcome + " at " + nowNanos);
            failures.add(failure);
        }

        @Override
        public synchronized void unused(Object ticket) {
            unusedTickets.add(ticket);
        }
    }

    private Limiter gated(AdmissionGate gate, int limit) {
        return Limiter.builder().limit(FixedLimit.of(limit)).time(time).gate(gate).build();
    }

    private static long ms(long millis) {
        return Duration.ofMillis(millis).toNanos();
    }

    @Test
    void aNotBeforeAnswerStartsTheWaiterAtExactlyThatInstantAndTheGateIsToldOfEachStartAndEnd() {
        RecordingGate gate = new RecordingGate();
        long[] next = {0};
        gate.rule = (now, inflight) -> next[0];
        Limiter limiter = gated(gate, 10);
        List<Lease> granted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            limiter.acquire().thenAccept(lease -> {
                granted.add(lease);
                next[0] = lease.startNanos() + ms(100); // one start per 100 ms
            });
        }
        time.runUntilIdle();
        assertThat(granted).extracting(Lease::startNanos).containsExactly(0L, ms(100), ms(200));
        assertThat(granted).extracting(Lease::inflightAtStart).containsExactly(1, 2, 3);
        granted.get(1).release(Outcome.DROPPED);
        assertThat(gate.calls).containsExactly("start 1 at 0", "start 2 at 100000000", "start 3 at 200000000",
                "end of start 2 at 100000000: " + Outcome.DROPPED + " at 200000000");
        assertThat(gate.failures).containsOnlyNulls(); // released directly: no failure to tell
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void aHoldArmsNothingUntilGateChangedAndAPauseOrATryAcquireNeverBypassesTheGate() {
        RecordingGate gate = new RecordingGate();
        gate.rule = (now, inflight) -> AdmissionGate.HOLD;
        Limiter limiter = gated(gate, 10);
        CompletableFuture<Lease> waiting = limiter.acquire();
        time.advance(Duration.ofSeconds(5));
        assertThat(waiting).isNotDone();
        assertThat(time.pendingTasks()).as("a hold arms no wake-up").isZero();
        assertThat(limiter.tryAcquire()).isEmpty();
        assertThat(limiter.waiting()).isEqualTo(1);

        gate.rule = (now, inflight) -> now;
        limiter.pauseFor(Duration.ofSeconds(1));
        limiter.gateChanged();
        assertThat(waiting).as("the Retry-After pause holds it even though the gate admits").isNotDone();
        time.advance(Duration.ofSeconds(1));
        assertThat(waiting).isCompleted();
        assertThat(waiting.join().startNanos()).isEqualTo(ms(6000));

        assertThat(limiter.tryAcquire()).as("a free slot and a gate that admits").isPresent();
        gate.rule = (now, inflight) -> now + ms(10);
        assertThat(limiter.tryAcquire()).as("the gate says not yet: shed, nothing left queued").isEmpty();
        assertThat(limiter.waiting()).isZero();
        assertThat(gate.starts).isEqualTo(2);
    }

    @Test
    void gateChangedDropsAWakeUpForALaterAnswerAndAsksAgainAtOnce() {
        RecordingGate gate = new RecordingGate();
        gate.rule = (now, inflight) -> ms(1000);
        Limiter limiter = gated(gate, 10);
        CompletableFuture<Lease> f = limiter.acquire();
        assertThat(time.pendingTasks()).isEqualTo(1);
        gate.rule = (now, inflight) -> ms(10);
        limiter.gateChanged();
        assertThat(time.pendingTasks()).as("the 1 s wake-up was replaced").isEqualTo(1);
        time.advance(Duration.ofMillis(10));
        assertThat(f).isCompleted();
        assertThat(f.join().startNanos()).isEqualTo(ms(10));
        assertThat(time.pendingTasks()).isZero();
    }

    /**
     * A quota gate as a server's RateLimit headers would drive one: 3 calls remain until a reset
     * at 1 s, and no start goes while what remains is not more than what is in flight. Neither
     * a time nor a count alone would do; the protocol gives the gate both.
     */
    @Test
    void aCountedBudgetAndATimedResetAreBothExpressible() {
        AdmissionGate quota = new AdmissionGate() {
            long resetAt = ms(1000);
            int remaining = 3;

            @Override
            public synchronized long admitAt(long nowNanos, int inflight) {
                if (nowNanos >= resetAt) {
                    resetAt += ms(1000);
                    remaining = 3;
                }
                return remaining > inflight ? nowNanos : resetAt;
            }

            @Override
            public synchronized Object started(Lease lease) {
                return null;
            }

            @Override
            public synchronized void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
                remaining--; // the answer spent one unit of the quota
            }
        };
        Limiter limiter = gated(quota, 100);
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            limiter.acquire().thenAccept(lease -> {
                starts.add(lease.startNanos());
                time.schedule(lease::release, ms(50));
            });
        }
        time.runUntilIdle();
        assertThat(starts).containsExactly(0L, 0L, 0L, ms(1000), ms(1000), ms(1000), ms(2000));
    }

    @Test
    void aGrantToAnAcquisitionThatLeftIsToldAsUnusedAndTheSlotGoesToTheNext() {
        RecordingGate gate = new RecordingGate();
        Limiter limiter = gated(gate, 1);
        Lease first = limiter.acquire().join();
        // A caller that completed its own acquisition: the grant finds it done and gives the
        // slot back, unsampled, and the gate hears that this start did not happen.
        CompletableFuture<Lease> impatient = limiter.acquire();
        impatient.complete(null);
        CompletableFuture<Lease> cancelled = limiter.acquire();
        cancelled.cancel(false); // leaves before any grant: never admitted at all
        CompletableFuture<Lease> next = limiter.acquire();
        first.release();
        assertThat(next).isCompleted();
        assertThat(gate.calls).containsExactly("start 1 at 0", "end of start 1 at 0: " + Outcome.SUCCESS + " at 0",
                "start 2 at 0", "start 3 at 0");
        assertThat(gate.unusedTickets).containsExactly("start 2 at 0");
        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(limiter.waiting()).isZero();
    }

    @Test
    void aGateThatThrowsAdmitsAndIsCountedAndTheSlotIsStillFreed() {
        AdmissionGate broken = new AdmissionGate() {
            @Override
            public long admitAt(long nowNanos, int inflight) {
                throw new StackOverflowError("gate recursion");
            }

            @Override
            public Object started(Lease lease) {
                throw new IllegalStateException("gate bug");
            }

            @Override
            public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
                throw new AssertionError("gate bug");
            }
        };
        Limiter limiter = gated(broken, 1);
        Lease lease = limiter.acquire().join();
        CompletableFuture<Lease> next = limiter.acquire();
        lease.release();
        assertThat(next).isCompleted();
        next.join().release();
        assertThat(limiter.inflight()).isZero();
        // admitAt three times (the first grant, the second acquisition finding no slot, the
        // grant after the release), started twice, settled twice.
        assertThat(limiter.stats().limitFailures()).isEqualTo(7);
    }

    @Test
    void abortDropsTheGatesWakeUp() {
        RecordingGate gate = new RecordingGate();
        gate.rule = (now, inflight) -> now + ms(500);
        Limiter limiter = gated(gate, 1);
        CompletableFuture<Lease> f = limiter.acquire();
        assertThat(time.pendingTasks()).isEqualTo(1);
        limiter.abort();
        assertThat(f).isCompletedExceptionally();
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void anAcquisitionQueuedAheadGoesBeforeTheOthersButAfterThoseAheadBeforeIt() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        Lease held = limiter.acquire().join();
        List<String> order = new ArrayList<>();
        limiter.core().acquire(false, false).thenAccept(l -> { order.add("fresh 1"); l.release(); });
        limiter.core().acquire(true, true).thenAccept(l -> { order.add("retry 1"); l.release(); });
        limiter.core().acquire(false, false).thenAccept(l -> { order.add("fresh 2"); l.release(); });
        limiter.core().acquire(true, true).thenAccept(l -> { order.add("retry 2"); l.release(); });
        held.release();
        assertThat(order).containsExactly("retry 1", "retry 2", "fresh 1", "fresh 2");
    }
}
