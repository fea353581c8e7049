package dev.adaptive;

import dev.adaptive.internal.SlotReturn;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.logging.CapturingLoggerFinder;
import dev.adaptive.logging.CapturingLoggerFinder.Line;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ConcurrencySegment;
import dev.adaptive.pool.ItemPool;
import dev.adaptive.pool.PoolEngine;
import dev.adaptive.pool.PoolPublisher;
import dev.adaptive.pool.PoolRun;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.Settled;
import dev.adaptive.pool.Sink;
import dev.adaptive.pool.Source;
import dev.adaptive.queue.AdjustmentTiming;
import dev.adaptive.queue.QueueAbortedException;
import dev.adaptive.queue.QueueStatus;
import dev.adaptive.queue.QueueState;
import dev.adaptive.queue.RateDecision;
import dev.adaptive.queue.RateObservation;
import dev.adaptive.queue.RateStrategy;
import dev.adaptive.queue.ThrottledQueue;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.time.RejectingScheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongUnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The user's {@code Ticker}, and the {@code Cancellable}s of the user's {@code Scheduler}, throw
 * (an {@code Error}, the hardest case) inside the limiter's drain, between taking a queued
 * acquisition and handing it its lease, where the limiter withdraws or aborts queued
 * acquisitions, at a grant, a release, a ceiling, a view of the stats, as the limiter's own
 * timers fire (a Retry-After pause's end, an announced quota's renewal), and in the runners on
 * a limiter (a pool's run, a {@code ThrottledQueue}). Nothing may be lost: no slot stays counted, every acquisition ends
 * (granted, or failed with what the ticker threw), the drain goes on granting, nothing holds
 * dispatch for good, every run ends, the failure is counted in {@code limitFailures}, and a
 * timer that could not be cancelled finds nothing to do when it fires.
 */
class ThrowingTimeTest {

    private final VirtualTime time = new VirtualTime();
    private final RejectingScheduler scheduler = new RejectingScheduler(time);
    private final Error brokenClock = new InternalError("clock unplugged");
    private final Error brokenCancel = new InternalError("cancel broke");

    @AfterEach
    void nothingThrewOnTheScheduler() {
        assertThat(time.uncaught()).isEmpty();
    }

    /** A gate that admits at the instant {@link #rule} answers, for the drain's gated pass. */
    private static final class RuleGate implements AdmissionGate {
        volatile LongUnaryOperator rule = now -> now;

        @Override
        public long admitAt(long nowNanos, int inflight) {
            return rule.applyAsLong(nowNanos);
        }

        @Override
        public Object started(Lease lease) {
            return null;
        }

        @Override
        public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
        }
    }

    private Limiter.Builder limiter(int limit) {
        return Limiter.builder().limit(FixedLimit.of(limit)).ticker(time).scheduler(scheduler);
    }

    /**
     * Two acquisitions queue behind a held slot; the ticker throws at its next reading inside
     * {@code method} of the drain, as the release of the held slot grants the first of them.
     */
    private void aTickerThrowingInTheGrant(Limiter.Builder builder, String method) {
        TrapTicker ticker = new TrapTicker(time, method);
        Limiter limiter = builder.ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> first = limiter.acquire();
        CompletableFuture<Lease> second = limiter.acquire();
        assertThat(first).isNotDone();
        AtomicInteger slotBack = new AtomicInteger(-1);
        ((SlotReturn) first).whenSlotBack(() -> slotBack.set(limiter.inflight()));
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> held.release(Outcome.SUCCESS));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw inside the grant").isTrue();
            soft.assertThat(thrown).as("what the release threw").isNull();
            soft.assertThat(first).as("the acquisition the grant was for").isCompletedExceptionally();
            soft.assertThat(first.handle((lease, error) -> error).getNow(null)).as("its failure").isSameAs(brokenClock);
            soft.assertThat(slotBack).as("in flight when told its slot is back, before the next grant").hasValue(0);
            soft.assertThat(second).as("the next one, granted the slot").isCompleted();
            soft.assertThat(limiter.inflight()).as("in flight: the next one's lease").isEqualTo(1);
            soft.assertThat(limiter.waiting()).as("waiting").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        second.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
        // The drain is free: a later acquisition queued behind a held slot is granted at its release.
        Lease again = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> later = limiter.acquire();
        again.release(Outcome.SUCCESS);
        assertThat(later).as("a later acquisition").isCompleted();
        later.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsTheDrainGrantsFailsThatAcquisitionWithItAndGrantsTheNext() {
        aTickerThrowingInTheGrant(limiter(1), "drainPass");
    }

    @Test
    void throughAGateATickerThrowingAsTheDrainGrantsFailsThatAcquisitionWithItAndGrantsTheNext() {
        aTickerThrowingInTheGrant(limiter(1).gate(new RuleGate()), "gatedPass");
    }

    @Test
    void aTickerThrowingAsTheDrainGivesBackTheSlotOfAnAcquisitionWithdrawnInItsGrantLosesNothing() {
        TrapTicker ticker = new TrapTicker(time, "drainPass");
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        AtomicInteger slotBack = new AtomicInteger(-1);
        ticker.arm(() -> {
            // Withdrawn as the drain grants it: the drain gives the slot back, and the ticker
            // throws at any reading it makes from here on.
            queued.cancel(false);
            ((SlotReturn) queued).whenSlotBack(() -> slotBack.set(limiter.inflight()));
            ticker.arm(() -> {
                throw brokenClock;
            });
        });

        Throwable thrown = catchThrowable(() -> held.release(Outcome.SUCCESS));
        ticker.arm(() -> { }); // disarms the throw if this drain made no reading for it

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what the release threw").isNull();
            soft.assertThat(queued).as("the withdrawn acquisition").isCancelled();
            soft.assertThat(slotBack).as("in flight when told its slot is back").hasValue(0);
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
        });
        Lease again = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> later = limiter.acquire();
        again.release(Outcome.SUCCESS);
        assertThat(later).as("a later acquisition, granted by the drain").isCompleted();
        later.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsAnAcquisitionIsGrantedAtOnceFailsItWithWhatItThrewAndFreesTheSlot() {
        TrapTicker ticker = new TrapTicker(time, "grantNow");
        Limiter limiter = limiter(1).ticker(ticker).build();
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<CompletableFuture<Lease>> acquired = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> acquired.set(limiter.acquire()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the free slot was granted").isTrue();
            soft.assertThat(thrown).as("what acquire() threw").isNull();
            soft.assertThat(acquired.get()).as("the acquisition").isCompletedExceptionally();
            soft.assertThat(acquired.get() == null ? null : acquired.get().handle((lease, error) -> error).getNow(null))
                    .as("its failure").isSameAs(brokenClock);
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        CompletableFuture<Lease> later = limiter.acquire();
        assertThat(later).as("a later acquisition, the slot free").isCompleted();
        later.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsTryAcquireGrantsGivesNoLeaseAndFreesTheSlot() {
        TrapTicker ticker = new TrapTicker(time, "tryAcquire");
        Limiter limiter = limiter(1).ticker(ticker).build();
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<Optional<Lease>> acquired = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> acquired.set(limiter.tryAcquire()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the free slot was granted").isTrue();
            soft.assertThat(thrown).as("what tryAcquire() threw").isNull();
            soft.assertThat(acquired.get()).as("its answer").isEmpty();
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            soft.assertThat(limiter.stats().shed()).as("shed: the limiter had room").isZero();
        });
        Lease later = limiter.tryAcquire().orElseThrow();
        later.release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsALeaseIsReleasedStillFreesItsSlotForTheNextAcquisition() {
        TrapTicker ticker = new TrapTicker(time, "onRelease");
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> held.release(Outcome.SUCCESS));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw at the release").isTrue();
            soft.assertThat(thrown).as("what release() threw").isNull();
            soft.assertThat(held.isReleased()).as("the lease released").isTrue();
            soft.assertThat(queued).as("the queued acquisition, granted the freed slot").isCompleted();
            soft.assertThat(limiter.inflight()).as("in flight: its lease").isEqualTo(1);
            soft.assertThat(limiter.stats().successes()).as("the outcome, counted without a time").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.stats().successes()).isEqualTo(2);
    }

    /**
     * A call that took a second answers with {@code answer}, and the ticker throws as its lease is
     * released: what the answer asks dispatch to wait for holds all the same, measured from the
     * lease's start, the latest reading the limiter has for it, and timed by the scheduler from
     * the release, so the acquisition queued behind it waits the whole five seconds.
     *
     * @param held checks the limiter just after the release, given the lease's start
     */
    private void aTickerThrowingAsAnAnswerAskingToWaitIsReleased(Outcome answer,
                                                                  BiConsumer<SoftAssertions, Limiter> held) {
        TrapTicker ticker = new TrapTicker(time, "onRelease");
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease lease = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        time.advance(Duration.ofSeconds(1));
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> lease.release(answer));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw at the release").isTrue();
            soft.assertThat(thrown).as("what release() threw").isNull();
            soft.assertThat(limiter.inflight()).as("in flight: the slot freed").isZero();
            soft.assertThat(queued).as("the queued acquisition, held").isNotDone();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            held.accept(soft, limiter);
        });
        time.advance(Duration.ofMillis(4_999));
        assertThat(queued).as("held for the whole wait from the release").isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(queued).as("granted once the wait is over").isCompleted();
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsARateLimitedLeaseIsReleasedStillHoldsItsRetryAfterPause() {
        long leaseStart = time.nanoTime();
        aTickerThrowingAsAnAnswerAskingToWaitIsReleased(Outcome.rateLimited(Duration.ofSeconds(5)), (soft, limiter) -> {
            soft.assertThat(limiter.isRatePaused()).as("paused").isTrue();
            soft.assertThat(limiter.pausedUntilNanos()).as("its end, as recorded: from the lease's start")
                    .isEqualTo(leaseStart + Duration.ofSeconds(5).toNanos());
            soft.assertThat(limiter.stats().rateLimitEvents()).as("the rate limit, counted").isEqualTo(1);
        });
    }

    @Test
    void aTickerThrowingAsALeaseIsReleasedStillHoldsTheSpentQuotaItAnnounced() {
        long leaseStart = time.nanoTime();
        aTickerThrowingAsAnAnswerAskingToWaitIsReleased(Outcome.SUCCESS.withQuota(new Quota(0, Duration.ofSeconds(5))),
                (soft, limiter) -> {
                    soft.assertThat(limiter.quotaRemaining()).as("what remains of the window").isZero();
                    soft.assertThat(limiter.quotaResetNanos()).as("its renewal, as recorded: from the lease's start")
                            .isEqualTo(leaseStart + Duration.ofSeconds(5).toNanos());
                });
    }

    /**
     * The ticker throws as a call that took a second is released with a 429 asking for 5 s: its
     * pause, measured from the lease's start, is recorded as ending a second early, while the
     * server asked for 5 s from the release. A pause already open whose end lies between the two
     * does not cover it: dispatch is held until 5 s after the release.
     */
    @Test
    void aPauseOpenedWithoutAReadingIsHeldPastAnOpenPauseThatEndsBeforeIt() {
        TrapTicker ticker = new TrapTicker(time, "onRelease");
        Limiter limiter = limiter(2).ticker(ticker).build();
        long start = time.nanoTime();
        Lease slow = limiter.tryAcquire().orElseThrow();
        Lease fast = limiter.tryAcquire().orElseThrow();
        time.advance(Duration.ofSeconds(1));
        fast.release(Outcome.rateLimited(Duration.ofMillis(4_500))); // open until 5.5 s
        CompletableFuture<Lease> queued = limiter.acquire();
        ticker.arm(() -> {
            throw brokenClock;
        });
        slow.release(Outcome.rateLimited(Duration.ofSeconds(5))); // until 6 s, recorded as 5 s

        assertThat(ticker.sprung()).as("the ticker threw at the release").isTrue();
        time.advanceTo(start + Duration.ofMillis(5_999).toNanos());
        assertThat(queued).as("granted before 5 s after the release").isNotDone();
        time.advanceTo(start + Duration.ofSeconds(6).toNanos());
        assertThat(queued).as("granted 5 s after the release").isCompleted();
    }

    /**
     * As above, the other way round: the pause opened without a reading comes first, and a
     * later 429 whose end lies between its recorded end and its real one does not cut it short.
     */
    @Test
    void aPauseOpenedWithoutAReadingIsNotCutShortByALaterOneThatEndsBeforeIt() {
        TrapTicker ticker = new TrapTicker(time, "onRelease");
        Limiter limiter = limiter(2).ticker(ticker).build();
        long start = time.nanoTime();
        Lease slow = limiter.tryAcquire().orElseThrow();
        Lease fast = limiter.tryAcquire().orElseThrow();
        time.advance(Duration.ofSeconds(1));
        ticker.arm(() -> {
            throw brokenClock;
        });
        slow.release(Outcome.rateLimited(Duration.ofSeconds(5))); // until 6 s, recorded as 5 s
        assertThat(ticker.sprung()).as("the ticker threw at the release").isTrue();
        time.advance(Duration.ofSeconds(1));
        fast.release(Outcome.rateLimited(Duration.ofMillis(3_500))); // until 5.5 s
        CompletableFuture<Lease> queued = limiter.acquire();

        time.advanceTo(start + Duration.ofMillis(5_999).toNanos());
        assertThat(queued).as("granted before 5 s after the first release").isNotDone();
        time.advanceTo(start + Duration.ofSeconds(6).toNanos());
        assertThat(queued).as("granted 5 s after the first release").isCompleted();
    }

    @Test
    void aTickerThrowingWhenARetryAfterPauseIsDueEndsThePause() {
        TrapTicker ticker = new TrapTicker(time, "maybeEndPause");
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        held.release(Outcome.rateLimited(Duration.ofSeconds(5)));
        assertThat(queued).as("held by the pause").isNotDone();
        ticker.arm(() -> {
            throw brokenClock;
        });

        time.advance(Duration.ofSeconds(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the pause's timer fired").isTrue();
            soft.assertThat(limiter.pausedUntilNanos()).as("the pause").isZero();
            soft.assertThat(queued).as("the queued acquisition, granted as the pause ended").isCompleted();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * As above, with INFO logging on, so that the pause's close is logged, and a ticker broken
     * for good from the pause's end: every reading it refuses is counted, and the close is
     * still logged, without its length.
     */
    @Test
    void aTickerBrokenAsALoggedRetryAfterPauseEndsIsCountedForEveryReadingItRefuses() {
        AtomicInteger refused = new AtomicInteger();
        AtomicReference<Error> broken = new AtomicReference<>();
        Ticker ticker = () -> {
            Error failing = broken.get();
            if (failing != null) {
                refused.incrementAndGet();
                throw failing;
            }
            return time.nanoTime();
        };
        try (CapturingLoggerFinder.Capture log = CapturingLoggerFinder.capture("'logged-close'")) {
            Limiter limiter = limiter(1).name("logged-close").ticker(ticker).build();
            limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(5)));
            broken.set(brokenClock);

            Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(5)));

            broken.set(null);
            SoftAssertions.assertSoftly(soft -> {
                soft.assertThat(thrown).as("what the pause's timer threw").isNull();
                soft.assertThat(limiter.pausedUntilNanos()).as("the pause").isZero();
                soft.assertThat(refused).as("readings refused").hasPositiveValue();
                soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(refused.get());
                soft.assertThat(log.lines()).extracting(Line::message).as("logged")
                        .contains("limiter 'logged-close': Retry-After pause closed, dispatch resumes with 0 waiting");
            });
        }
    }

    @Test
    void aTickerThrowingWhenAnAnnouncedQuotasWindowRenewsClosesTheWindow() {
        TrapTicker ticker = new TrapTicker(time, "quotaRenewed");
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        held.release(Outcome.SUCCESS.withQuota(new Quota(0, Duration.ofSeconds(5))));
        assertThat(queued).as("held by the spent quota").isNotDone();
        ticker.arm(() -> {
            throw brokenClock;
        });

        time.advance(Duration.ofSeconds(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the renewal's timer fired").isTrue();
            soft.assertThat(limiter.quotaRemaining()).as("the window: closed").isEqualTo(-1);
            soft.assertThat(queued).as("the queued acquisition, granted as the window closed").isCompleted();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsTheCeilingIsRaisedStillRaisesItAndGrantsWhatWaited() {
        TrapTicker ticker = new TrapTicker(time, "ceiling");
        AtomicInteger toldLimit = new AtomicInteger(-1);
        Limiter limiter = limiter(2).ticker(ticker).limitChangeListener((from, to) -> toldLimit.set(to)).build();
        limiter.ceiling(0); // a fleet member that holds no share yet
        CompletableFuture<Lease> queued = limiter.acquire();
        assertThat(queued).isNotDone();
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> limiter.ceiling(Integer.MAX_VALUE)); // its share is granted

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the ceiling was set").isTrue();
            soft.assertThat(thrown).as("what ceiling() threw").isNull();
            soft.assertThat(limiter.ceiling()).as("the ceiling").isEqualTo(Integer.MAX_VALUE);
            soft.assertThat(limiter.limit()).as("the limit, the ceiling no longer binding").isEqualTo(2);
            soft.assertThat(queued).as("the queued acquisition, granted at the raised limit").isCompleted();
            soft.assertThat(toldLimit).as("the limit-change listener, told").hasValue(2);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        assertThat(limiter.acquire()).as("a second acquisition, within the limit of 2").isCompleted();
    }

    @Test
    void aPauseWhoseTimerFiresEarlyAndCannotBeArmedAgainEnds() {
        AtomicLong lag = new AtomicLong();
        Limiter limiter = limiter(1).ticker(() -> time.nanoTime() - lag.get()).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        held.release(Outcome.rateLimited(Duration.ofSeconds(5)));
        assertThat(queued).as("held by the pause").isNotDone();
        // The ticker lags the scheduler by a second, so the pause's timer fires a second early by
        // its reading and arms itself again, which the scheduler, shut down meanwhile, refuses.
        lag.set(Duration.ofSeconds(1).toNanos());
        scheduler.rejecting = true;

        time.advance(Duration.ofSeconds(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(time.uncaught()).as("what the pause's timer threw").isEmpty();
            soft.assertThat(limiter.isRatePaused()).as("paused").isFalse();
            soft.assertThat(queued).as("the queued acquisition, granted as the pause ended").isCompleted();
        });
        scheduler.rejecting = false;
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * A quota announced as spent holds an acquisition; the ticker lags the scheduler by a second,
     * so the renewal's timer fires a second before the window's reset by the ticker's reading.
     */
    private Limiter aQuotaWindowWhoseRenewalFiresEarly(CompletableFuture<Lease>[] queued) {
        AtomicLong lag = new AtomicLong();
        Limiter limiter = limiter(1).ticker(() -> time.nanoTime() - lag.get()).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        queued[0] = limiter.acquire();
        held.release(Outcome.SUCCESS.withQuota(new Quota(0, Duration.ofSeconds(5))));
        assertThat(queued[0]).as("held by the spent quota").isNotDone();
        lag.set(Duration.ofSeconds(1).toNanos());
        return limiter;
    }

    @Test
    void aQuotaRenewalWhoseTimerFiresEarlyLooksAgainAtTheReset() {
        @SuppressWarnings("unchecked")
        CompletableFuture<Lease>[] queued = new CompletableFuture[1];
        Limiter limiter = aQuotaWindowWhoseRenewalFiresEarly(queued);

        time.advance(Duration.ofSeconds(5));
        assertThat(queued[0]).as("a second before the reset by the ticker").isNotDone();
        time.advance(Duration.ofSeconds(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.quotaRemaining()).as("the window: closed at its reset").isEqualTo(-1);
            soft.assertThat(queued[0]).as("the queued acquisition, granted at the reset").isCompleted();
        });
    }

    @Test
    void aQuotaRenewalWhoseTimerFiresEarlyAndCannotBeArmedAgainClosesTheWindow() {
        @SuppressWarnings("unchecked")
        CompletableFuture<Lease>[] queued = new CompletableFuture[1];
        Limiter limiter = aQuotaWindowWhoseRenewalFiresEarly(queued);
        scheduler.rejecting = true;

        time.advance(Duration.ofSeconds(5));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(limiter.quotaRemaining()).as("the window: closed").isEqualTo(-1);
            soft.assertThat(queued[0]).as("the queued acquisition, granted as it closed").isCompleted();
        });
        scheduler.rejecting = false;
    }

    /**
     * A pause asked for from outside ({@code pauseFor}, {@code pauseUntil}: a fleet's, a face's)
     * needs a reading to be timed; without one the caller gets what the ticker threw, and
     * nothing changed: no pause, half-opened or otherwise, and the queue still drains.
     */
    private void aTickerThrowingAsAPauseIsAskedFor(String method, Consumer<Limiter> ask) {
        TrapTicker ticker = new TrapTicker(time, method);
        Limiter limiter = limiter(1).ticker(ticker).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> ask.accept(limiter));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw in " + method).isTrue();
            soft.assertThat(thrown).as("what " + method + " threw").isSameAs(brokenClock);
            soft.assertThat(limiter.isRatePaused()).as("paused").isFalse();
            soft.assertThat(limiter.pausedUntilNanos()).as("the pause's end").isZero();
            soft.assertThat(limiter.stats().pausesOpened()).as("pauses opened").isZero();
            soft.assertThat(limiter.stats().lastRetryAfter()).as("the last wait asked").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted: no, the caller has it").isZero();
        });
        held.release(Outcome.SUCCESS);
        assertThat(queued).as("the queued acquisition, granted at the release").isCompleted();
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aTickerThrowingAsAPauseIsAskedForReachesTheCallerWithNothingChanged() {
        aTickerThrowingAsAPauseIsAskedFor("pauseFor", limiter -> limiter.pauseFor(Duration.ofSeconds(5)));
        aTickerThrowingAsAPauseIsAskedFor("pauseUntil",
                limiter -> limiter.pauseUntil(time.nanoTime() + Duration.ofSeconds(5).toNanos()));
    }

    /**
     * A pause asked for by a caller that must not lose it ({@code pauseFor} with its last
     * reading: a fleet's relay) is opened even by a ticker that always throws: counted, not
     * thrown, recorded from the caller's reading, held by the scheduler for its whole length
     * from the call, and ended by its timer (whose reading throws too).
     */
    @Test
    void aPauseAskedForWithTheCallersLastReadingIsHeldItsWholeLengthByATickerThatAlwaysThrows() {
        TrapTicker ticker = new TrapTicker(time, "none");
        Limiter limiter = limiter(1).ticker(ticker).build();
        long lastReading = time.nanoTime();
        time.advance(Duration.ofSeconds(1));
        ticker.broken = brokenClock;

        Throwable thrown = catchThrowable(() -> limiter.pauseFor(Duration.ofSeconds(5), lastReading));
        // A stats read whose ticker throws counts that throw in the snapshot it returns.
        LimiterStats stats = limiter.stats();

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what pauseFor threw").isNull();
            soft.assertThat(limiter.isRatePaused()).as("paused").isTrue();
            soft.assertThat(limiter.pausedUntilNanos()).as("its end, as recorded: from the caller's reading")
                    .isEqualTo(lastReading + Duration.ofSeconds(5).toNanos());
            soft.assertThat(stats.pausesOpened()).as("pauses opened").isEqualTo(1);
            soft.assertThat(stats.limitFailures()).as("counted: pauseFor's reading and the stats' own").isEqualTo(2);
        });
        time.advance(Duration.ofMillis(4_999));
        assertThat(limiter.isRatePaused()).as("paused just before 5 s from the call").isTrue();
        time.advance(Duration.ofMillis(1));
        assertThat(limiter.isRatePaused()).as("paused 5 s from the call").isFalse();
        ticker.broken = null;
        assertThat(limiter.tryAcquire()).as("admitted once the ticker works").isPresent();
    }

    @Test
    void aTickerThrowingAsARateLimitMetElsewhereIsFoldedDropsOnlyThatSample() {
        TrapTicker ticker = new TrapTicker(time, "foldRateLimitElsewhere");
        Limiter limiter = limiter(1).ticker(ticker).build();
        ticker.arm(() -> {
            throw brokenClock;
        });

        // What a fleet's relay does with another member's 429: fold it, then apply its pause.
        Throwable thrown = catchThrowable(() -> limiter.rateLimitedElsewhere(Duration.ofSeconds(5)));
        limiter.pauseUntil(time.nanoTime() + Duration.ofSeconds(5).toNanos());

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the rate limit was folded").isTrue();
            soft.assertThat(thrown).as("what rateLimitedElsewhere threw").isNull();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            soft.assertThat(limiter.isRatePaused()).as("the fleet's pause, applied after it").isTrue();
        });
        time.advance(Duration.ofSeconds(5));
        assertThat(limiter.isRatePaused()).isFalse();
        assertThat(limiter.tryAcquire()).isPresent();
    }

    @Test
    void statsReadWhileAPauseIsOpenAndTheTickerThrowsShowTheWholePause() {
        TrapTicker ticker = new TrapTicker(time, "stats");
        Limiter limiter = limiter(1).ticker(ticker).build();
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(5)));
        time.advance(Duration.ofSeconds(1));
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<LimiterStats> stats = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> stats.set(limiter.stats()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the stats were read").isTrue();
            soft.assertThat(thrown).as("what stats() threw").isNull();
            soft.assertThat(stats.get() == null ? null : stats.get().remainingPause())
                    .as("the pause's remaining time, without a reading: its whole length").isEqualTo(Duration.ofSeconds(5));
            soft.assertThat(stats.get() == null ? null : stats.get().limitFailures())
                    .as("counted, in the stats that read it").isEqualTo(1L);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
    }

    /**
     * The only item's answer is a 429 that is not retried: its Retry-After pause holds the run's
     * next acquisition, and the run is cancelled inside it; the ticker throws as the run's final
     * stats read the limiter's.
     */
    @Test
    void aPoolRunEndingInsideARetryAfterPauseWhileTheTickerThrowsStillCompletes() {
        TrapTicker ticker = new TrapTicker(time, "stats");
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(1)
                .withAlgorithm(FixedLimit.of(1))
                .withRetryPolicy(RetryPolicy.builder().retries(0).maxRateLimitRetries(0).build())
                .withTime(ticker, scheduler)
                .process((item, ctx) -> CompletableFuture.failedFuture(new RateLimitedException(Duration.ofSeconds(5))));
        assertThat(run.isDone()).as("the run, its next acquisition held by the pause").isFalse();
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(run::cancel);

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the final stats were read").isTrue();
            soft.assertThat(thrown).as("what cancel() threw").isNull();
            soft.assertThat(run.isDone()).as("the run, complete").isTrue();
            soft.assertThat(run.limiter().isRatePaused()).as("its limiter, paused").isTrue();
        });
        AdaptiveResult<Integer, Integer> r = run.join();
        assertThat(r.errors()).singleElement().satisfies(e -> assertThat(e.error()).isInstanceOf(RateLimitedException.class));
        assertThat(r.stats().stopCause()).isPresent();
        assertThat(r.stats().limitFailures()).as("the limiter's count, in the run's stats").isEqualTo(1);
        assertThat(run.limiter().inflight()).isZero();
    }

    /** Each item answers its own value 100 ms after it starts. */
    private CompletableFuture<Integer> in100ms(Integer item) {
        CompletableFuture<Integer> f = new CompletableFuture<>();
        time.schedule(() -> f.complete(item), Duration.ofMillis(100));
        return f;
    }

    @Test
    void aPoolRunWhoseTickerThrowsAsItStartsRunsMeasuredFromItsBuild() {
        TrapTicker ticker = new TrapTicker(time, "start");
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<PoolRun<AdaptiveResult<Integer, Integer>>> started = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> started.set(ItemPool.of(1, 2).withAlgorithm(FixedLimit.of(2))
                .withTime(ticker, scheduler).process((item, ctx) -> in100ms(item))));
        time.advance(Duration.ofSeconds(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the run started").isTrue();
            soft.assertThat(thrown).as("what process() threw").isNull();
            soft.assertThat(started.get() != null && started.get().isDone()).as("the run, complete").isTrue();
        });
        AdaptiveResult<Integer, Integer> r = started.get().join();
        assertThat(r.successes()).hasSize(2);
        assertThat(r.stats().elapsed()).as("measured from the run's build").isEqualTo(Duration.ofMillis(100));
        assertThat(r.stats().limitFailures()).as("counted in the run's stats").isEqualTo(1);
    }

    /**
     * The ticker throws at the first reading of a publisher's subscribe, the run's build: the
     * run cannot begin without a start to measure from, and the subscriber hears so as
     * Reactive Streams asks (1.9): {@code onSubscribe}, then {@code onError}, and
     * {@code subscribe} returns normally.
     */
    @Test
    void aPublisherWhoseTickerThrowsAsItIsSubscribedSignalsOnSubscribeThenOnError() {
        TrapTicker ticker = new TrapTicker(time, "subscribe");
        AtomicInteger processed = new AtomicInteger();
        PoolPublisher<Integer, Integer> publisher = ItemPool.of(1, 2).withAlgorithm(FixedLimit.of(2))
                .withTime(ticker, scheduler).publish((item, ctx) -> {
                    processed.incrementAndGet();
                    return in100ms(item);
                });
        ticker.arm(() -> {
            throw brokenClock;
        });
        List<String> signals = new ArrayList<>();
        AtomicReference<Throwable> error = new AtomicReference<>();

        Throwable thrown = catchThrowable(() -> publisher.subscribe(new Flow.Subscriber<Settled<Integer, Integer>>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                signals.add("onSubscribe");
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Settled<Integer, Integer> item) {
                signals.add("onNext");
            }

            @Override
            public void onError(Throwable t) {
                signals.add("onError");
                error.set(t);
            }

            @Override
            public void onComplete() {
                signals.add("onComplete");
            }
        }));
        time.advance(Duration.ofSeconds(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the run was built").isTrue();
            soft.assertThat(thrown).as("what subscribe() threw").isNull();
            soft.assertThat(signals).as("the subscriber's signals").containsExactly("onSubscribe", "onError");
            soft.assertThat(error.get()).as("onError's cause").isSameAs(brokenClock);
            soft.assertThat(processed).as("items processed").hasValue(0);
            soft.assertThat(publisher.stats().handle((s, e) -> e == null ? null : e.getCause()).getNow(null))
                    .as("stats(), failed with it").isSameAs(brokenClock);
        });
    }

    /**
     * A run on a shared limiter follows its limit through a listener it registers as it is
     * built; the ticker throws at the build's reading, after which nothing would unregister it.
     */
    @Test
    void aRunWhoseTickerThrowsAsItIsBuiltLeavesNoListenerOnItsLimiter() {
        TrapTicker ticker = new TrapTicker(time, "<init>");
        Limiter shared = limiter(2).ticker(ticker).build();
        List<LimitChangeListener> following = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> PoolEngine.<Integer>builder(shared, (index, task, lease, hooks) -> {
            throw new AssertionError("nothing may start");
        }).followLimit(listener -> {
            following.add(listener);
            return () -> following.remove(listener);
        }).build(Source.of(List.of(1, 2)), Sink.collecting(result -> { }),
                (item, ctx) -> CompletableFuture.completedFuture(item)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the run was built").isTrue();
            soft.assertThat(thrown).as("what the build threw").isSameAs(brokenClock);
            soft.assertThat(following).as("listeners left on the shared limiter").isEmpty();
        });
    }

    @Test
    void aPoolRunWhoseTickerThrowsAsItEndsStillCompletes() {
        TrapTicker ticker = new TrapTicker(time, "finish");
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(1, 2).withAlgorithm(FixedLimit.of(2))
                .withTime(ticker, scheduler).process((item, ctx) -> in100ms(item));
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the run ended").isTrue();
            soft.assertThat(thrown).as("what the run's end threw").isNull();
            soft.assertThat(run.isDone()).as("the run, complete").isTrue();
        });
        AdaptiveResult<Integer, Integer> r = run.join();
        assertThat(r.successes()).hasSize(2);
        assertThat(r.stats().elapsed()).as("without a reading at its end: measured to its start").isZero();
        assertThat(r.stats().limitFailures()).as("counted in the run's stats").isEqualTo(1);
        assertThat(run.limiter().inflight()).isZero();
    }

    /**
     * The only item's success raises the limit from 1 to 2, and the ticker throws as the run
     * reads it to follow that change: the change must still count (the limit the run reached,
     * the level of its last stretch), and the failure is the run's time source's, not a
     * listener's of the limiter.
     */
    @Test
    void aPoolRunWhoseTickerThrowsAsItFollowsALimitChangeKeepsTheChange() {
        TrapTicker ticker = new TrapTicker(time, "onChange");
        ticker.arm(() -> {
            throw brokenClock;
        });
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(1).withAlgorithm(new StepLimit(1, 1))
                .withTime(ticker, scheduler).process((item, ctx) -> in100ms(item));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        assertThat(thrown).as("what the limit change threw").isNull();
        assertThat(run.isDone()).as("the run, complete").isTrue();
        PoolStats stats = run.join().stats();
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the run followed the change").isTrue();
            soft.assertThat(stats.finalConcurrency()).as("the final limit").isEqualTo(2);
            soft.assertThat(stats.maxConcurrencyReached()).as("the highest limit the run reached").isEqualTo(2);
            soft.assertThat(stats.performanceData()).as("its stretches, the last at the new limit")
                    .extracting(ConcurrencySegment::concurrency).endsWith(2);
            soft.assertThat(stats.limitFailures()).as("counted in the run's stats").isEqualTo(1);
            soft.assertThat(run.limiter().stats().listenerFailures()).as("a listener's failure of the limiter")
                    .isZero();
        });
    }

    /**
     * A live snapshot reads the ticker for its "now"; it throws there. The snapshot answers as
     * of the run's last reading: the first item's success raised the limit from 1 to 2 at
     * 100 ms, so the stats end there, 50 ms before the snapshot, with the stretch at limit 1
     * closed and none open yet.
     */
    @Test
    void aPoolRunsSnapshotWhoseTickerThrowsAnswersAsOfTheRunsLastReading() {
        TrapTicker ticker = new TrapTicker(time, "snapshot");
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(1, 2, 3).withAlgorithm(new StepLimit(1, 1))
                .withTime(ticker, scheduler).process((item, ctx) -> in100ms(item));
        time.advance(Duration.ofMillis(150)); // the limit went to 2 at 100 ms; items 2 and 3 run
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<PoolStats> snapshot = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> snapshot.set(run.snapshot()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the snapshot was taken").isTrue();
            soft.assertThat(thrown).as("what snapshot() threw").isNull();
            PoolStats s = snapshot.get();
            soft.assertThat(s == null ? null : s.elapsed()).as("elapsed, to the limit's change at 100 ms")
                    .isEqualTo(Duration.ofMillis(100));
            soft.assertThat(s == null ? null : s.performanceData()).as("the stretches, to that change")
                    .containsExactly(new ConcurrencySegment(1, Duration.ofMillis(100)));
            soft.assertThat(s == null ? null : s.finalConcurrency()).as("the limit now").isEqualTo(2);
            soft.assertThat(s == null ? null : s.limitFailures()).as("counted, in the snapshot that read it")
                    .isEqualTo(1L);
        });
        time.advance(Duration.ofSeconds(1));
        PoolStats end = run.join().stats();
        assertThat(end.succeeded()).isEqualTo(3);
        assertThat(end.elapsed()).as("the final stats, read on time").isEqualTo(Duration.ofMillis(200));
        assertThat(end.limitFailures()).as("counted in the run's stats").isEqualTo(1);
    }

    @Test
    void aPoolRunWhoseDeadlineTimersCancelThrowsAsItEndsStillCompletes() {
        PoolRun<AdaptiveResult<Integer, Integer>> run = ItemPool.of(1, 2).withAlgorithm(FixedLimit.of(2))
                .withDeadline(Duration.ofMinutes(1)).withTime(time, scheduler).process((item, ctx) -> in100ms(item));
        scheduler.cancelThrows = brokenCancel;

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what the run's end threw").isNull();
            soft.assertThat(run.isDone()).as("the run, complete").isTrue();
        });
        scheduler.cancelThrows = null;
        time.advance(Duration.ofMinutes(2)); // the deadline fires, and finds the run ended
        AdaptiveResult<Integer, Integer> r = run.join();
        assertThat(r.successes()).hasSize(2);
        assertThat(r.stats().stopCause()).isEmpty();
        assertThat(r.stats().limitFailures()).as("counted in the run's stats").isEqualTo(1);
    }

    /** A task that answers after 10 ms of virtual time. */
    private CompletableFuture<Object> tenMillis() {
        CompletableFuture<Object> f = new CompletableFuture<>();
        time.schedule(() -> f.complete("ok"), Duration.ofMillis(10));
        return f;
    }

    @Test
    void aTickerThrowingAsASubmitRestartsAStoppedQueueRefusesThatTaskAndKeepsNothing() {
        TrapTicker ticker = new TrapTicker(time, "submit");
        ThrottledQueue q = ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).maxQueueSize(1)
                .ticker(ticker).scheduler(scheduler).build();
        q.stop();
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<CompletableFuture<Object>> submitted = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> submitted.set(q.submit(ctx -> CompletableFuture.completedFuture("x"))));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the submit restarted the queue").isTrue();
            soft.assertThat(thrown).as("what submit() threw").isNull();
            soft.assertThat(submitted.get() == null ? null : submitted.get().handle((v, e) -> e).getNow(null))
                    .as("its future's failure").isSameAs(brokenClock);
            soft.assertThat(q.state().status()).as("the queue, as it was").isEqualTo(QueueStatus.STOPPED);
            soft.assertThat(q.awaitIdle()).as("awaitIdle: nothing was accepted").isDone();
        });
        CompletableFuture<Object> next = q.submit(ctx -> CompletableFuture.completedFuture("y"));
        time.advance(Duration.ofSeconds(1));
        assertThat(next).as("the next submit, within maxQueueSize=1").isCompletedWithValue("y");
    }

    /**
     * The ticker throws as the queue is paused or stopped: the call throws it and nothing
     * changed, so the queue runs on and its rate goes on moving (a half-applied hold kept the
     * observation window, whose timer then fired into a held queue and left it open for good).
     */
    private void aTickerThrowingAsTheQueueIsHeld(String method, Consumer<ThrottledQueue> hold) {
        TrapTicker ticker = new TrapTicker(time, method);
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).maxRate(9).interval(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(scheduler).build();
        assertThat(q.rate()).isEqualTo(5);
        CompletableFuture<Object> first = q.submit(ctx -> tenMillis()); // opens the first window
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> hold.accept(q));
        QueueStatus after = q.state().status();
        time.advance(Duration.ofSeconds(2)); // the first window's interval is over
        q.resume();
        List<CompletableFuture<Object>> rest = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            rest.add(q.submit(ctx -> tenMillis()));
        }
        time.advance(Duration.ofMinutes(1));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw in " + method).isTrue();
            soft.assertThat(thrown).as("what " + method + "() threw").isSameAs(brokenClock);
            soft.assertThat(after).as("the queue's status after it").isEqualTo(QueueStatus.RUNNING);
            soft.assertThat(first).as("the first job").isCompletedWithValue("ok");
            soft.assertThat(rest).as("every later job").allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            soft.assertThat(q.state().rateIncreases()).as("rate increases, one per clean interval").isEqualTo(4);
            soft.assertThat(q.rate()).as("the rate").isEqualTo(9);
        });
    }

    @Test
    void aTickerThrowingAsTheQueueIsPausedReachesTheCallerWithNothingChanged() {
        aTickerThrowingAsTheQueueIsHeld("pause", ThrottledQueue::pause);
    }

    @Test
    void aTickerThrowingAsTheQueueIsStoppedReachesTheCallerWithNothingChanged() {
        aTickerThrowingAsTheQueueIsHeld("stop", ThrottledQueue::stop);
    }

    @Test
    void aTickerThrowingAsAQueuesObservationWindowEndsStillDecidesAndOpensTheNext() {
        TrapTicker ticker = new TrapTicker(time, "onWindowEnd");
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).maxRate(9).interval(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(scheduler).build();
        List<CompletableFuture<Object>> jobs = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            jobs.add(q.submit(ctx -> tenMillis()));
        }
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofMinutes(1)));
        time.advance(Duration.ofMinutes(1)); // on, if the throw stopped the virtual time

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the first window ended").isTrue();
            soft.assertThat(thrown).as("what the window's timer threw").isNull();
            soft.assertThat(jobs).as("every job").allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            soft.assertThat(q.state().rateIncreases()).as("rate increases, one per clean interval").isEqualTo(4);
            soft.assertThat(q.rate()).as("the rate").isEqualTo(9);
            soft.assertThat(q.state().limitFailures()).as("counted in the queue's state").isEqualTo(1);
        });
    }

    /**
     * With {@code SETTLED} timing, a window's decision waits for its last attempt. Here that
     * attempt's start does not happen: a job's first attempt fails, its retry (no backoff) is
     * granted a slot in the same window as the first attempt's slot is freed, and the job is
     * withdrawn before the retry runs, after the window's interval is over (as another thread
     * could; here from the {@code Retry} trace event, between the grant and the runner's call).
     * The retry's slot goes back unused, which leaves the window's decision due there, and the
     * ticker throws as it is read for it.
     */
    @Test
    void aTickerThrowingAsAnUnusedStartLeavesTheLastOfAWindowStillDecidesIt() {
        TrapTicker ticker = new TrapTicker(time, "unused");
        List<RateObservation> decided = new ArrayList<>();
        AtomicReference<CompletableFuture<Object>> job = new AtomicReference<>();
        ThrottledQueue q = ThrottledQueue.builder().minRate(1000).maxRate(2000).interval(Duration.ofSeconds(1))
                .adjustmentTiming(AdjustmentTiming.SETTLED).retries(1).retryBackoff(Backoff.constant(Duration.ZERO))
                .rateStrategy(o -> {
                    decided.add(o);
                    return RateStrategy.linear().decide(o);
                })
                .traceListener(event -> {
                    if (event instanceof TraceEvent.Retry) {
                        time.advance(Duration.ofSeconds(1)); // the window's interval is over
                        ticker.arm(() -> {
                            throw brokenClock;
                        });
                        job.get().cancel(false);
                    }
                })
                .ticker(ticker).scheduler(scheduler).build();
        job.set(q.submit(ctx -> {
            CompletableFuture<Object> f = new CompletableFuture<>();
            time.schedule(() -> f.completeExceptionally(new IllegalStateException("down")), Duration.ofMillis(10));
            return f;
        }));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofMillis(10)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the unused start was given back").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(job.get()).as("the withdrawn job").isCancelled();
            soft.assertThat(decided).as("the window's decision (starts, failures, when), at its end without a reading")
                    .extracting(RateObservation::started, RateObservation::failed, RateObservation::windowEndNanos)
                    .containsExactly(tuple(1, 1, Duration.ofSeconds(1).toNanos()));
            soft.assertThat(q.state().limitFailures()).as("counted in the queue's state").isEqualTo(1);
            soft.assertThat(q.limiter().stats().limitFailures()).as("counted as the limiter's gate's").isZero();
            soft.assertThat(q.limiter().inflight()).as("in flight").isZero();
        });
    }

    /**
     * The first window's decision backs off until 2 s; at 1.5 s the ticker throws as
     * {@code state()} reads it to tell whether the back-off still holds. The state answers:
     * without a reading, the back-off the queue has not seen end still holds, to its end.
     */
    @Test
    void aQueuesStateWhoseTickerThrowsShowsABackOffItHasNotSeenEndAsHolding() {
        TrapTicker ticker = new TrapTicker(time, "state");
        ThrottledQueue q = ThrottledQueue.builder().minRate(1).maxRate(9).interval(Duration.ofSeconds(1)).backOff(true)
                .rateStrategy(o -> new RateDecision(o.rate(), true)).ticker(ticker).scheduler(scheduler).build();
        CompletableFuture<Object> first = q.submit(ctx -> tenMillis());
        time.advance(Duration.ofMillis(1500));
        assertThat(q.state().holdUntilNanos()).as("read on time").hasValue(Duration.ofSeconds(2).toNanos());
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<QueueState> state = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> state.set(q.state()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the state was read").isTrue();
            soft.assertThat(thrown).as("what state() threw").isNull();
            QueueState s = state.get();
            soft.assertThat(s == null ? null : s.holdUntilNanos()).as("the back-off, to its end")
                    .isEqualTo(OptionalLong.of(Duration.ofSeconds(2).toNanos()));
            soft.assertThat(s == null ? null : s.limitFailures()).as("counted, in the state that read it")
                    .isEqualTo(1L);
            soft.assertThat(q.limiter().stats().limitFailures()).as("the limiter's own").isZero();
        });
        assertThat(first).isCompletedWithValue("ok");
        time.advance(Duration.ofSeconds(1));
        assertThat(q.state().holdUntilNanos()).as("read on time, after the back-off").isEmpty();
    }

    /**
     * A 429 answer at 10 ms opens the limiter's Retry-After pause until 5.01 s; at 1 s the ticker
     * throws as {@code state()} reads it. The pause is shown to its end, as the limiter's stats
     * show its whole length without a reading.
     */
    @Test
    void aQueuesStateWhoseTickerThrowsShowsAnOpenRetryAfterPauseToItsEnd() {
        TrapTicker ticker = new TrapTicker(time, "state");
        ThrottledQueue q = ThrottledQueue.builder().minRate(10).interval(Duration.ofSeconds(1))
                .ticker(ticker).scheduler(scheduler).build();
        CompletableFuture<Object> job = q.submit(ctx -> {
            CompletableFuture<Object> f = new CompletableFuture<>();
            time.schedule(() -> f.completeExceptionally(new RateLimitedException(Duration.ofSeconds(5))),
                    Duration.ofMillis(10));
            return f;
        });
        time.advance(Duration.ofSeconds(1));
        ticker.arm(() -> {
            throw brokenClock;
        });

        AtomicReference<QueueState> state = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> state.set(q.state()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the state was read").isTrue();
            soft.assertThat(thrown).as("what state() threw").isNull();
            QueueState s = state.get();
            soft.assertThat(s == null ? null : s.holdUntilNanos()).as("the pause, to its end")
                    .isEqualTo(OptionalLong.of(Duration.ofMillis(5010).toNanos()));
            soft.assertThat(s == null ? null : s.limitFailures()).as("counted, in the state that read it")
                    .isEqualTo(1L);
        });
        time.advance(Duration.ofMinutes(2)); // ten retries on the rate-limit budget, 5 s apart
        assertThat(job.handle((v, e) -> e).getNow(null)).as("the job, its rate-limit retries spent")
                .isInstanceOf(RateLimitedException.class);
    }

    /** A queue that retries once, after 100 ms, on {@code ticker}. */
    private ThrottledQueue retryingQueue(TrapTicker ticker) {
        return ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).retries(1)
                .retryBackoff(Backoff.constant(Duration.ofMillis(100))).ticker(ticker).scheduler(scheduler).build();
    }

    /** Fails its first attempt 10 ms after it starts; answers "retried" to the next, at once. */
    private CompletableFuture<Object> failsFirst(int attempt, List<Long> starts) {
        starts.add(time.nanoTime());
        if (attempt > 1) {
            return CompletableFuture.completedFuture("retried");
        }
        CompletableFuture<Object> f = new CompletableFuture<>();
        time.schedule(() -> f.completeExceptionally(new IllegalStateException("down")), Duration.ofMillis(10));
        return f;
    }

    /**
     * The first attempt fails at 10 ms; the ticker throws as the queue reads it to time the
     * retry's 100 ms backoff. The wait is armed by its delay, as the scheduler takes it, so the
     * retry still comes at 110 ms.
     */
    @Test
    void aTickerThrowingAsAQueuedRetrysBackoffBeginsStillRunsTheRetry() {
        TrapTicker ticker = new TrapTicker(time, "delayRetry");
        ThrottledQueue q = retryingQueue(ticker);
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<Object> job = q.submit(ctx -> failsFirst(ctx.attempt(), starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the backoff began").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(job.handle((v, e) -> e == null ? v : e).getNow(null)).as("the job's end")
                    .isEqualTo("retried");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, Duration.ofMillis(110).toNanos());
            QueueState s = q.state();
            soft.assertThat(s.retried()).as("retried").isEqualTo(1);
            soft.assertThat(s.started()).as("started").isEqualTo(2);
            soft.assertThat(s.limitFailures()).as("counted in the queue's state").isEqualTo(1);
            soft.assertThat(s.idle()).as("idle").isTrue();
        });
    }

    /**
     * As above, and the queue is paused at 60 ms, inside the backoff, and resumed at 1 s. The
     * wait has no reading of its start to measure what it has left from: the hold freezes its
     * whole delay, so the retry comes 100 ms after the resume, never before its backoff is over.
     */
    @Test
    void aRetrysBackoffBegunWithoutAReadingAndFrozenByAPauseWaitsItsWholeDelayAfterTheResume() {
        TrapTicker ticker = new TrapTicker(time, "delayRetry");
        ThrottledQueue q = retryingQueue(ticker);
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<Object> job = q.submit(ctx -> failsFirst(ctx.attempt(), starts));
        time.advance(Duration.ofMillis(60));
        q.pause();
        time.advance(Duration.ofMillis(940));
        q.resume();

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the backoff began").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(job.handle((v, e) -> e == null ? v : e).getNow(null)).as("the job's end")
                    .isEqualTo("retried");
            soft.assertThat(starts).as("its attempts' starts")
                    .containsExactly(0L, Duration.ofMillis(1100).toNanos());
            soft.assertThat(q.state().retried()).as("retried").isEqualTo(1);
            soft.assertThat(q.state().limitFailures()).as("counted in the queue's state").isEqualTo(1);
        });
    }

    /**
     * One job waits out a retry's backoff, another runs; both have timers (the retry's wait, the
     * observation window) whose cancel throws as the queue is aborted: every job still fails
     * with the abort, and the timers, firing later, find nothing to do.
     */
    @Test
    void anAbortOfAQueueWhoseTimersCancelsThrowStillEndsEveryJob() {
        ThrottledQueue q = ThrottledQueue.builder().minRate(1000).interval(Duration.ofSeconds(1)).retries(1)
                .retryBackoff(Backoff.constant(Duration.ofMinutes(1))).ticker(time).scheduler(scheduler).build();
        CompletableFuture<Object> retrying = q.submit(ctx -> ctx.attempt() == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("down"))
                : CompletableFuture.completedFuture("retried"));
        CompletableFuture<Object> running = q.submit(ctx -> new CompletableFuture<>());
        assertThat(q.state().delayedRetries()).isEqualTo(1);
        scheduler.cancelThrows = brokenCancel;

        Throwable thrown = catchThrowable(q::abort);

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what abort() threw").isNull();
            soft.assertThat(q.state().status()).as("the queue").isEqualTo(QueueStatus.ABORTED);
            soft.assertThat(retrying.handle((v, e) -> e).getNow(null)).as("the retrying job's failure")
                    .isInstanceOf(QueueAbortedException.class);
            soft.assertThat(running.handle((v, e) -> e).getNow(null)).as("the running job's failure")
                    .isInstanceOf(QueueAbortedException.class);
            soft.assertThat(q.awaitIdle()).as("awaitIdle").isDone();
            soft.assertThat(q.limiter().stats().limitFailures()).as("counted by its limiter: the pacing wake-up's")
                    .isEqualTo(1);
            soft.assertThat(q.state().limitFailures())
                    .as("counted in the queue's state: those and the queue's own, the window's and the retry's")
                    .isEqualTo(3);
        });
        scheduler.cancelThrows = null;
        time.advance(Duration.ofMinutes(2)); // the timers fire, and find nothing to do
        assertThat(q.limiter().inflight()).isZero();
    }

    /**
     * An acquisition queues with a wait timeout behind a held slot; the timer's cancel throws
     * as the release of the held slot grants it. It is granted all the same, and the timer,
     * which then fires, leaves it granted.
     */
    private void aWaitTimeoutWhoseCancelThrowsInTheGrant(Limiter.Builder builder) {
        Limiter limiter = builder.waitTimeout(Duration.ofSeconds(30)).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        CompletableFuture<Lease> next = limiter.acquire();
        scheduler.cancelThrows = brokenCancel;

        Throwable thrown = catchThrowable(() -> held.release(Outcome.SUCCESS));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what the release threw").isNull();
            soft.assertThat(queued).as("the acquisition whose timer's cancel threw").isCompleted();
            soft.assertThat(limiter.inflight()).as("in flight: its lease").isEqualTo(1);
            soft.assertThat(limiter.waiting()).as("waiting: the next one").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        scheduler.cancelThrows = null;
        // Its timer was not cancelled: it fires, and finds the acquisition granted.
        time.advance(Duration.ofSeconds(20));
        assertThat(queued).isCompleted();
        Lease lease = queued.join();
        assertThat(lease.isReleased()).isFalse();
        assertThat(limiter.inflight()).isEqualTo(1);
        lease.release(Outcome.SUCCESS);
        assertThat(next).as("the next one, granted at that release").isCompleted();
        next.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
        time.advance(Duration.ofMinutes(1));
        assertThat(limiter.tryAcquire()).as("a later acquisition").isPresent();
    }

    @Test
    void aWaitTimeoutWhoseCancelThrowsAsTheDrainGrantsStillGrantsAndItsTimerFiresHarmlessly() {
        aWaitTimeoutWhoseCancelThrowsInTheGrant(limiter(1));
    }

    @Test
    void throughAGateAWaitTimeoutWhoseCancelThrowsAsTheDrainGrantsStillGrantsAndItsTimerFiresHarmlessly() {
        aWaitTimeoutWhoseCancelThrowsInTheGrant(limiter(1).gate(new RuleGate()));
    }

    @Test
    void aCancelOfAQueuedAcquisitionWhoseTimerCancelThrowsStillWithdrawsIt() {
        Limiter limiter = limiter(1).waitTimeout(Duration.ofSeconds(30)).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        CompletableFuture<Lease> next = limiter.acquire();
        scheduler.cancelThrows = brokenCancel;

        boolean[] cancelled = new boolean[1];
        Throwable thrown = catchThrowable(() -> cancelled[0] = queued.cancel(false));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what cancel() threw").isNull();
            soft.assertThat(cancelled[0]).as("cancel() said it cancelled").isTrue();
            soft.assertThat(queued).as("the acquisition").isCancelled();
            soft.assertThat(limiter.waiting()).as("waiting: the next one").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        scheduler.cancelThrows = null;
        time.advance(Duration.ofSeconds(20)); // its timer fires, and finds it gone
        held.release(Outcome.SUCCESS);
        assertThat(next).as("the next one, granted the freed slot").isCompleted();
        next.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
    }

    @Test
    void anAbortWhoseTimerCancelsThrowFailsEveryQueuedAcquisition() {
        Limiter limiter = limiter(1).waitTimeout(Duration.ofSeconds(30)).build();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> first = limiter.acquire();
        CompletableFuture<Lease> second = limiter.acquire();
        scheduler.cancelThrows = brokenCancel;

        Throwable thrown = catchThrowable(limiter::abort);

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what abort() threw").isNull();
            soft.assertThat(first.handle((lease, error) -> error).getNow(null)).as("the first acquisition's failure")
                    .isInstanceOf(LimiterClosedException.class);
            soft.assertThat(second.handle((lease, error) -> error).getNow(null)).as("the second acquisition's failure")
                    .isInstanceOf(LimiterClosedException.class);
            soft.assertThat(limiter.waiting()).as("waiting").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(2);
        });
        scheduler.cancelThrows = null;
        time.advance(Duration.ofMinutes(1)); // their timers fire, and find them failed
        held.release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void aGateWakeUpWhoseCancelThrowsWhenTheGateChangesStillLetsTheDrainAskAgain() {
        RuleGate gate = new RuleGate();
        long notBefore = time.nanoTime() + Duration.ofSeconds(1).toNanos();
        gate.rule = now -> notBefore;
        Limiter limiter = limiter(1).gate(gate).build();
        CompletableFuture<Lease> queued = limiter.acquire(); // the drain arms a wake-up for the gate's answer
        assertThat(queued).isNotDone();
        gate.rule = now -> now;
        scheduler.cancelThrows = brokenCancel;

        Throwable thrown = catchThrowable(limiter::gateChanged); // drops the wake-up and asks afresh

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what gateChanged() threw").isNull();
            soft.assertThat(queued).as("admitted when asked afresh").isCompleted();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
        scheduler.cancelThrows = null;
        time.advance(Duration.ofSeconds(2)); // the wake-up fires: one more pass, nothing to grant
        queued.join().release(Outcome.SUCCESS);
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.acquire()).as("a later acquisition").isCompleted();
    }

    // ---- an executor's attempts: the engine under the pool, the queue, Camel and Vert.x ----

    /** An executor retrying by {@code policy} on a limiter of one slot on {@code ticker}, tracing to {@code events} if given. */
    private AdaptiveExecutor executor(TrapTicker ticker, List<TraceEvent> events, RetryPolicy policy) {
        Limiter.Builder b = limiter(1).ticker(ticker);
        if (events != null) {
            b.traceListener(events::add);
        }
        return AdaptiveExecutor.builder(b.build()).retryPolicy(policy).build();
    }

    /** Fails its first attempt with "down" 10 ms after it starts, and answers "ok" to the next 10 ms after it starts. */
    private CompletableFuture<String> downThenOk(TaskContext ctx, List<Long> starts) {
        starts.add(time.nanoTime());
        return Replies.after(time, Duration.ofMillis(10), ctx.attempt() == 1 ? new IllegalStateException("down") : "ok");
    }

    /**
     * An attempt ends with a listener for {@code TaskEnd}, and the ticker throws as the end is
     * read for that event, before the lease is released: the slot is freed and the result
     * completes all the same; only the event, which needs that reading, is dropped.
     */
    @Test
    void aTickerThrowingAsAnAttemptsEndIsReadForItsTraceStillFreesTheSlotAndCompletesTheResult() {
        TrapTicker ticker = new TrapTicker(time, "end");
        List<TraceEvent> events = new ArrayList<>();
        AdaptiveExecutor ex = executor(ticker, events, RetryPolicy.none());
        Limiter limiter = ex.limiter();
        CompletableFuture<String> result = ex.execute(ctx -> Replies.after(time, Duration.ofMillis(10), "ok"));
        ticker.arm(() -> {
            throw brokenClock;
        });

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofMillis(10)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the end was read").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(result).as("the result").isCompletedWithValue("ok");
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().successes()).as("the outcome, counted").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            soft.assertThat(events).filteredOn(TraceEvent.TaskEnd.class::isInstance).as("its TaskEnd, dropped")
                    .isEmpty();
        });
        CompletableFuture<String> later = ex.execute(ctx -> Replies.after(time, Duration.ofMillis(10), "later"));
        time.advance(Duration.ofMillis(10));
        assertThat(later).as("a later task, the slot free").isCompletedWithValue("later");
        assertThat(events).filteredOn(TraceEvent.TaskEnd.class::isInstance).as("the later task's TaskEnd").hasSize(1);
        assertThat(limiter.inflight()).isZero();
    }

    /** One retry, without a backoff: it asks the retry budget as its attempt ends, before the release. */
    private static RetryPolicy oneRetryAtOnce() {
        return RetryPolicy.builder().retries(1).constant().minDelay(Duration.ZERO).noJitter().build();
    }

    /** One retry, after 100 ms: it asks the retry budget when the backoff is over. */
    private static RetryPolicy oneRetryAfter100Ms() {
        return RetryPolicy.builder().retries(1).constant().minDelay(Duration.ofMillis(100)).noJitter().build();
    }

    /**
     * The first attempt fails at 10 ms, and its retry, without a backoff, asks the retry budget
     * as the attempt ends, before its release; the ticker throws there. The budget is asked as
     * of the latest reading the execution has, the attempt's start, and grants: the slot is
     * freed and the retry runs at once.
     */
    @Test
    void aTickerThrowingAsARetryWithoutABackoffAsksTheBudgetStillFreesTheSlotAndRetries() {
        TrapTicker ticker = new TrapTicker(time, "plan");
        AdaptiveExecutor ex = executor(ticker, null, oneRetryAtOnce());
        Limiter limiter = ex.limiter();
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the budget was asked").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(result.handle((v, e) -> e == null ? v : e).getNow(null)).as("the result").isEqualTo("ok");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, Duration.ofMillis(10).toNanos());
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().errorRetries()).as("the retry, counted").isEqualTo(1);
            soft.assertThat(limiter.stats().retriesRefused()).as("refused").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
    }

    /**
     * As above, with a budget that refuses every retry: asked without a reading, it still
     * refuses. The item ends with the refusal, its slot freed; the refusal is counted, and only
     * its {@code RetryRefused} event, which needs the reading, is dropped.
     */
    @Test
    void aBudgetAskedWithoutAReadingStillRefusesWhatItHasNoRoomFor() {
        TrapTicker ticker = new TrapTicker(time, "plan");
        List<TraceEvent> events = new ArrayList<>();
        Limiter limiter = limiter(1).ticker(ticker).traceListener(events::add)
                .retryBudget(new RetryBudget(0, 0, Duration.ofSeconds(10))).build();
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(oneRetryAtOnce()).build();
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the budget was asked").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            Throwable end = result.handle((v, e) -> e).getNow(null);
            soft.assertThat(end).as("the result's failure").isInstanceOf(RetryBudgetExhaustedException.class);
            soft.assertThat(end == null ? null : end.getCause()).as("its cause").hasMessage("down");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L);
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().errorRetries()).as("retries").isZero();
            soft.assertThat(limiter.stats().retriesRefused()).as("the refusal, counted").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            soft.assertThat(events).filteredOn(TraceEvent.RetryRefused.class::isInstance).as("its RetryRefused, dropped")
                    .isEmpty();
        });
    }

    /**
     * The first attempt fails at 10 ms, and its retry's 100 ms backoff is over at 110 ms, where
     * it asks the retry budget, on the scheduler's thread; the ticker throws there. The budget
     * is asked as of the attempt's start, and grants: the retry runs at 110 ms.
     */
    @Test
    void aTickerThrowingAsARetryAsksTheBudgetAtTheEndOfItsBackoffStillRetries() {
        TrapTicker ticker = new TrapTicker(time, "retryWhenAllowed");
        AdaptiveExecutor ex = executor(ticker, null, oneRetryAfter100Ms());
        Limiter limiter = ex.limiter();
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the budget was asked").isTrue();
            soft.assertThat(thrown).as("what the scheduler's thread got").isNull();
            soft.assertThat(result.handle((v, e) -> e == null ? v : e).getNow(null)).as("the result").isEqualTo("ok");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, Duration.ofMillis(110).toNanos());
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().retriesRefused()).as("refused").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
        });
    }

    /**
     * The first attempt fails at 10 ms, and its retry, after 100 ms, is traced as its attempt
     * ends, after the release; the ticker throws as the event's time is read. The retry is made
     * all the same, and comes at 110 ms; only its {@code Retry} event, which needs that
     * reading, is dropped.
     */
    @Test
    void aTickerThrowingAsARetryIsTracedStillRetries() {
        TrapTicker ticker = new TrapTicker(time, "act");
        List<TraceEvent> events = new ArrayList<>();
        AdaptiveExecutor ex = executor(ticker, events, oneRetryAfter100Ms());
        Limiter limiter = ex.limiter();
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("the ticker threw as the retry was traced").isTrue();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(result.handle((v, e) -> e == null ? v : e).getNow(null)).as("the result").isEqualTo("ok");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, Duration.ofMillis(110).toNanos());
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().errorRetries()).as("the retry, counted").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(1);
            soft.assertThat(events).filteredOn(TraceEvent.Retry.class::isInstance).as("its Retry, dropped").isEmpty();
            soft.assertThat(events).filteredOn(TraceEvent.TaskEnd.class::isInstance).as("both attempts' TaskEnd")
                    .hasSize(2);
        });
    }

    /**
     * As above, without a listener for the {@code Retry} event: the ticker is not read for it, so
     * its throwing there cannot touch the retry.
     */
    @Test
    void aRetryWithoutAListenerForItsEventDoesNotReadTheTicker() {
        TrapTicker ticker = new TrapTicker(time, "act");
        AdaptiveExecutor ex = executor(ticker, null, oneRetryAfter100Ms());
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("a reading made for the retry's event").isFalse();
            soft.assertThat(thrown).as("what the attempt's end threw").isNull();
            soft.assertThat(result.handle((v, e) -> e == null ? v : e).getNow(null)).as("the result").isEqualTo("ok");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, Duration.ofMillis(110).toNanos());
            soft.assertThat(ex.limiter().stats().limitFailures()).as("counted").isZero();
        });
    }

    /**
     * Under {@link RetryBudget#unlimited()}, which refuses nothing whatever the time, a retry
     * asks it nothing: no reading is made for it, so a ticker that throws there cannot touch the
     * retry, nor count a failure for a reading nothing needed.
     */
    private void aRetryUnderTheUnlimitedBudgetReadsNoTimeForIt(RetryPolicy policy, long retryStart) {
        TrapTicker ticker = new TrapTicker(time, "askBudget");
        Limiter limiter = limiter(1).ticker(ticker).retryBudget(RetryBudget.unlimited()).build();
        AdaptiveExecutor ex = AdaptiveExecutor.builder(limiter).retryPolicy(policy).build();
        List<Long> starts = new ArrayList<>();
        ticker.arm(() -> {
            throw brokenClock;
        });
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(ticker.sprung()).as("a reading made to ask the unlimited budget").isFalse();
            soft.assertThat(thrown).as("what the attempt's end or the scheduler's thread got").isNull();
            soft.assertThat(result.handle((v, e) -> e == null ? v : e).getNow(null)).as("the result").isEqualTo("ok");
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L, retryStart);
            soft.assertThat(limiter.stats().errorRetries()).as("the retry, counted").isEqualTo(1);
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isZero();
        });
    }

    @Test
    void aRetryWithoutABackoffUnderTheUnlimitedBudgetReadsNoTimeForIt() {
        aRetryUnderTheUnlimitedBudgetReadsNoTimeForIt(oneRetryAtOnce(), Duration.ofMillis(10).toNanos());
    }

    @Test
    void aRetryAfterABackoffUnderTheUnlimitedBudgetReadsNoTimeForIt() {
        aRetryUnderTheUnlimitedBudgetReadsNoTimeForIt(oneRetryAfter100Ms(), Duration.ofMillis(110).toNanos());
    }

    /**
     * The ticker breaks for good while the first attempt runs; it fails at 10 ms, with a trace
     * listener and one retry after 100 ms. Every reading from then on throws: the attempt's end
     * for its {@code TaskEnd}, its release, its {@code Retry} event, the budget's at 110 ms, and
     * the retry's grant, which fails the retry's acquisition. The execution ends with what the
     * ticker threw, nothing in flight, each throw counted.
     */
    @Test
    void anExecutionWhoseTickerBreaksForGoodEndsWithWhatItThrewAndKeepsNoSlot() {
        TrapTicker ticker = new TrapTicker(time, "none of the engine's methods");
        List<TraceEvent> events = new ArrayList<>();
        AdaptiveExecutor ex = executor(ticker, events, oneRetryAfter100Ms());
        Limiter limiter = ex.limiter();
        List<Long> starts = new ArrayList<>();
        CompletableFuture<String> result = ex.execute(ctx -> downThenOk(ctx, starts));
        ticker.broken = brokenClock;

        Throwable thrown = catchThrowable(() -> time.advance(Duration.ofSeconds(1)));

        ticker.broken = null;
        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what the attempt's end or the scheduler's thread got").isNull();
            soft.assertThat(result.handle((v, e) -> e).getNow(null)).as("the result's failure").isSameAs(brokenClock);
            soft.assertThat(starts).as("its attempts' starts").containsExactly(0L);
            soft.assertThat(limiter.inflight()).as("in flight").isZero();
            soft.assertThat(limiter.stats().limitFailures()).as("counted").isEqualTo(5);
        });
        CompletableFuture<String> later = ex.execute(ctx -> Replies.after(time, Duration.ofMillis(10), "later"));
        time.advance(Duration.ofMillis(10));
        assertThat(later).as("a later task, the ticker mended").isCompletedWithValue("later");
        assertThat(limiter.inflight()).isZero();
    }
}
