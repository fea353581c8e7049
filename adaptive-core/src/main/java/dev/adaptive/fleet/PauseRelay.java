package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Nanos;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceEvent;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A {@link FleetMember}'s pause sharing: publishes the Retry-After pauses its limiter opens,
 * with their wall-clock end, and applies the pauses the fleet publishes, converted to the
 * limiter's ticker. A pause that only echoes one received from the fleet (this node's own,
 * coming back, included) is not published again, or two nodes would bounce it forever.
 *
 * <p>The ticker, the wall clock and the scheduler are user code. One that throws or refuses is
 * counted (in the member's {@code listenerFailures}, logged once) and never thrown into the
 * coordinator's delivery or the limiter's pause listeners; a fleet pause is still honoured
 * whenever it can be placed on this node's time at all.
 *
 * <p>Thread-safe. Takes only its own small lock, never while calling out: these paths run
 * inside other members' pause deliveries.
 */
final class PauseRelay {

    private final Limiter limiter;
    private final Coordinator coordinator;
    private final String key;
    private final String nodeId;
    private final Clock clock;
    private final Ticker ticker;
    private final Consumer<FleetEvent> emit;
    private final LongSupplier resumeStagger;
    private final LongSupplier lastReading;
    private final boolean foldOthers;
    private final Consumer<TraceEvent.RatePause> hook = this::onLocalPause;
    private final CallbackFailures tickerFailures;
    private final CallbackFailures clockFailures;
    private final CallbackFailures schedulerFailures;
    /**
     * Set on the thread that applies a fleet pause, or its staggered end, through
     * {@link Limiter#pauseFor}: the limiter tells the hook of that pause on this thread, before
     * its end is known here, and it is an echo, not news. Holds, if the limiter opened or
     * extended its pause, the limiter's reading of the time (or what stood in for it) and that
     * pause's own end.
     */
    private final ThreadLocal<long[]> applyingBlind = new ThreadLocal<>();

    private final Object lock = new Object();
    private boolean remoteApplied;
    private long appliedRemoteUntil;
    private volatile boolean closed;
    private AutoCloseable subscription;
    private final LongAdder published = new LongAdder();
    private final LongAdder received = new LongAdder();
    private final LongAdder failures = new LongAdder();

    PauseRelay(Limiter limiter, Coordinator coordinator, String key, String nodeId, Clock clock,
               Consumer<FleetEvent> emit, LongSupplier resumeStagger, LongSupplier lastReading, boolean foldOthers,
               CallbackFailures tickerFailures, CallbackFailures clockFailures, CallbackFailures schedulerFailures) {
        this.limiter = limiter;
        this.coordinator = coordinator;
        this.key = key;
        this.nodeId = nodeId;
        this.clock = clock;
        this.ticker = limiter.ticker();
        this.emit = emit;
        this.resumeStagger = resumeStagger;
        this.lastReading = lastReading;
        this.foldOthers = foldOthers;
        this.tickerFailures = tickerFailures;
        this.clockFailures = clockFailures;
        this.schedulerFailures = schedulerFailures;
    }

    /** Hooks the limiter and subscribes; undoes the hook if the subscription throws. */
    void open() {
        limiter.addRatePauseListener(hook);
        try {
            subscription = coordinator.subscribePauses(key, this::onFleetPause);
        } catch (Throwable e) {
            limiter.removeRatePauseListener(hook);
            throw e;
        }
    }

    void close() {
        closed = true;
        limiter.removeRatePauseListener(hook);
        try {
            if (subscription != null) {
                subscription.close();
            }
        } catch (Throwable ignored) {
            // Nothing to undo: a closed relay ignores deliveries.
        }
    }

    long published() {
        return published.sum();
    }

    long received() {
        return received.sum();
    }

    /**
     * @return publications that threw, returned no stage or whose stage failed (the local pause
     *         stands; the fleet then learns from its own calls)
     */
    long failures() {
        return failures.sum();
    }

    private void onLocalPause(TraceEvent.RatePause pause) {
        if (closed) {
            return;
        }
        long[] blind = applyingBlind.get();
        if (blind != null) {
            blind[0] = 1;
            blind[1] = pause.timeNanos();
            blind[2] = pause.untilNanos();
            return; // the fleet's own pause, or its staggered end, being applied on this thread
        }
        synchronized (lock) {
            if (remoteApplied && pause.untilNanos() - appliedRemoteUntil <= 0) {
                return;
            }
        }
        // The limiter's own reading, made as it opened the pause on this thread: reading the
        // ticker again here would add nothing, and a ticker that threw would lose the pause
        // for the whole fleet.
        long now = pause.timeNanos();
        FleetPause p;
        try {
            p = new FleetPause(nodeId, clock.instant().plusNanos(Nanos.between(now, pause.untilNanos())));
        } catch (Throwable e) {
            // No wall-clock end to tell the fleet: the local pause stands, the fleet learns from
            // its own calls.
            clockFailures.failed(e);
            return;
        }
        published.increment();
        emit.accept(new FleetEvent.PausePublished(now, p));
        try {
            CompletionStage<Void> stage = coordinator.publishPause(key, p);
            if (stage == null) {
                failures.increment(); // no stage: as a publication that threw
            } else {
                // A publication that fails later (the store timed out, or was shut down) is as
                // lost to the fleet as one that threw: counted alike.
                stage.whenComplete((done, error) -> {
                    if (error != null) {
                        failures.increment();
                    }
                });
            }
        } catch (Throwable e) {
            failures.increment();
        }
    }

    private void onFleetPause(FleetPause pause) {
        if (closed) {
            return;
        }
        long delta;
        try {
            delta = Nanos.of(Duration.between(clock.instant(), pause.until()));
        } catch (Throwable e) {
            // Without the wall clock the pause's end cannot be placed on this node at all; not
            // thrown into the coordinator's delivery, which would gain nothing from it.
            clockFailures.failed(e);
            return;
        }
        if (delta <= 0) {
            return;
        }
        long now;
        try {
            now = ticker.nanoTime();
        } catch (Throwable e) {
            tickerFailures.failed(e);
            applyBlind(pause, delta, lastReading.getAsLong());
            return;
        }
        // Saturated; the limiter caps it at maxRetryAfter anyway.
        long until = Nanos.plus(now, delta);
        // Another member's refusal is this node's signal too: the backend refused the fleet.
        // Once per pause: the rest of a burst arrives while the pause is open.
        if (foldOthers && !pause.originNodeId().equals(nodeId) && !limiter.isRatePaused()) {
            limiter.rateLimitedElsewhere(Duration.ofNanos(delta));
        }
        synchronized (lock) {
            if (!remoteApplied || until - appliedRemoteUntil > 0) {
                appliedRemoteUntil = until;
            }
            remoteApplied = true;
        }
        try {
            limiter.pauseUntil(until);
        } catch (Throwable e) {
            // Its reading for "now" threw (nothing was opened): the pause is still honoured, by
            // its length, from ours.
            tickerFailures.failed(e);
            applyBlind(pause, delta, now);
            return;
        }
        long actual = limiter.pausedUntilNanos();
        synchronized (lock) {
            // Capped by maxRetryAfter: a longer local pause later is news for the fleet.
            if (actual != 0 && actual - until < 0 && appliedRemoteUntil == until) {
                appliedRemoteUntil = actual;
            }
        }
        staggerResume(until, delta);
        received.increment();
        emit.accept(new FleetEvent.PauseReceived(now, pause, until));
    }

    /**
     * Applies a fleet pause this node could not time with its ticker, through the limiter's
     * {@link Limiter#pauseFor(Duration, long)}, by its length on the wall clock: a pause the
     * fleet asked for is not dropped because a reading failed (the work would go straight to a
     * server that asked the fleet to wait). If the limiter cannot read the ticker either (one
     * broken for a while, or for good), the pause is held by the limiter's scheduler, by delay,
     * for its whole length, {@code standIn} standing for now in its recorded end. Without a
     * reading of this relay's own, the resume is staggered all the same, by delay from now (the
     * pause is applied on this thread, as the fleet's delivery calls). Its
     * {@link FleetEvent.PauseReceived} carries the limiter's reading (or the stand-in), and is
     * not emitted when an open pause already covered the window (no reading was made public
     * then, and that pause's end is not this window's to stagger); the pause is counted
     * received either way.
     *
     * @param standIn the latest reading of the ticker this member made, no later than now
     */
    private void applyBlind(FleetPause pause, long delta, long standIn) {
        if (foldOthers && !pause.originNodeId().equals(nodeId) && !limiter.isRatePaused()) {
            limiter.rateLimitedElsewhere(Duration.ofNanos(delta));
        }
        long[] reading = applyAsEcho(Duration.ofNanos(delta), standIn);
        long actual = limiter.pausedUntilNanos();
        if (actual == Long.MAX_VALUE) {
            // No known end (no reading stood in: standIn was Long.MIN_VALUE). Nothing to compare a
            // later pause of this node's own with: as the echo's end, Long.MAX_VALUE, or the end
            // the limiter recorded, Long.MIN_VALUE plus the length (whose difference with a real
            // reading wraps), either made those pauses look like echoes, never published. The
            // echo itself was told to the hook on this thread, and is not published.
            actual = 0;
        }
        synchronized (lock) {
            // What the limiter holds now echoes this pause: not news for the fleet.
            if (actual != 0 && (!remoteApplied || actual - appliedRemoteUntil > 0)) {
                appliedRemoteUntil = actual;
                remoteApplied = true;
            }
        }
        received.increment();
        if (reading[0] != 0) {
            if (actual == reading[2]) {
                staggerResume(actual, delta);
            }
            emit.accept(new FleetEvent.PauseReceived(reading[1], pause, Nanos.plus(reading[1], delta)));
        }
    }

    /**
     * Each member resumes a little after the announced end, by its place in the fleet, so that
     * the fleet does not refire at one instant. The pause is extended only just before it
     * would end, not now: until then a later refusal whose window ends after this one still
     * extends the limiter's pause, and so is still published to the others. The extension
     * itself is not news for the fleet and is not published. A member whose maxRetryAfter cut
     * the window short resumed at its own cap and is not paused again at the window's end.
     *
     * <p>Timed by delay from the window's application, which is now, and extended by the
     * stagger from the window's last nanosecond, so that a window applied without a reading
     * (whose recorded end is early by the age of the reading that stood in) staggers as one
     * applied with one does, and a ticker that throws as the extension is made does not undo
     * it ({@link Limiter#pauseFor(Duration, long)}). A scheduler that refuses the timer leaves
     * the member resuming at the announced end, unstaggered: the pause itself ends on the
     * limiter's own timer, never held for good.
     *
     * @param end   the window's end as the limiter recorded it
     * @param delta the window's length from now
     */
    private void staggerResume(long end, long delta) {
        long stagger = resumeStagger.getAsLong();
        if (stagger <= 0 || delta <= 1) {
            return;
        }
        try {
            limiter.scheduler().schedule(() -> {
                // Only the pause that ends at this fleet window's end is extended: a later one
                // took over and staggers itself; none (or an earlier end) means this limiter's
                // own maxRetryAfter cut the window short, and it has been admitting since then.
                if (closed || limiter.pausedUntilNanos() != end) {
                    return;
                }
                applyAsEcho(Duration.ofNanos(Nanos.plus(stagger, 1)), lastReading.getAsLong());
            }, delta - 1);
        } catch (Throwable e) {
            schedulerFailures.failed(e);
        }
    }

    /**
     * Opens a pause of {@code length} from now on the limiter, as the echo of the fleet's (the
     * hook told of it on this thread does not publish it), even if the ticker throws.
     *
     * @param standIn the latest reading of the ticker this member made, no later than now
     * @return {@code [1, the limiter's reading or the stand-in, the pause's own end]} if the
     *         limiter opened or extended its pause, {@code [0, 0, 0]} if an open pause covered it
     */
    private long[] applyAsEcho(Duration length, long standIn) {
        long[] opened = new long[3];
        applyingBlind.set(opened);
        try {
            limiter.pauseFor(length, standIn);
        } finally {
            applyingBlind.remove();
        }
        return opened;
    }
}
