package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Sample;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LimiterTest {

    private final VirtualTime time = new VirtualTime();

    private Limiter fixed(int n) {
        return Limiter.builder().limit(FixedLimit.of(n)).time(time).build();
    }

    @Test
    void tryAcquireShedsWhenFull() {
        Limiter limiter = fixed(2);
        Lease a = limiter.tryAcquire().orElseThrow();
        Lease b = limiter.tryAcquire().orElseThrow();
        assertThat(limiter.tryAcquire()).isEmpty();
        assertThat(limiter.inflight()).isEqualTo(2);
        assertThat(a.release()).isTrue();
        assertThat(limiter.tryAcquire()).isPresent();
        b.release();
    }

    @Test
    void leaseReleasedTwiceCountsOnce() {
        Limiter limiter = fixed(2);
        Lease a = limiter.tryAcquire().orElseThrow();
        limiter.tryAcquire().orElseThrow();
        assertThat(a.release(Outcome.DROPPED)).isTrue();
        assertThat(a.release(Outcome.DROPPED)).isFalse();
        assertThat(a.release()).isFalse();
        assertThat(limiter.inflight()).isEqualTo(1);
        assertThat(limiter.stats().congestionEvents()).isEqualTo(1);
    }

    @Test
    void freedSlotGoesToWaitersInArrivalOrder() {
        Limiter limiter = fixed(1);
        Lease first = limiter.acquire().join();
        List<Integer> order = new ArrayList<>();
        List<CompletableFuture<Lease>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            CompletableFuture<Lease> f = limiter.acquire();
            f.thenRun(() -> order.add(id));
            queued.add(f);
        }
        assertThat(limiter.waiting()).isEqualTo(3);
        // A shedding caller may not barge past the queue.
        assertThat(limiter.tryAcquire()).isEmpty();
        first.release();
        assertThat(order).containsExactly(0);
        queued.get(0).join().release();
        queued.get(1).join().release();
        assertThat(order).containsExactly(0, 1, 2);
        queued.get(2).join().release();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
    }

    @Test
    void rateLimitedReleasePausesDispatchUntilExactlyRetryAfter() {
        List<TraceEvent> events = new ArrayList<>();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(3)).time(time).traceListener(events::add).build();
        Lease a = limiter.acquire().join();
        time.advance(Duration.ofMillis(10));
        a.release(Outcome.rateLimited(Duration.ofSeconds(1)));
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(limiter.tryAcquire()).isEmpty();
        CompletableFuture<Lease> waiter = limiter.acquire();
        time.advance(Duration.ofMillis(999));
        assertThat(waiter).isNotDone();
        assertThat(limiter.tryAcquire()).isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(waiter).isCompleted();
        assertThat(waiter.join().startNanos()).isEqualTo(Duration.ofMillis(1010).toNanos());
        assertThat(limiter.isRatePaused()).isFalse();
        assertThat(limiter.stats().rateLimitEvents()).isEqualTo(1);
        assertThat(events).filteredOn(e -> e instanceof TraceEvent.RatePause)
                .singleElement()
                .satisfies(e -> assertThat(((TraceEvent.RatePause) e).untilNanos())
                        .isEqualTo(Duration.ofMillis(1010).toNanos()));
    }

    @Test
    void laterPauseExtendsEarlierOneAndShorterDoesNotShortenIt() {
        Limiter limiter = fixed(3);
        Lease a = limiter.acquire().join();
        Lease b = limiter.acquire().join();
        Lease c = limiter.acquire().join();
        a.release(Outcome.rateLimited(Duration.ofSeconds(2)));
        b.release(Outcome.rateLimited(Duration.ofMillis(500)));
        time.advance(Duration.ofSeconds(1));
        c.release(Outcome.rateLimited(Duration.ofSeconds(3)));
        CompletableFuture<Lease> waiter = limiter.acquire();
        time.advance(Duration.ofMillis(2999));
        assertThat(waiter).isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(waiter).isCompleted();
        assertThat(time.elapsed()).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void hostileRetryAfterIsCappedByMaxRetryAfter() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .maxRetryAfter(Duration.ofSeconds(30)).build();
        limiter.acquire().join().release(Outcome.rateLimited(Duration.ofSeconds(1_000_000_000_000L)));
        CompletableFuture<Lease> waiter = limiter.acquire();
        time.advance(Duration.ofSeconds(30));
        assertThat(waiter).isCompleted();
    }

    @Test
    void pauseHoldsWaitersAndResumeServesThem() {
        Limiter limiter = fixed(2);
        limiter.pause();
        assertThat(limiter.state()).isEqualTo(LimiterState.PAUSED);
        assertThat(limiter.tryAcquire()).isEmpty();
        CompletableFuture<Lease> w = limiter.acquire();
        time.runUntilIdle();
        assertThat(w).isNotDone();
        limiter.resume();
        assertThat(w).isCompleted();
        assertThat(limiter.state()).isEqualTo(LimiterState.RUNNING);
    }

    @Test
    void stopRefusesNewcomersButDrainsQueuedWaiters() {
        Limiter limiter = fixed(1);
        Lease held = limiter.acquire().join();
        CompletableFuture<Lease> queued = limiter.acquire();
        limiter.stop();
        assertThat(limiter.acquire()).failsWithin(Duration.ZERO)
                .withThrowableOfType(Exception.class).havingCause().isInstanceOf(LimiterClosedException.class)
                .withMessageContaining("stopped");
        assertThat(limiter.tryAcquire()).isEmpty();
        held.release();
        assertThat(queued).isCompleted();
        queued.join().release();
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void abortFailsQueuedWaitersAndLetsHeldLeasesRelease() {
        Limiter limiter = fixed(1);
        Lease held = limiter.acquire().join();
        CompletableFuture<Lease> queued = limiter.acquire();
        limiter.abort();
        assertThat(queued).isCompletedExceptionally();
        assertThat(limiter.waiting()).isZero();
        assertThat(held.release()).isTrue();
        assertThat(limiter.inflight()).isZero();
        limiter.resume();
        assertThat(limiter.state()).isEqualTo(LimiterState.ABORTED);
    }

    @Test
    void boundedQueueRejectsWithClearMessage() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).maxQueueSize(1).build();
        limiter.acquire().join();
        limiter.acquire();
        assertThatThrownBy(() -> limiter.acquire().join())
                .hasCauseInstanceOf(RejectedException.class)
                .hasMessageContaining("maxQueueSize=1");
    }

    @Test
    void waitTimeoutFailsTheWaiterAndFreesItsPlace() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time)
                .waitTimeout(Duration.ofSeconds(2)).build();
        Lease held = limiter.acquire().join();
        CompletableFuture<Lease> w = limiter.acquire();
        time.advance(Duration.ofMillis(1999));
        assertThat(w).isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(w).isCompletedExceptionally();
        assertThatThrownBy(w::join).hasCauseInstanceOf(AcquireTimeoutException.class);
        assertThat(limiter.waiting()).isZero();
        held.release();
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void cancelledWaiterDoesNotLeakTheSlot() {
        Limiter limiter = fixed(1);
        Lease held = limiter.acquire().join();
        CompletableFuture<Lease> w = limiter.acquire();
        w.cancel(false);
        assertThat(limiter.waiting()).isZero();
        held.release();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.tryAcquire()).isPresent();
    }

    @Test
    void throwingListenersAreCountedAndIgnored() {
        Limiter limiter = Limiter.builder().limit(new StepLimit()).time(time)
                .traceListener(e -> {
                    throw new IllegalStateException("listener bug");
                })
                .limitChangeListener((from, to) -> {
                    throw new IllegalStateException("listener bug");
                })
                .build();
        limiter.acquire().join().release();
        assertThat(limiter.limit()).isEqualTo(2);
        assertThat(limiter.stats().listenerFailures()).isGreaterThanOrEqualTo(2);
        assertThat(limiter.inflight()).isZero();
    }

    /**
     * The fleet's hints: a move of the local limit is told even while a ceiling binds (the
     * effective limit does not move), and a waiter only when none waited before.
     */
    @Test
    void localLimitAndQueueListenersAreToldOfMovesAndOfTheFirstWaiterOnly() {
        Limiter limiter = Limiter.builder().limit(new StepLimit()).time(time).build();
        List<String> told = new ArrayList<>();
        LimitChangeListener moved = (from, to) -> told.add(from + "->" + to);
        Runnable waits = () -> told.add("waits");
        limiter.addLocalLimitListener(moved);
        limiter.addQueueListener(waits);
        limiter.ceiling(1);
        Lease first = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> second = limiter.acquire();
        CompletableFuture<Lease> third = limiter.acquire(); // a second waiter: nothing new
        first.release(Outcome.SUCCESS); // local 1 -> 2, effective still 1
        assertThat(limiter.limit()).isEqualTo(1);
        assertThat(told).containsExactly("waits", "1->2");
        second.join().release(Outcome.SUCCESS);
        assertThat(limiter.waiting()).isZero();
        CompletableFuture<Lease> fourth = limiter.acquire(); // the queue starts again
        assertThat(told).containsExactly("waits", "1->2", "2->3", "waits");
        assertThat(limiter.removeLocalLimitListener(moved)).isTrue();
        assertThat(limiter.removeQueueListener(waits)).isTrue();
        assertThat(limiter.removeQueueListener(waits)).isFalse();
        limiter.addQueueListener(() -> {
            throw new IllegalStateException("listener bug");
        });
        third.join().release(Outcome.SUCCESS);
        limiter.acquire(); // told a throwing listener: counted, the call still waits its turn
        assertThat(told).hasSize(4);
        assertThat(limiter.stats().listenerFailures()).isEqualTo(1);
        assertThat(limiter.waiting()).isEqualTo(1);
        fourth.join().release(Outcome.SUCCESS);
        assertThat(limiter.waiting()).isZero();
    }

    /**
     * A leaving fleet member's cue: told as a release, or a lease given back unused, leaves no
     * call in flight, and not while another is still in flight.
     */
    @Test
    void idleListenersAreToldAsTheLastCallInFlightEnds() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(2)).time(time).build();
        List<Integer> told = new ArrayList<>();
        Runnable idle = () -> told.add(limiter.inflight());
        limiter.addIdleListener(idle);
        Lease first = limiter.tryAcquire().orElseThrow();
        Lease second = limiter.tryAcquire().orElseThrow();
        first.release(Outcome.SUCCESS);
        assertThat(told).as("one still in flight").isEmpty();
        second.release(Outcome.DROPPED);
        assertThat(told).as("the last one released").containsExactly(0);
        ((LeaseImpl) limiter.tryAcquire().orElseThrow()).giveBack(); // as an executor gives back a lease it did not use
        assertThat(told).as("the last one given back").containsExactly(0, 0);

        assertThat(limiter.removeIdleListener(idle)).isTrue();
        assertThat(limiter.removeIdleListener(idle)).isFalse();
        limiter.addIdleListener(() -> {
            throw new IllegalStateException("listener bug");
        });
        limiter.tryAcquire().orElseThrow().release(Outcome.SUCCESS); // counted, the slot freed all the same
        assertThat(told).hasSize(2);
        assertThat(limiter.stats().listenerFailures()).isEqualTo(1);
        assertThat(limiter.inflight()).isZero();
    }

    @Test
    void raisedLimitWakesWaiters() {
        Limiter limiter = Limiter.builder().limit(new StepLimit()).time(time).build();
        Lease a = limiter.acquire().join();
        CompletableFuture<Lease> b = limiter.acquire();
        CompletableFuture<Lease> c = limiter.acquire();
        assertThat(b).isNotDone();
        a.release(); // limit 1 -> 2, then b and c each get a slot
        assertThat(b).isCompleted();
        assertThat(c).isCompleted();
        assertThat(limiter.inflight()).isEqualTo(2);
    }

    @Test
    void ceilingBoundsTheLimit() {
        Limiter limiter = fixed(10);
        limiter.ceiling(3);
        assertThat(limiter.limit()).isEqualTo(3);
        assertThat(limiter.localLimit()).isEqualTo(10);
        for (int i = 0; i < 3; i++) {
            limiter.tryAcquire().orElseThrow();
        }
        assertThat(limiter.tryAcquire()).isEmpty();
        assertThat(limiter.ceiling()).isEqualTo(3);
        assertThatThrownBy(() -> limiter.ceiling(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ceiling must be >= 0: -1");
    }

    @Test
    void ceilingOfZeroAdmitsNothingAndKeepsLeasesAlreadyGranted() {
        Limiter limiter = fixed(5);
        Lease held = limiter.tryAcquire().orElseThrow();
        limiter.ceiling(0);
        assertThat(limiter.limit()).isZero();
        assertThat(limiter.tryAcquire()).isEmpty();
        CompletableFuture<Lease> waiter = limiter.acquire();
        assertThat(held.release()).isTrue();
        assertThat(waiter).isNotDone();
        limiter.ceiling(Integer.MAX_VALUE);
        assertThat(waiter).isCompleted();
        assertThat(limiter.limit()).isEqualTo(5);
    }

    @Test
    void ratePauseListenersAddedAtRunTimeSeeEveryPauseUntilRemoved() {
        Limiter limiter = fixed(3);
        List<TraceEvent.RatePause> seen = new ArrayList<>();
        java.util.function.Consumer<TraceEvent.RatePause> listener = seen::add;
        limiter.addRatePauseListener(listener);
        limiter.addRatePauseListener(e -> {
            throw new IllegalStateException("listener bug");
        });
        limiter.acquire().join().release(Outcome.rateLimited(Duration.ofSeconds(2)));
        limiter.pauseFor(Duration.ofSeconds(3));
        limiter.pauseUntil(Duration.ofSeconds(1).toNanos()); // covered by the open pause: no event
        assertThat(seen).extracting(TraceEvent.RatePause::untilNanos)
                .containsExactly(Duration.ofSeconds(2).toNanos(), Duration.ofSeconds(3).toNanos());
        assertThat(limiter.stats().listenerFailures()).isEqualTo(2);
        assertThat(limiter.removeRatePauseListener(listener)).isTrue();
        assertThat(limiter.removeRatePauseListener(listener)).isFalse();
        limiter.pauseFor(Duration.ofSeconds(9));
        assertThat(seen).hasSize(2);
    }

    @Test
    void optionsAreValidatedWithTheirNameAndValue() {
        assertThatThrownBy(() -> Limiter.builder().maxQueueSize(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxQueueSize must be >= 0: -1");
        assertThatThrownBy(() -> Limiter.builder().waitTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitTimeout").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> Limiter.builder().maxRetryAfter(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxRetryAfter").hasMessageContaining("-1");
    }

    @Test
    void latencyOffFeedsTheAlgorithmAFlatRtt() {
        List<Long> rtts = new ArrayList<>();
        Limit recording = new StepLimit() {
            @Override
            public LimitState update(LimitState state, Sample sample) {
                rtts.add(sample.rttNanos());
                return state;
            }
        };
        Limiter limiter = Limiter.builder().limit(recording).time(time).adapt(Adapt.nothing()).build();
        Lease a = limiter.acquire().join();
        time.advance(Duration.ofMillis(10));
        a.release();
        Lease b = limiter.acquire().join();
        time.advance(Duration.ofMillis(500));
        b.release();
        b.release(Outcome.DROPPED);
        Lease c = limiter.acquire().join();
        c.release(Outcome.DROPPED); // errors off: not folded
        assertThat(rtts).containsExactly(Duration.ofMillis(10).toNanos(), Duration.ofMillis(10).toNanos());
        assertThat(limiter.stats().congestionEvents()).isEqualTo(1);
    }
}
