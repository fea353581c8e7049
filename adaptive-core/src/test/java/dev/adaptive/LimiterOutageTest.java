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
 * The limiter's outage rule in virtual time: what begins an outage (a run of drops that outlived
 * every call in flight when it began) and what does not, one probe at a time at growing
 * intervals, first attempts before retries, and the answer that ends it.
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

    /** Begins an outage, queues {@code waiting} acquisitions and goes on to the first probe, which one of them got. */
    private List<CompletableFuture<Lease>> firstProbeDue(Limiter limiter, int waiting) {
        take(limiter, RUN).forEach(l -> l.release(Outcome.DROPPED));
        List<CompletableFuture<Lease>> waiters = queue(limiter, waiting);
        time.advance(Duration.ofMillis(125));
        return waiters;
    }

    private static long granted(List<CompletableFuture<Lease>> waiters) {
        return waiters.stream().filter(CompletableFuture::isDone).count();
    }

    @Test
    void aRunOfDropsThatOutlivedEveryCallInFlightIsAnOutage() {
        Limiter limiter = limiter(10);
        List<Lease> leases = take(limiter, 10);
        time.advance(DROP);
        leases.forEach(l -> l.release(Outcome.DROPPED));

        assertThat(limiter.isOutage()).isTrue();
        assertThat(limiter.stats().outages()).isEqualTo(1);
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.started()).isTrue();
            assertThat(e.drops()).isEqualTo(10);
            assertThat(e.nextProbe()).isEqualTo(Duration.ofMillis(125));
        });
    }

    @Test
    void dropsWhileCallsThatWereInFlightMaySucceedAreNoOutage() {
        // A server refusing what is over its cap at once, while it still serves the rest.
        Limiter limiter = limiter(10);
        List<Lease> leases = take(limiter, 10);
        time.advance(Duration.ofMillis(2));
        leases.subList(5, 10).forEach(l -> l.release(Outcome.DROPPED));
        // Retries of those, refused too, before the older calls answer.
        take(limiter, 5).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).isFalse();

        time.advance(DROP);
        leases.get(0).release(Outcome.SUCCESS);
        leases.subList(1, 3).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).as("a success ended the run; two drops begin no other").isFalse();
        leases.subList(3, 5).forEach(l -> l.release(Outcome.SUCCESS));
        assertThat(events).isEmpty();
        assertThat(granted(queue(limiter, 10))).isEqualTo(10);
    }

    @Test
    void theOutageBeginsWhenTheLastCallInFlightAtTheRunsStartFailsToo() {
        Limiter limiter = limiter(10);
        List<Lease> leases = take(limiter, 10);
        time.advance(DROP);
        leases.subList(0, 9).forEach(l -> l.release(Outcome.DROPPED));
        assertThat(limiter.isOutage()).isFalse();
        leases.get(9).release(Outcome.DROPPED);
        assertThat(limiter.isOutage()).isTrue();
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
        take(limiter, RUN).forEach(l -> l.release(Outcome.DROPPED));
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
    void aLateSuccessOfACallAdmittedBeforeEndsTheOutageToo() {
        Limiter limiter = limiter(10);
        List<Lease> early = take(limiter, RUN);
        early.subList(0, RUN - 1).forEach(l -> l.release(Outcome.DROPPED));
        // Admitted after the run began, before the outage did; answered after it began.
        Lease late = limiter.tryAcquire().orElseThrow();
        early.get(RUN - 1).release(Outcome.DROPPED);
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
        take(limiter, RUN).forEach(l -> l.release(Outcome.DROPPED));
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
        take(limiter, 10).forEach(l -> l.release(Outcome.DROPPED));
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
        take(limiter, RUN).forEach(l -> l.release(Outcome.DROPPED));
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
