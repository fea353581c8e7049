package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet member's pause sharing reads the limiter's ticker, the wall clock and the limiter's
 * scheduler, all user code. One that throws or refuses there must not lose a pause the fleet
 * asked for, nor throw into the coordinator's delivery, nor hold a pause for good: it is
 * counted in {@link FleetStats#listenerFailures()}.
 */
class PauseRelayFailuresTest {

    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    private final VirtualTime time = new VirtualTime();
    private final Clock clock = time.clock(Instant.parse("2030-01-01T00:00:00Z"));
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);
    private final IllegalStateException broken = new IllegalStateException("broken time");

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    private FleetMember join(Limiter limiter, String node, Clock clock) {
        return FleetMember.builder(limiter, store).key("backend").nodeId(node).clock(clock).join();
    }

    @Test
    void aTickerThrowingAsAFleetPauseArrivesStillPausesTheNode() {
        TrapTicker ticker = new TrapTicker(time, "onFleetPause");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);

        ticker.arm(() -> {
            throw broken;
        });
        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));

        assertThat(ticker.sprung()).isTrue();
        assertThat(limiter.isRatePaused()).as("paused by the fleet").isTrue();
        assertThat(m.stats().pausesReceived()).as("received").isEqualTo(1);
        assertThat(m.stats().pausesPublished()).as("the echo not published").isZero();
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
        assertThat(store.listenerFailures()).as("thrown into the coordinator").isZero();
        time.advance(Duration.ofSeconds(5));
        assertThat(limiter.isRatePaused()).as("paused after its end").isFalse();
    }

    @Test
    void aTickerThatAlwaysThrowsStillHoldsAFleetPauseForItsWholeLength() {
        TrapTicker ticker = new TrapTicker(time, "none");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);

        ticker.broken = new AssertionError("ticker broken for good");
        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.isRatePaused()).as("paused by the fleet").isTrue();
            soft.assertThat(m.stats().pausesReceived()).as("received").isEqualTo(1);
            soft.assertThat(m.stats().pausesPublished()).as("the echo not published").isZero();
            soft.assertThat(store.listenerFailures()).as("thrown into the coordinator").isZero();
        });
        time.advance(Duration.ofMillis(4_999));
        assertThat(limiter.isRatePaused()).as("paused before the announced end").isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.isRatePaused()).as("paused after the announced end").isFalse();
    }

    /**
     * A member whose ticker has thrown since it joined has no reading to stand for now: the
     * fleet's pause is held by the limiter's timer for its whole length all the same, and the
     * limiter says it has no known end, rather than an end long past.
     */
    @Test
    void aFleetPauseAppliedByAMemberThatNeverReadItsTickerHasNoKnownEnd() {
        TrapTicker ticker = brokenFromTheStart();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);

        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));
        long whileBroken = limiter.pausedUntilNanos();
        Duration leftWhileBroken = limiter.remainingPause();
        time.advance(Duration.ofSeconds(1));
        ticker.broken = null;
        long mended = limiter.pausedUntilNanos();
        Duration leftMended = limiter.remainingPause();

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.isRatePaused()).as("paused by the fleet").isTrue();
            soft.assertThat(m.stats().pausesReceived()).as("received").isEqualTo(1);
            soft.assertThat(whileBroken).as("pausedUntilNanos(), the ticker broken").isEqualTo(Long.MAX_VALUE);
            soft.assertThat(leftWhileBroken).as("remainingPause(), the ticker broken").isEqualTo(Duration.ofSeconds(5));
            soft.assertThat(mended).as("pausedUntilNanos(), the ticker mended").isEqualTo(Long.MAX_VALUE);
            soft.assertThat(leftMended).as("remainingPause(), the ticker mended").isEqualTo(Duration.ofSeconds(5));
        });
        time.advance(Duration.ofMillis(3_999));
        assertThat(limiter.isRatePaused()).as("paused before the announced end").isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.isRatePaused()).as("paused after the announced end").isFalse();
        assertThat(limiter.pausedUntilNanos()).as("pausedUntilNanos() after it").isZero();
    }

    /** As above; a pause of the node's own, later, is news for the fleet, not an echo of that one. */
    @Test
    void aPauseOfItsOwnAfterAFleetPauseWithNoKnownEndIsPublished() {
        TrapTicker ticker = brokenFromTheStart();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);
        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));
        time.advance(Duration.ofSeconds(1));
        ticker.broken = null;
        time.advance(Duration.ofSeconds(5));

        limiter.pauseFor(Duration.ofSeconds(2));
        assertThat(m.stats().pausesPublished()).as("the node's own pause published").isEqualTo(1);
    }

    @Test
    void aTickerBrokenAsAFleetPauseArrivesAdmitsNothingInsideItOnceItWorksAgain() {
        TrapTicker ticker = new TrapTicker(time, "none");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);
        assertThat(m.share()).isPositive();

        ticker.broken = new AssertionError("ticker broken for a while");
        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));
        time.advance(Duration.ofMillis(200));
        ticker.broken = null;

        assertThat(limiter.tryAcquire()).as("admitted inside the fleet's pause").isEmpty();
        time.advance(Duration.ofMillis(4_799));
        assertThat(limiter.tryAcquire()).as("admitted just before its announced end").isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.tryAcquire()).as("admitted at its announced end").isPresent();
    }

    /**
     * Two members; b's ticker fails as a fleet pause arrives ({@code breakIt}) and works again
     * 200 ms later. b, second in order, resumes a half sync interval after the announced end, as
     * it would with a working ticker; a, first, at the end.
     */
    private void aFleetPauseAppliedWithoutAReadingStaggers(TrapTicker ticker, Runnable breakIt, Runnable mendIt) {
        Limiter a = Limiter.builder().name("a").limit(FixedLimit.of(8)).ticker(time).scheduler(time).build();
        Limiter b = Limiter.builder().name("b").limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember ma = join(a, "a", clock);
        FleetMember mb = join(b, "b", clock);
        time.advance(BEAT.multipliedBy(2));
        long stagger = mb.syncInterval().toNanos() / 2; // b is second of two

        breakIt.run();
        store.publishPause("backend", new FleetPause("z", clock.instant().plusSeconds(5)));
        long end = time.nanoTime() + Duration.ofSeconds(5).toNanos();
        time.advance(Duration.ofMillis(200));
        mendIt.run();

        assertThat(b.isRatePaused()).as("b, paused by the fleet without a reading").isTrue();
        assertThat(mb.stats().listenerFailures()).as("b's failures, counted").isPositive();
        time.advanceTo(end);
        assertThat(a.isRatePaused()).as("a, first in order, at the announced end").isFalse();
        assertThat(b.isRatePaused()).as("b, second in order, at the announced end").isTrue();
        time.advanceTo(end + stagger - 1);
        assertThat(b.isRatePaused()).as("b, just before its staggered resume").isTrue();
        time.advanceTo(end + stagger);
        assertThat(b.isRatePaused()).as("b, at its staggered resume").isFalse();
        assertThat(ma.stats().pausesPublished() + mb.stats().pausesPublished()).as("published").isZero();
    }

    @Test
    void aFleetPauseWhoseArrivalTheTickerCannotTimeStillStaggersTheResume() {
        TrapTicker ticker = new TrapTicker(time, "onFleetPause");
        aFleetPauseAppliedWithoutAReadingStaggers(ticker, () -> ticker.arm(() -> {
            throw broken;
        }), () -> assertThat(ticker.sprung()).as("the ticker threw as the pause arrived").isTrue());
    }

    @Test
    void aFleetPauseArrivingWhileTheTickerIsBrokenStillStaggersTheResume() {
        TrapTicker ticker = new TrapTicker(time, "none");
        aFleetPauseAppliedWithoutAReadingStaggers(ticker, () -> ticker.broken = new AssertionError("b's ticker broken"),
                () -> ticker.broken = null);
    }

    @Test
    void aTickerThrowingAsTheStaggeredResumeIsMadeStillStaggersIt() {
        TrapTicker ticker = new TrapTicker(time, "none");
        Limiter a = Limiter.builder().name("a").limit(FixedLimit.of(8)).ticker(time).scheduler(time).build();
        Limiter b = Limiter.builder().name("b").limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember ma = join(a, "a", clock);
        FleetMember mb = join(b, "b", clock);
        time.advance(BEAT.multipliedBy(2));
        long stagger = mb.syncInterval().toNanos() / 2; // b is second of two
        store.publishPause("backend", new FleetPause("z", clock.instant().plusSeconds(5)));
        long end = time.nanoTime() + Duration.ofSeconds(5).toNanos();

        time.advanceTo(end - 2);
        ticker.broken = new AssertionError("b's ticker broken as its resume is staggered");
        time.advanceTo(end - 1); // b's staggered resume is made at the window's last nanosecond
        ticker.broken = null;

        assertThat(mb.stats().listenerFailures() + b.stats().limitFailures()).as("b's failures, counted").isPositive();
        time.advanceTo(end);
        assertThat(a.isRatePaused()).as("a, first in order, at the announced end").isFalse();
        assertThat(b.isRatePaused()).as("b, second in order, at the announced end").isTrue();
        time.advanceTo(end + stagger);
        assertThat(b.isRatePaused()).as("b, at its staggered resume").isFalse();
        assertThat(ma.stats().pausesPublished() + mb.stats().pausesPublished()).as("published").isZero();
    }

    @Test
    void aTickerThrowingAsTheLimitersOwnPauseIsToldStillPublishesIt() {
        TrapTicker ticker = new TrapTicker(time, "onLocalPause");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(ticker).scheduler(time).build();
        FleetMember m = join(limiter, "a", clock);
        time.advance(BEAT);
        List<FleetPause> relayed = new CopyOnWriteArrayList<>();
        store.subscribePauses("backend", relayed::add);

        ticker.arm(() -> {
            throw broken;
        });
        limiter.pauseFor(Duration.ofSeconds(5));

        assertThat(relayed).as("published to the fleet")
                .containsExactly(new FleetPause("a", clock.instant().plusSeconds(5)));
        assertThat(m.stats().pausesPublished()).as("published").isEqualTo(1);
        assertThat(limiter.stats().listenerFailures()).as("thrown into the limiter's listeners").isZero();
    }

    @Test
    void aClockThrowingAsAFleetPauseArrivesIsCountedNotThrownIntoTheDelivery() {
        ThrowingClock wall = new ThrowingClock(clock, broken);
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(time).scheduler(time).build();
        FleetMember m = join(limiter, "a", wall);
        time.advance(BEAT);

        wall.throwOnce = true;
        store.publishPause("backend", new FleetPause("b", clock.instant().plusSeconds(5)));

        assertThat(wall.throwOnce).isFalse();
        assertThat(m.stats().listenerFailures()).as("counted").isEqualTo(1);
        assertThat(store.listenerFailures()).as("thrown into the coordinator").isZero();
    }

    @Test
    void aSchedulerRefusingTheStaggeredResumeResumesAtTheAnnouncedEnd() {
        RefusingStagger scheduler = new RefusingStagger(time);
        Limiter a = Limiter.builder().name("a").limit(FixedLimit.of(8)).ticker(time).scheduler(scheduler).build();
        Limiter b = Limiter.builder().name("b").limit(FixedLimit.of(8)).ticker(time).scheduler(scheduler).build();
        FleetMember ma = join(a, "a", clock);
        FleetMember mb = join(b, "b", clock);
        time.advance(BEAT.multipliedBy(2));

        store.publishPause("backend", new FleetPause("z", clock.instant().plusSeconds(5)));

        assertThat(scheduler.refused).as("a stagger refused").isPositive();
        assertThat(a.isRatePaused() && b.isRatePaused()).as("both paused").isTrue();
        assertThat(ma.stats().pausesReceived() + mb.stats().pausesReceived()).as("received").isEqualTo(2);
        assertThat(ma.stats().listenerFailures() + mb.stats().listenerFailures()).as("counted")
                .isEqualTo(scheduler.refused);
        assertThat(store.listenerFailures()).as("thrown into the coordinator").isZero();
        time.advance(Duration.ofSeconds(5));
        assertThat(a.isRatePaused() || b.isRatePaused()).as("paused after the announced end").isFalse();
    }

    /** Refuses the timers asked for from inside the relay's staggered resume, and only those. */
    private static final class RefusingStagger implements Scheduler {
        private final VirtualTime time;
        int refused;

        RefusingStagger(VirtualTime time) {
            this.time = time;
        }

        @Override
        public Cancellable schedule(Runnable task, long delayNanos) {
            if (StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getMethodName().equals("staggerResume")))) {
                refused++;
                throw new RejectedExecutionException("scheduler shut down");
            }
            return time.schedule(task, delayNanos);
        }
    }

    /** A ticker that throws from the member's first reading on, until {@code broken} is cleared. */
    private TrapTicker brokenFromTheStart() {
        TrapTicker ticker = new TrapTicker(time, "none");
        ticker.broken = new AssertionError("ticker broken from the start");
        return ticker;
    }
}
