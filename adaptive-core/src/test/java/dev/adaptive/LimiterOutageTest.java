package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limiter's outage rule in virtual time: what begins an outage (a run of drops that a call
 * sent after its first drop was read failed too) and what does not, which answers end a run
 * (those of calls sent after it began), one probe at a time at growing intervals, first
 * attempts before retries, and the answer that ends it.
 */
class LimiterOutageTest {

    private static final Duration DROP = Duration.ofMillis(40);
    private static final int RUN = OutageWatch.MIN_DROPS;

    private final VirtualTime time = new VirtualTime();
    private final List<TraceEvent.Outage> events = new ArrayList<>();

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private Limiter limiter(int limit) {
        return limiter(limit, Limiter.DEFAULT_OUTAGE_PROBE);
    }

    private Limiter limiter(int limit, Duration outageProbe) {
        Limiter l = Limiter.builder().limit(FixedLimit.of(limit)).time(time).outageProbe(outageProbe).build();
        l.addOutageListener(events::add);
        return l;
    }

    private static List<Lease> take(Limiter limiter, int n) {
        return IntStream.range(0, n).mapToObj(i -> limiter.tryAcquire().orElseThrow()).toList();
    }

    private static List<CompletableFuture<Lease>> queue(Limiter limiter, int n) {
        return IntStream.range(0, n).mapToObj(i -> limiter.acquire()).toList();
    }

    /** {@code n} calls one after the other, each sent after the one before failed. */
    private static void failInTurn(Limiter limiter, int n) {
        for (int i = 0; i < n; i++) {
            limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        }
    }

    /** Begins an outage, queues {@code waiting} acquisitions and goes on to the first probe, which one of them got. */
    private List<CompletableFuture<Lease>> firstProbeDue(Limiter limiter, int waiting) {
        failInTurn(limiter, RUN);
        List<CompletableFuture<Lease>> waiters = queue(limiter, waiting);
        time.advance(Duration.ofMillis(125));
        return waiters;
    }

    private static long granted(List<CompletableFuture<Lease>> waiters) {
        return waiters.stream().filter(CompletableFuture::isDone).count();
    }

    @Test
    void failuresOfCallsSentTogetherAreNoOutageUntilACallSentAfterOneFailsToo() {
        Limiter limiter = limiter(10);
        List<Lease> leases = take(limiter, 10);
        time.advance(DROP);
        leases.forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).as("ten calls in flight together: one event, as far as the server's state goes").isFalse();

        limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);

        assertThat(limiter.isOutage()).isTrue();
        assertThat(limiter.stats().outages()).isEqualTo(1);
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.started()).isTrue();
            assertThat(e.drops()).isEqualTo(11);
            assertThat(e.nextProbe()).isEqualTo(Duration.ofMillis(125));
        });
    }

    @Test
    void successesOfCallsSentBeforeTheFirstFailureDoNotEndTheRunButEachOutweighsADrop() {
        // A dependency breaks: what the server was already serving still succeeds, new calls
        // fail. Those successes say what the server was, not what it is: they do not restart the
        // run, but a run must hold five drops more than them.
        Limiter limiter = limiter(10);
        List<Lease> older = take(limiter, 10);
        time.advance(DROP);
        older.get(0).release(Outcome.DROPPED);
        older.subList(1, 4).forEach(l -> l.release(Outcome.SUCCESS));
        failInTurn(limiter, RUN - 1);
        assertThat(limiter.isOutage()).as("five drops, three older successes").isFalse();
        failInTurn(limiter, 2);
        assertThat(limiter.isOutage()).isFalse();
        failInTurn(limiter, 1);
        assertThat(limiter.isOutage()).as("eight drops, three older successes").isTrue();
        assertThat(events).singleElement().extracting(TraceEvent.Outage::drops).isEqualTo(8);
    }

    @Test
    void aTransientErrorRateAtHighConcurrencyBeginsNoOutage() {
        // 64 in flight, 40 ms +- 30 % each, 5 % of calls failing at random: the older calls in
        // flight when one fails hold a few failures more, and now and then the first call sent
        // after it fails too; neither is an outage. Seeded, so a failure here is reproducible.
        java.util.Random random = new java.util.Random(42);
        Limiter limiter = limiter(64);
        int calls = 20_000;
        int[] started = {0};
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            if (started[0]++ >= calls) {
                return;
            }
            limiter.acquire().thenAccept(lease -> {
                long ms = 28 + random.nextInt(25);
                boolean fails = random.nextDouble() < 0.05;
                time.schedule(() -> {
                    lease.release(fails ? Outcome.DROPPED : Outcome.SUCCESS);
                    next[0].run();
                }, Duration.ofMillis(ms));
            });
        };
        for (int i = 0; i < 64; i++) {
            next[0].run();
        }
        time.runUntilIdle();
        assertThat(started[0]).isGreaterThan(calls);
        assertThat(limiter.stats().outages()).isZero();
    }

    @Test
    void aSuccessOfACallSentAfterTheFirstFailureEndsTheRun() {
        Limiter limiter = limiter(10);
        Lease first = limiter.tryAcquire().orElseThrow();
        first.release(Outcome.DROPPED);
        Lease after = limiter.tryAcquire().orElseThrow();
        failInTurn(limiter, RUN - 2);
        after.release(Outcome.SUCCESS);
        failInTurn(limiter, RUN - 1);
        assertThat(limiter.isOutage()).as("the success ended the run; four drops since").isFalse();
        failInTurn(limiter, 1);
        assertThat(limiter.isOutage()).isTrue();
    }

    @Test
    void aServerOverItsCapIsProbedAsSoonAsAnOlderCallSucceeds() {
        // Refusing at once what is over its cap, retries included, while it still serves the rest:
        // alike an outage until one of the older calls answers; then one probe tells, at once.
        Limiter limiter = limiter(10);
        List<Lease> older = take(limiter, 10);
        time.advance(Duration.ofMillis(2));
        older.subList(5, 10).forEach(l -> l.release(Outcome.DROPPED));
        take(limiter, 5).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).isTrue();
        List<CompletableFuture<Lease>> waiters = queue(limiter, 10);
        assertThat(granted(waiters)).isZero();

        time.advance(DROP);
        older.get(0).release(Outcome.SUCCESS);
        assertThat(limiter.isOutage()).as("a call sent before the first failure says nothing of the server since").isTrue();
        assertThat(granted(waiters)).as("but the probe is due at once, not in 125 ms").isEqualTo(1);
        older.get(1).release(Outcome.SUCCESS);
        assertThat(granted(waiters)).as("one probe at a time").isEqualTo(1);

        waiters.get(0).join().release(Outcome.SUCCESS);
        assertThat(limiter.isOutage()).isFalse();
        assertThat(granted(waiters)).as("ten slots, three still held by older calls").isEqualTo(8);
    }

    @Test
    void anOutageThatBeginsWhileTheQueueDrainsStopsTheDrainAtOnce() {
        // Calls that fail as soon as they are granted (a task that throws at once) release
        // inside the drain: the grant after the release that began the outage must be a probe.
        Limiter limiter = limiter(10);
        limiter.pause();
        List<CompletableFuture<Lease>> waiters = queue(limiter, 30);
        waiters.forEach(w -> w.thenAccept(l -> l.release(Outcome.DROPPED)));
        limiter.resume();

        assertThat(limiter.isOutage()).isTrue();
        assertThat(granted(waiters)).as("granted until the outage began").isEqualTo(RUN);
        time.advance(Duration.ofMillis(125));
        assertThat(granted(waiters)).as("then one probe").isEqualTo(RUN + 1);
    }

    @Test
    void fewerThanFiveDropsInARowAreNoOutage() {
        Limiter limiter = limiter(10);
        take(limiter, RUN - 1).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).isFalse();
        limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        assertThat(limiter.isOutage()).isTrue();
    }

    @Test
    void rateLimitsAreNoOutageAndEndARunOfDrops() {
        Limiter limiter = limiter(10);
        take(limiter, RUN - 1).forEach(l -> l.release(Outcome.DROPPED));
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ZERO));
        take(limiter, RUN - 1).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).isFalse();
        take(limiter, RUN).forEach(l -> l.release(Outcome.rateLimited(Duration.ZERO)));
        assertThat(limiter.isOutage()).isFalse();
    }

    @Test
    void anOutageAdmitsOneProbeAtATimeAtIntervalsThatDoubleUpToTheMaximum() {
        Limiter limiter = limiter(10);
        failInTurn(limiter, RUN);
        List<CompletableFuture<Lease>> waiters = queue(limiter, 20);
        assertThat(limiter.tryAcquire()).as("no slot outside the probes").isEmpty();

        long[] waits = {125, 250, 500, 1000, 1000};
        int probes = 0;
        for (long wait : waits) {
            time.advance(Duration.ofMillis(wait - 1));
            assertThat(granted(waiters)).isEqualTo(probes);
            time.advance(Duration.ofMillis(1));
            assertThat(granted(waiters)).isEqualTo(++probes);
            // A slow probe: nothing else starts while it is out.
            time.advance(Duration.ofSeconds(5));
            assertThat(granted(waiters)).isEqualTo(probes);
            waiters.get(probes - 1).join().release(Outcome.DROPPED);
        }
        assertThat(limiter.isOutage()).isTrue();
        assertThat(limiter.stats().outages()).isEqualTo(1);
    }

    @Test
    void aSuccessfulProbeEndsTheOutageAndTheQueueGoesOnAtTheLimit() {
        Limiter limiter = limiter(10);
        List<CompletableFuture<Lease>> waiters = firstProbeDue(limiter, 20);
        assertThat(granted(waiters)).isEqualTo(1);

        waiters.get(0).join().release(Outcome.SUCCESS);

        assertThat(limiter.isOutage()).isFalse();
        assertThat(granted(waiters)).isEqualTo(11);
        assertThat(events).extracting(TraceEvent.Outage::started).containsExactly(true, false);
        assertThat(events.get(1).drops()).isEqualTo(RUN);
    }

    @Test
    void aLateSuccessOfACallSentAfterTheFirstFailureEndsTheOutageToo() {
        Limiter limiter = limiter(10);
        failInTurn(limiter, 1);
        // Sent after the run began, before the outage did; answered after it began.
        Lease late = limiter.tryAcquire().orElseThrow();
        failInTurn(limiter, RUN - 1);
        assertThat(limiter.isOutage()).isTrue();
        late.release(Outcome.SUCCESS);
        assertThat(limiter.isOutage()).isFalse();
    }

    @Test
    void aRateLimitedProbeEndsTheOutageAndItsRetryAfterPausesDispatch() {
        Limiter limiter = limiter(10);
        List<CompletableFuture<Lease>> waiters = firstProbeDue(limiter, 5);
        waiters.get(0).join().release(Outcome.rateLimited(Duration.ofSeconds(2)));

        assertThat(limiter.isOutage()).isFalse();
        assertThat(limiter.isRatePaused()).isTrue();
        time.advance(Duration.ofMillis(1999));
        assertThat(granted(waiters)).isEqualTo(1);
        time.advance(Duration.ofMillis(1));
        assertThat(granted(waiters)).isEqualTo(5);
    }

    @Test
    void probesAreFirstAttemptsWhereOneWaitsButTheSecondIsARetry() {
        Limiter limiter = limiter(10);
        failInTurn(limiter, RUN);
        LimiterCore core = limiter.core();
        CompletableFuture<Lease> retry1 = core.acquire(false, true);
        CompletableFuture<Lease> first1 = core.acquire(false, false);
        CompletableFuture<Lease> retry2 = core.acquire(true, true);
        CompletableFuture<Lease> first2 = core.acquire(false, false);
        CompletableFuture<Lease> first3 = core.acquire(false, false);
        time.advance(Duration.ofMillis(125));
        assertThat(first1).as("the first probe: the first attempt queued longest").isDone();
        assertThat(List.of(retry1, retry2, first2, first3)).noneMatch(CompletableFuture::isDone);

        first1.join().release(Outcome.DROPPED);
        time.advance(Duration.ofMillis(250));
        assertThat(retry2).as("the second: a retry, one queued ahead first").isDone();
        assertThat(List.of(retry1, first2, first3)).noneMatch(CompletableFuture::isDone);

        retry2.join().release(Outcome.DROPPED);
        time.advance(Duration.ofMillis(500));
        assertThat(first2).as("then first attempts again").isDone();
        first2.join().release(Outcome.DROPPED);
        time.advance(Duration.ofMillis(1000));
        assertThat(first3).isDone();
        first3.join().release(Outcome.DROPPED);
        time.advance(Duration.ofMillis(1000));
        assertThat(retry1).as("with no first attempt waiting, a retry probes").isDone();
    }

    @Test
    void aProbeGivenBackUnusedLetsTheNextWaiterProbeAtOnce() {
        Limiter limiter = limiter(10);
        List<CompletableFuture<Lease>> waiters = firstProbeDue(limiter, 3);
        ((LeaseImpl) waiters.get(0).join()).giveBack();
        assertThat(granted(waiters)).isEqualTo(2);
        assertThat(limiter.isOutage()).isTrue();
    }

    @Test
    void aWithdrawnProbeLetsTheNextWaiterProbeAtOnce() {
        Limiter limiter = limiter(10);
        List<CompletableFuture<Lease>> waiters = firstProbeDue(limiter, 3);
        waiters.get(0).join().release(Outcome.IGNORED);
        assertThat(granted(waiters)).isEqualTo(2);
    }

    @Test
    void anOutageProbeOfZeroTurnsTheRuleOff() {
        Limiter limiter = limiter(10, Duration.ZERO);
        failInTurn(limiter, 10);
        assertThat(limiter.isOutage()).isFalse();
        assertThat(granted(queue(limiter, 10))).isEqualTo(10);
        assertThat(limiter.stats().outages()).isZero();
        assertThat(events).isEmpty();
    }

    @Test
    void theOutageIsTracedAndAThrowingListenerIsCounted() {
        List<TraceEvent> traced = new ArrayList<>();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(RUN)).time(time).traceListener(traced::add).build();
        limiter.addOutageListener(e -> {
            throw new OutOfMemoryError("listener");
        });
        failInTurn(limiter, RUN);
        time.advance(Duration.ofMillis(125));
        limiter.acquire().join().release(Outcome.SUCCESS);

        assertThat(traced).filteredOn(TraceEvent.Outage.class::isInstance).extracting(e -> ((TraceEvent.Outage) e).started())
                .containsExactly(true, false);
        assertThat(limiter.stats().listenerFailures()).isEqualTo(2);
        assertThat(limiter.isOutage()).isFalse();
    }

    @Test
    void theOptionIsCheckedWhenBuilt() {
        Limiter.Builder b = Limiter.builder();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> b.outageProbe(Duration.ofMillis(-1)))
                .withMessageContaining("outageProbe").withMessageContaining("-0.001");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> b.outageProbe(Duration.ofHours(2)))
                .withMessageContaining("outageProbe");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> b.outageProbe(null))
                .withMessageContaining("outageProbe");
    }
}
