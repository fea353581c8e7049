package dev.adaptive;

import dev.adaptive.internal.SlotReturn;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A queued acquisition withdrawn (cancelled, or failed by a timeout) at the instant the drain
 * grants it a slot, as another thread may: the drain has counted the slot and not yet handed
 * it over. Modelled deterministically by a ticker read inside that grant. The withdrawal ends
 * the future at once, as the {@link java.util.concurrent.Future} contract asks, while the slot
 * is still counted; the drain gives it back a moment later, and whoever asked to hear of that
 * ({@link SlotReturn}: a pool run that withdrew its acquisition and ends once no slot of its
 * own is counted) hears it then, not before.
 */
class LimiterGrantRaceTest {

    private final VirtualTime time = new VirtualTime();
    /** Springs inside the grant: the drain reads it once it has taken the acquisition and counted its slot. */
    private final TrapTicker inGrant = new TrapTicker(time, "drainPass");
    /** What the gate of {@link #gatedLimiter()} runs when told of a start, between the take and the hand-over. */
    private final AtomicReference<Runnable> inGatedGrant = new AtomicReference<>();

    private Limiter limiter() {
        return Limiter.builder().limit(FixedLimit.of(1)).ticker(inGrant).scheduler(time).build();
    }

    /**
     * A limiter with an admission gate, which grants through its gated pass: the gate hears of
     * each start between the take and the hand-over, and the withdrawal lands there.
     */
    private Limiter gatedLimiter() {
        AdmissionGate gate = new AdmissionGate() {
            @Override
            public long admitAt(long nowNanos, int inflight) {
                return nowNanos;
            }

            @Override
            public Object started(Lease lease) {
                Runnable r = inGatedGrant.getAndSet(null);
                if (r != null) {
                    r.run();
                }
                return null;
            }

            @Override
            public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
            }
        };
        return Limiter.builder().limit(FixedLimit.of(1)).ticker(time).scheduler(time).gate(gate).build();
    }

    /** What a withdrawal inside the grant saw, right after it returned, and what its slot-back action saw. */
    private static final class Seen {
        boolean ranInTheGrant;
        boolean withdrew;
        boolean doneAtOnce;
        boolean cancelledAtOnce;
        boolean failedAtOnce;
        int inflightAtWithdrawal = -1;
        int slotBackRanBeforeTheGrantEnded;
        final List<Integer> inflightAtSlotBack = new ArrayList<>();
    }

    /**
     * Queues one acquisition behind a held slot, withdraws it as the slot is granted to it,
     * asks to hear when that slot is back, and checks that the slot is free for the next one.
     */
    private Seen withdrawnAsGranted(Limiter limiter, Consumer<Runnable> inItsGrant,
            Predicate<CompletableFuture<Lease>> withdrawal) {
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        assertThat(queued).isInstanceOf(SlotReturn.class);
        Seen seen = new Seen();
        inItsGrant.accept(() -> {
            seen.ranInTheGrant = true;
            seen.withdrew = withdrawal.test(queued);
            // The Future contract: once cancel (or completeExceptionally) has returned true,
            // the future is done, and cancelled if it was a cancel.
            seen.doneAtOnce = queued.isDone();
            seen.cancelledAtOnce = queued.isCancelled();
            seen.failedAtOnce = queued.isCompletedExceptionally();
            seen.inflightAtWithdrawal = limiter.inflight();
            ((SlotReturn) queued).whenSlotBack(() -> seen.inflightAtSlotBack.add(limiter.inflight()));
            seen.slotBackRanBeforeTheGrantEnded = seen.inflightAtSlotBack.size();
        });

        held.release(Outcome.SUCCESS); // the drain grants the freed slot to the queued acquisition

        assertThat(seen.ranInTheGrant).as("withdrawn inside the grant").isTrue();
        assertThat(seen.withdrew).as("the withdrawal said it withdrew").isTrue();
        assertThat(seen.doneAtOnce).as("done as soon as the withdrawal returned").isTrue();
        assertThat(seen.failedAtOnce).as("failed as soon as the withdrawal returned").isTrue();
        assertThat(seen.inflightAtWithdrawal).as("the drain still counts the slot it was granting").isEqualTo(1);
        assertThat(seen.slotBackRanBeforeTheGrantEnded).as("slot-back actions run while the slot was counted").isZero();
        assertThat(seen.inflightAtSlotBack).as("in flight when told the slot is back, once").containsExactly(0);
        assertThat(queued).isCompletedExceptionally();
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
        // The slot is free for the next one.
        assertThat(limiter.tryAcquire()).isPresent();
        return seen;
    }

    @Test
    void aCancelAsTheSlotIsGrantedCancelsAtOnceAndTellsOfTheSlotOnlyOnceItIsBack() {
        Seen seen = withdrawnAsGranted(limiter(), inGrant::arm, f -> f.cancel(false));
        assertThat(seen.cancelledAtOnce).as("cancelled as soon as cancel returned true").isTrue();
    }

    @Test
    void throughAGateACancelAsTheSlotIsGrantedCancelsAtOnceAndTellsOfTheSlotOnlyOnceItIsBack() {
        Seen seen = withdrawnAsGranted(gatedLimiter(), inGatedGrant::set, f -> f.cancel(false));
        assertThat(seen.cancelledAtOnce).as("cancelled as soon as cancel returned true").isTrue();
    }

    @Test
    void aFailureAsTheSlotIsGrantedFailsAtOnceAndTellsOfTheSlotOnlyOnceItIsBack() {
        AcquireTimeoutException timeout = new AcquireTimeoutException("no slot in time");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Seen seen = withdrawnAsGranted(limiter(), inGrant::arm, f -> {
            boolean failed = f.completeExceptionally(timeout);
            f.whenComplete((lease, error) -> failure.set(error));
            return failed;
        });
        assertThat(seen.cancelledAtOnce).isFalse();
        assertThat(failure.get()).isSameAs(timeout);
    }

    @Test
    void twoAsksAsTheSlotIsGrantedAreBothToldOnceItIsBack() {
        Limiter limiter = limiter();
        Lease held = limiter.tryAcquire().orElseThrow();
        CompletableFuture<Lease> queued = limiter.acquire();
        List<String> told = new ArrayList<>();
        inGrant.arm(() -> {
            queued.cancel(false);
            ((SlotReturn) queued).whenSlotBack(() -> told.add("first at " + limiter.inflight()));
            ((SlotReturn) queued).whenSlotBack(() -> told.add("second at " + limiter.inflight()));
            told.add("asked");
        });
        held.release(Outcome.SUCCESS);
        assertThat(inGrant.sprung()).isTrue();
        assertThat(told).containsExactly("asked", "first at 0", "second at 0");
    }

    @Test
    void withNoGrantUnderWayTheSlotIsBackAtOnce() {
        Limiter limiter = limiter();
        Lease held = limiter.tryAcquire().orElseThrow();
        AtomicInteger told = new AtomicInteger();

        // Withdrawn while queued: no slot was ever counted for it.
        CompletableFuture<Lease> withdrawn = limiter.acquire();
        assertThat(withdrawn.cancel(false)).isTrue();
        ((SlotReturn) withdrawn).whenSlotBack(told::incrementAndGet);
        assertThat(told).hasValue(1);

        // Granted: its slot is its lease's, the holder's to release.
        CompletableFuture<Lease> granted = limiter.acquire();
        held.release(Outcome.SUCCESS);
        assertThat(granted).isCompleted();
        assertThat(granted.cancel(false)).isFalse();
        ((SlotReturn) granted).whenSlotBack(told::incrementAndGet);
        assertThat(told).hasValue(2);
        assertThat(limiter.inflight()).isEqualTo(1);

        // Asked before it ended: told once it has.
        CompletableFuture<Lease> later = limiter.acquire();
        ((SlotReturn) later).whenSlotBack(told::incrementAndGet);
        assertThat(told).hasValue(2);
        later.cancel(false);
        assertThat(told).hasValue(3);

        // Failed by an abort while queued: the abort counted no slot for it.
        CompletableFuture<Lease> aborted = limiter.acquire();
        limiter.abort();
        assertThat(aborted).isCompletedExceptionally();
        ((SlotReturn) aborted).whenSlotBack(told::incrementAndGet);
        assertThat(told).hasValue(4);
    }
}
