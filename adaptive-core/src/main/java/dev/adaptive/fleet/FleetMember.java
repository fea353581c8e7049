package dev.adaptive.fleet;

import dev.adaptive.LimitChangeListener;
import dev.adaptive.Limiter;
import dev.adaptive.internal.CallbackFailures;
import dev.adaptive.internal.Listeners;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;

/**
 * Makes a {@link Limiter} one node of a fleet that calls one backend: the fleet's total in
 * flight stays under one global ceiling, and a Retry-After pause seen by one node pauses every
 * node until the same instant.
 *
 * <p><b>Heartbeat.</b> Every {@code heartbeat} (default 1 s), on the limiter's
 * {@link Scheduler}, the member sends the {@link Coordinator} a {@link NodeReport} (its local
 * limit, its in-flight count and its claim) with a TTL (default twice the heartbeat; it must
 * exceed it). From the live reports returned it computes the global ceiling and its own share
 * by the share rule below, and applies it with {@link Limiter#ceiling(int)}: the
 * limiter admits at most {@code min(share, local limit)}, so whenever the fleet gate admits,
 * the local one does too.
 *
 * <p><b>Learning the fleet's capacity</b> ({@link Builder#learnCapacity(boolean)}, on by
 * default). The limiter's samples carry the fleet's in flight (its own plus what the others last
 * reported), so each local limit, and the global ceiling, estimates what the backend takes in
 * total; another member's Retry-After is folded into the local limit; a node with calls in
 * flight or waiting reports every sync interval (default a tenth of the heartbeat), an idle one
 * once a heartbeat or when its claim or demand changed; a node whose local limit moved, or
 * whose calls began to wait while its last report said it needed no more, reports at once (at
 * most once between two syncs) rather than at its next sync; shares follow each node's reported
 * demand, an idle node keeping one slot; a node's ceiling never exceeds the room the others'
 * claims leave; and members resume from a fleet pause one after another, over one sync
 * interval. None of these raises a ceiling without the claim check below.
 *
 * <p><b>Why the fleet stays under the ceiling.</b> A node's claim is
 * {@code max(current ceiling, wanted share, in flight)}: it bounds what the node may have in
 * flight until its next report. A node lowers its ceiling at once, but raises it (joining, or
 * taking over a dead node's share) only to a value it has already published as its claim, and
 * only if, in the list that very heartbeat returned, all claims sum to at most the ceiling.
 * The coordinator writes and reads in one atomic step, so of any two raises the later one sees
 * the earlier one's claim; hence at every instant the fleet's in flight is at most the ceiling
 * against which the latest raise was checked. A node whose share shrinks while calls are in
 * flight keeps claiming them until they finish, and nobody grows into that room before. When
 * the ceiling itself falls (local limits fell), nobody grows until the claims fit again. The
 * bound assumes nodes that cannot reach the coordinator stop admitting before their report
 * expires, which {@link OutagePolicy#FAIL_CLOSED} does; calls they still have in flight then are
 * the only excess, until they finish. {@link OutagePolicy#LOCAL_ONLY} gives the bound up during
 * an outage; after it, the node raises its share again only as a joining node does.
 * docs/core-guard-fleet.md has the full argument.
 *
 * <p><b>Joining.</b> The limiter admits nothing until the first raise is validated; with the
 * {@link InMemoryCoordinator} that happens inside {@code join()}.
 *
 * <p><b>Node ids.</b> {@code nodeId} is required and has no default. Each member also picks a
 * random incarnation; two live processes with one id are both counted (the ceiling holds) and
 * reported as {@link FleetEvent.DuplicateNodeId}.
 *
 * <p><b>Pauses.</b> Every Retry-After pause the limiter opens is published with its wall-clock
 * end ({@link FleetPause}); every published pause is converted to this limiter's ticker and
 * applied with {@link Limiter#pauseUntil(long)}, capped by the limiter's {@code maxRetryAfter}.
 * A pause that is only the echo of one received from the fleet is not published again.
 *
 * <p>One member per limiter: the member owns the limiter's {@link Limiter#ceiling(int)}.
 *
 * <p><b>Leaving.</b> {@link #close()} leaves the fleet: the limiter's ceiling goes to 0 at once,
 * and the report is removed once the calls in flight have finished. The ceiling stays at 0,
 * because the fleet no longer counts this node; set {@link Limiter#ceiling(int)} to
 * {@link Integer#MAX_VALUE} to use the limiter alone again.
 *
 * <p>Thread-safe. The member's state changes under one lock, which is not held while it calls
 * the coordinator; the limiter's ceiling is set under it (a raise may complete queued
 * acquisitions on that thread).
 */
public final class FleetMember implements AutoCloseable {

    /** Default heartbeat period: 1 second. */
    public static final Duration DEFAULT_HEARTBEAT = Duration.ofSeconds(1);
    /** The default sync interval is the heartbeat divided by this: 100 ms for the default heartbeat. */
    public static final int SYNC_PER_HEARTBEAT = 10;
    /**
     * The longest heartbeat (and TTL) taken: 365 days, far below the ~292 years a long of
     * nanoseconds holds, so that no sum of times overflows.
     */
    public static final Duration MAX_HEARTBEAT = Duration.ofDays(365);

    private static final System.Logger LOG = System.getLogger(FleetMember.class.getName());

    private final Limiter limiter;
    private final Coordinator coordinator;
    private final String key;
    private final String nodeId;
    private final String incarnation;
    private final Duration heartbeat;
    private final Duration ttl;
    private final long heartbeatNanos;
    private final Duration syncInterval;
    private final long syncNanos;
    private final boolean learn;
    private final long liveNanos;
    private final long ttlNanos;
    private final OutagePolicy policy;
    private final Clock clock;
    private final Ticker ticker;
    private final Scheduler scheduler;
    private final FleetListener[] listeners;
    private final PauseRelay pauses;

    private final Object lock = new Object();
    // Guarded by lock.
    private int granted;
    private int target;
    private boolean localOnly;
    private boolean up = true;
    private boolean beating;
    private long beatSeq;
    private int followUps;
    // An early report was sent since the last regular sync: at most one between two syncs.
    private boolean earlyReportSent;
    private boolean hasGoodBeat;
    private long lastGoodSendNanos;
    private long beatSentNanos;
    private NodeReport lastReport;
    // Read by the pause relay inside other members' deliveries, so not under the lock.
    private volatile long resumeStaggerNanos;
    // The latest reading of the ticker, for a fleet pause that arrives when it throws to stand
    // in for now (see PauseRelay); none yet: Long.MIN_VALUE, long past.
    private volatile long lastReadingNanos = Long.MIN_VALUE;
    private Cancellable tickTask;
    // The scheduler refused the next tick, so none is armed; the next activity that reaches the
    // member (a reply, a call that waits, a move of the local limit) tries again, and so, once,
    // does the end of the last report's trusted life (expire).
    private boolean tickRefused;
    private Cancellable expiryTask;
    // leaving: close() was called, nothing more is admitted; closed: the report is gone too.
    private volatile boolean leaving;
    private volatile boolean closed;
    private int globalCeiling;
    private int liveNodes;
    private long heartbeats;
    private long heartbeatFailures;
    private final Map<String, Instant> otherIncarnations = new HashMap<>();
    private final Set<String> clashes = new HashSet<>();
    private final LongAdder listenerFailures = new LongAdder();
    // The ticker and the clock are user code too: a reading that throws costs that reading only.
    private final CallbackFailures tickerFailures;
    private final CallbackFailures clockFailures;
    private final CallbackFailures ceilingFailures;
    private final CallbackFailures schedulerFailures;
    // Hints from the limiter that this node has news for the fleet (learnCapacity only), and, with
    // either rule set, activity that arms the heartbeat again after the scheduler refused it.
    private final LimitChangeListener limitMoved = (from, to) -> reportSoon();
    private final Runnable callsWait = this::demandGrew;
    // While leaving: the limiter's word that its last call has ended, so that the leave needs no
    // timer of the member's to look for it (the scheduler may have refused the tick, and no reply
    // may be coming).
    private final Runnable callsEnded = this::leaveIfDone;

    private FleetMember(Builder b) {
        this.limiter = b.limiter;
        this.coordinator = b.coordinator;
        this.key = b.key;
        this.nodeId = b.nodeId;
        this.incarnation = UUID.randomUUID().toString();
        this.heartbeat = b.heartbeat;
        this.ttl = b.ttl == null ? b.heartbeat.multipliedBy(2) : b.ttl;
        this.heartbeatNanos = b.heartbeat.toNanos();
        this.syncInterval = b.syncInterval == null ? defaultSync(b.heartbeat) : b.syncInterval;
        this.learn = b.learn;
        this.syncNanos = learn ? this.syncInterval.toNanos() : heartbeatNanos;
        long ttlNanos = this.ttl.toNanos();
        this.ttlNanos = ttlNanos;
        // Trust our report for a little less than its TTL: a margin for clock skew and
        // coordinator latency, never so large that the window falls below one heartbeat.
        this.liveNanos = ttlNanos - Math.min(heartbeatNanos, ttlNanos - heartbeatNanos) / 2;
        this.policy = b.policy;
        this.clock = b.clock;
        this.ticker = limiter.ticker();
        this.scheduler = limiter.scheduler();
        this.listeners = b.listeners.toArray(new FleetListener[0]);
        this.tickerFailures = new CallbackFailures(LOG, limiter.name(), "fleet member's ticker", listenerFailures);
        this.clockFailures = new CallbackFailures(LOG, limiter.name(), "fleet member's clock", listenerFailures);
        this.ceilingFailures = new CallbackFailures(LOG, limiter.name(), "limiter's ceiling(int), called by its fleet member,",
                listenerFailures);
        this.schedulerFailures = new CallbackFailures(LOG, limiter.name(), "fleet member's scheduler", listenerFailures);
        this.pauses = new PauseRelay(limiter, coordinator, key, nodeId, clock, this::emit, () -> resumeStaggerNanos,
                () -> lastReadingNanos, b.learn, tickerFailures, clockFailures, schedulerFailures);
    }

    private static Duration defaultSync(Duration heartbeat) {
        Duration d = heartbeat.dividedBy(SYNC_PER_HEARTBEAT);
        return d.isZero() ? heartbeat : d;
    }

    /**
     * @param limiter     the limiter to bound; its ticker and scheduler drive the heartbeat
     * @param coordinator the fleet's shared store
     * @return a builder; {@code key} and {@code nodeId} are required
     */
    public static Builder builder(Limiter limiter, Coordinator coordinator) {
        return new Builder(limiter, coordinator);
    }

    private void start() {
        int before = limiter.ceiling();
        synchronized (lock) {
            setCeiling(0);
        }
        try {
            pauses.open();
        } catch (Throwable e) {
            // Anything the coordinator threw: the join fails, and the limiter admits as before.
            setCeiling(before);
            throw e;
        }
        limiter.addLocalLimitListener(limitMoved);
        limiter.addQueueListener(callsWait);
        Beat first;
        try {
            synchronized (lock) {
                // The first tick is armed before the first report goes, and under the lock, so
                // that it finds that report on its way: a scheduler that refuses it (shut down)
                // fails the join before anything is stored that nobody would keep alive.
                tickTask = scheduler.schedule(this::tick, syncNanos);
                followUps = 1;
                first = beatNow();
            }
        } catch (Throwable e) {
            // The member could never report: the join fails, and the limiter is left as it was.
            limiter.removeLocalLimitListener(limitMoved);
            limiter.removeQueueListener(callsWait);
            pauses.close();
            setCeiling(before);
            throw e;
        }
        if (first != null) {
            dispatch(first); // else the first tick sends it
        }
    }

    // ---- heartbeat -----------------------------------------------------------------------

    private void tick() {
        tickOnce();
        if (leaving) {
            // A tick that could not arm the next one leaves nothing timed to give up a heartbeat
            // still on its way: a leaving member whose calls are done does not wait for it.
            leaveIfDone();
        }
    }

    private void tickOnce() {
        Beat beat = null;
        boolean leave = false;
        synchronized (lock) {
            if (closed) {
                return;
            }
            long now;
            try {
                now = read();
            } catch (Throwable e) {
                // Without the time this tick can judge nothing; it is skipped, not the heartbeats.
                tickerFailures.failed(e);
                armTick(syncNanos, beatSentNanos);
                return;
            }
            if (beating) {
                // One heartbeat at a time keeps this node's writes in order; one still pending
                // when the next heartbeat is due is an outage. One still pending after a whole
                // ttl is given up: a stage that never completes (a reply lost by a transport
                // without a timeout) would otherwise stop this node's heartbeats for good, and a
                // closing node could never leave. Its report has expired by then; a reply that
                // still comes is ignored (a newer beat has been sent).
                // A beat on its way at a sync (an early report, a follow-up, a slow reply) is
                // looked at again at the next sync, not only when the heartbeat is due: waiting
                // for the heartbeat stopped a busy node's syncs for up to a whole heartbeat.
                long pending = now - beatSentNanos;
                if (pending < heartbeatNanos) {
                    armTick(Math.min(syncNanos, heartbeatNanos - pending), now);
                    return;
                }
                onOutage(null, now);
                if (pending < ttlNanos) {
                    armTick(Math.min(heartbeatNanos, ttlNanos - pending), now);
                    return;
                }
                beating = false;
            }
            boolean armed = armTick(syncNanos, now);
            if (leaving && limiter.inflight() == 0) {
                leave = true;
            } else if (!armed) {
                return; // no heartbeat would follow this one
            } else if (!busy() && !reportChanged() && now - beatSentNanos < heartbeatNanos) {
                // Idle, settled, nothing new to say: the check was local; the report waits for the heartbeat.
                return;
            } else {
                followUps = 1;
                earlyReportSent = false;
                beat = prepareBeat(now);
            }
        }
        if (leave) {
            finishLeaving();
        } else if (beat != null) {
            dispatch(beat);
        }
    }

    /**
     * Under the lock: arms the next tick. A scheduler that refuses it (shut down, or saturated
     * for a while) leaves no heartbeat to come, so the report will expire: the member acts at
     * once as at its expiry (under {@code LOCAL_ONLY}, runs on the local limit), rather than keep
     * a share nobody renews. The next activity that reaches the member tries again
     * ({@link #rearmTick}), and so does, once, the timer of the last report's trusted life, armed
     * before ({@link #expire}), so that an idle member needs no activity to rejoin;
     * {@link #close()} still leaves.
     *
     * @return whether the tick is armed
     */
    private boolean armTick(long delayNanos, long now) {
        try {
            tickTask = scheduler.schedule(this::tick, delayNanos);
            tickRefused = false;
            return true;
        } catch (Throwable e) {
            schedulerFailures.failed(e);
            tickRefused = true;
            if (policy == OutagePolicy.FAIL_CLOSED) {
                expireNow(now);
            } else {
                goLocalOnly(now);
            }
            return false;
        }
    }

    /**
     * Under the lock: arms the tick again if the scheduler refused it, so that a scheduler that
     * accepts again (an executor that was saturated) has the member rejoin by the normal path:
     * the heartbeats go on from that tick, and a share comes back only as the heartbeats grant
     * it (under {@code FAIL_CLOSED} the refusal dropped it to 0, and it is raised, as a joining
     * node's, only to a claim published and found to fit). Called by what reaches the member
     * without a timer (a heartbeat's reply, a call that begins to wait, a move of the local
     * limit) and by the one timer of the member's that may still be armed, the end of its last
     * report's trusted life. A refusal again acts as the first one did.
     */
    private void rearmTick(long delayNanos, long now) {
        if (tickRefused && !closed) {
            armTick(delayNanos, now);
        }
    }

    /**
     * Calls began to wait: news for the fleet if the last report said this node needed no more
     * than it had (an idle node holding its one slot, a node whose work had shrunk).
     */
    private void demandGrew() {
        synchronized (lock) {
            NodeReport last = lastReport;
            if (!tickRefused && (last == null || last.demand() == NodeReport.UNBOUNDED_DEMAND)) {
                return;
            }
        }
        reportSoon();
    }

    /**
     * The local limit moved, or the demand grew: report now rather than at the next sync, so
     * that the global ceiling and the shares move at the pace of the limit's own decisions (a
     * slow start step is one round trip; a sync is several). On the scheduler, never inside the
     * limiter's fold or admission that told us. At most one early report between two regular
     * syncs, and never while a report is outstanding (the next sync carries the news): however
     * often the limit moves (an AIMD limit moves on every sample), a busy node's reports at
     * most double. If the scheduler refused the heartbeat, arms it again instead: its tick, at
     * once, carries the news. A refused early report leaves the news to the next sync.
     */
    private void reportSoon() {
        synchronized (lock) {
            if (tickRefused) {
                rearmTick(0, readingForEvent());
                return;
            }
            if (!learn || closed || leaving || beating || earlyReportSent) {
                return;
            }
            earlyReportSent = true;
        }
        try {
            scheduler.schedule(this::sendEarlyReport, 0);
        } catch (Throwable e) {
            // Counted here, not thrown into the limiter's listener that told us: the next sync,
            // already armed, carries the news.
            schedulerFailures.failed(e);
        }
    }

    private void sendEarlyReport() {
        Beat beat;
        synchronized (lock) {
            if (closed || leaving || beating) {
                return;
            }
            followUps = 1;
            beat = beatNow();
        }
        if (beat != null) {
            dispatch(beat); // else the next sync carries the news
        }
    }

    /**
     * Under the lock. While this node has calls in flight or waiting, or a share it has not yet
     * reached, it syncs every sync interval rather than every heartbeat: shares, the fleet's
     * in flight and the global ceiling then move at the pace of the calls, not of the liveness
     * heartbeat. An idle, settled node looks every sync interval (locally) and reports once a
     * heartbeat, or at once when work comes.
     */
    private boolean busy() {
        return learn && !leaving && (limiter.inflight() > 0 || limiter.waiting() > 0 || granted != target);
    }

    /**
     * Under the lock: whether this node's claim or demand moved since its last report (a node
     * that just went idle gives its claim back at once, rather than a heartbeat later).
     */
    private boolean reportChanged() {
        NodeReport last = lastReport;
        return last == null || claimNow(limiter.inflight()) != last.claim() || demandNow(limiter.inflight()) != last.demand();
    }

    private int claimNow(int inflight) {
        return Math.max(Math.max(granted, target), inflight);
    }

    private int demandNow(int inflight) {
        return !learn || limiter.waiting() > 0 ? NodeReport.UNBOUNDED_DEMAND : leaving ? 0 : inflight;
    }

    /** Reads the ticker (it may throw anything) and keeps the reading as the latest. */
    private long read() {
        long now = ticker.nanoTime();
        lastReadingNanos = now;
        return now;
    }

    /**
     * Under the lock: a reading of the ticker for an event's time only, or, if the ticker throws
     * (counted), the time the last heartbeat left: what the reading was for goes on without it.
     */
    private long readingForEvent() {
        try {
            return read();
        } catch (Throwable e) {
            tickerFailures.failed(e);
            return beatSentNanos;
        }
    }

    /** Under the lock: {@link #prepareBeat(long)} now, or {@code null} if the ticker throws (counted). */
    private Beat beatNow() {
        long now;
        try {
            now = read();
        } catch (Throwable e) {
            tickerFailures.failed(e);
            return null;
        }
        return prepareBeat(now);
    }

    /**
     * Under the lock: the beat to send at {@code now}, a reading of the ticker, or {@code null}
     * if the clock throws (counted), and then nothing changes: a beat marked as sent that never
     * went would hold back every later one, and be counted an outage, for a whole ttl.
     */
    private Beat prepareBeat(long now) {
        Instant at;
        try {
            at = clock.instant();
        } catch (Throwable e) {
            clockFailures.failed(e);
            return null;
        }
        int inflight = limiter.inflight();
        int want = target;
        int claim = claimNow(inflight);
        int demand = demandNow(inflight);
        NodeReport report = new NodeReport(nodeId, incarnation, limiter.localLimit(), inflight, claim, at, demand);
        beating = true;
        long seq = ++beatSeq;
        beatSentNanos = now;
        lastReport = report;
        return new Beat(seq, now, report, want);
    }

    private void dispatch(Beat beat) {
        CompletionStage<List<NodeReport>> stage;
        try {
            stage = coordinator.heartbeat(key, beat.report, ttl);
            if (stage == null) {
                throw new NullPointerException("coordinator returned no stage for a heartbeat");
            }
        } catch (Throwable e) {
            // An Error too: the beat must end, or every later tick would see it still running.
            onReply(beat, null, e);
            return;
        }
        stage.whenComplete((reports, error) -> onReply(beat, reports, error));
    }

    private void onReply(Beat beat, List<NodeReport> reports, Throwable error) {
        if (!tookReply(beat, reports, error)) {
            // A leaving member whose calls ended while this heartbeat was on its way leaves now,
            // as its next tick would: there may be none to come (the scheduler refused it).
            leaveIfDone();
        }
    }

    /** @return {@code false} if the heartbeat failed: an outage, which tells the member nothing */
    private boolean tookReply(Beat beat, List<NodeReport> reports, Throwable error) {
        Beat next = null;
        boolean done = false;
        synchronized (lock) {
            if (closed || beat.seq != beatSeq || !beating) {
                return true;
            }
            beating = false;
            // A reply whose arrival cannot be timed is taken as late: it may lower the share, but
            // neither raise it, nor renew the trust in our report, nor time a follow-up.
            boolean timed = true;
            long now;
            try {
                now = read();
            } catch (Throwable e) {
                tickerFailures.failed(e);
                timed = false;
                now = beat.sentNanos + liveNanos;
            }
            if (error != null) {
                onOutage(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error, now);
                rearmTick(syncNanos, now);
                return false;
            }
            FleetShares view = reports == null ? null : FleetShares.of(reports);
            int share = view == null ? -1 : view.shareOf(nodeId, incarnation);
            if (share < 0) {
                onOutage(new IllegalStateException(
                        "coordinator did not return this node's report (key=" + key + ", nodeId=" + nodeId + ")"), now);
                rearmTick(syncNanos, now);
                return false;
            }
            heartbeats++;
            checkClashes(view, now);
            globalCeiling = view.globalCeiling();
            liveNodes = view.liveNodes();
            long others = 0;
            for (NodeReport r : view.nodes()) {
                if (!(r.nodeId().equals(nodeId) && r.incarnation().equals(incarnation))) {
                    others += r.inflight();
                }
            }
            // A leaving node's limiter is no longer the fleet's: close() told it the others hold nothing.
            if (learn && !leaving) {
                limiter.othersInflight((int) Math.min(Integer.MAX_VALUE, others));
                // Members resume from a fleet pause one after another, spread over one sync interval.
                resumeStaggerNanos = liveNodes <= 1 ? 0 : view.rankOf(nodeId, incarnation) * (syncNanos / liveNodes);
            }
            if (!up) {
                up = true;
                emit(new FleetEvent.CoordinatorRestored(now));
            }
            // A reply that took longer than our report's trusted life says nothing we may act on
            // upward; nor does one whose trusted life cannot be timed (the scheduler refused the
            // expiry): the earlier expiry, still armed, stands.
            boolean fresh = now - beat.sentNanos < liveNanos && armExpiry(beat.sentNanos, now);
            // Back from LOCAL_ONLY, the old share is no longer this node's to take: its report
            // may have expired meanwhile and the others grown into its room. It is raised to
            // again only as a joining node's share is, to a published claim the list found to fit.
            int newGranted = localOnly ? 0 : granted;
            // A leaving node raises nothing: a reply to a beat sent before close() still carries
            // the share it wanted then, and raising to it would admit calls again, after the
            // leave too, outside the fleet that no longer counts this node.
            int raiseTo = leaving ? 0 : Math.min(beat.want, share);
            if (fresh && raiseTo > newGranted && view.fits()) {
                newGranted = raiseTo;
            }
            if (share < newGranted) {
                newGranted = share;
            }
            // Never more than the room the others' claims leave: after the ceiling fell, a node
            // under its new share waits while another still drains calls admitted under the old
            // one, instead of adding to an excess; a joining node's announced share makes room
            // for it at the others' next report.
            long room = view.globalCeiling() - (view.claimed() - beat.report.claim());
            if (learn && room < newGranted) {
                newGranted = (int) Math.max(0, room);
            }
            // A leaving node wants nothing: its claim shrinks with its calls in flight.
            target = leaving ? 0 : share;
            if (fresh) {
                hasGoodBeat = true;
                lastGoodSendNanos = beat.sentNanos;
            }
            int from = appliedCeiling();
            localOnly = false;
            granted = newGranted;
            applyCeiling(from, now);
            // A reply reaches the member even when the scheduler refused its heartbeat: the
            // heartbeats go on from here. After the share is applied, so that a refusal again
            // acts on it as the first one did.
            rearmTick(syncNanos, now);
            int nextClaim = Math.max(Math.max(granted, target), limiter.inflight());
            if (leaving && nextClaim == 0) {
                done = true;
            } else if (nextClaim != beat.report.claim() && followUps > 0 && timed) {
                // Publish a new claim now rather than a heartbeat later: a joining node announces
                // the share it wants, a shrinking one gives room back sooner.
                followUps--;
                next = prepareBeat(now);
            }
        }
        if (next != null) {
            dispatch(next);
        } else if (done) {
            finishLeaving();
        }
        return true;
    }

    /** Under the lock. */
    private void onOutage(Throwable cause, long now) {
        heartbeatFailures++;
        if (up) {
            up = false;
            emit(new FleetEvent.CoordinatorLost(now, cause));
        }
        if (policy == OutagePolicy.LOCAL_ONLY) {
            goLocalOnly(now);
        }
    }

    /** Under the lock: drops the fleet's ceiling for the local limit ({@link OutagePolicy#LOCAL_ONLY}). */
    private void goLocalOnly(long now) {
        if (!localOnly && !leaving) {
            int from = appliedCeiling();
            localOnly = true;
            setCeiling(Integer.MAX_VALUE);
            emit(new FleetEvent.ShareChanged(now, from, Integer.MAX_VALUE, globalCeiling, liveNodes, "local-only"));
        }
    }

    /**
     * Under the lock: arms the end of the trusted life of the report sent at {@code sentNanos},
     * in place of the one armed before, which stays armed if the scheduler refuses this one.
     *
     * @return whether it is armed
     */
    private boolean armExpiry(long sentNanos, long now) {
        Cancellable next;
        try {
            next = scheduler.schedule(() -> expire(sentNanos), sentNanos + liveNanos - now);
        } catch (Throwable e) {
            schedulerFailures.failed(e);
            return false;
        }
        cancel(expiryTask); // it would find a later report trusted, and do nothing
        expiryTask = next;
        return true;
    }

    /** Cancels a timer; one whose cancel throws fires later and finds nothing to do. */
    private void cancel(Cancellable timer) {
        if (timer == null) {
            return;
        }
        try {
            timer.cancel();
        } catch (Throwable e) {
            schedulerFailures.failed(e);
        }
    }

    /**
     * The end of the trusted life of the report sent at {@code sentNanos}. Also the member's own
     * retry of a heartbeat the scheduler refused: this timer, armed at the last good reply, is
     * then the only one of the member's still to come, so an idle member (no reply on its way, no
     * call, no move of its local limit) tries the heartbeat again here rather than stay out of
     * the fleet until work arrives. One try: a refusal again leaves the member to the activity
     * that reaches it ({@link #rearmTick}).
     */
    private void expire(long sentNanos) {
        synchronized (lock) {
            if (closed) {
                return;
            }
            boolean current = hasGoodBeat && lastGoodSendNanos == sentNanos;
            if (!current && !tickRefused) {
                return;
            }
            long now;
            try {
                now = read();
            } catch (Throwable e) {
                // The expiry needs no reading to be applied: a node that cannot tell the time
                // must stop admitting all the more. Its event says when it was due.
                tickerFailures.failed(e);
                now = sentNanos + liveNanos;
            }
            if (current) {
                expireNow(now);
            }
            // After the expiry, so that the tick armed here finds the share it left.
            rearmTick(0, now);
        }
    }

    /** Under the lock: fail-closed once the coordinator may have dropped our report. */
    private void expireNow(long now) {
        if (policy != OutagePolicy.FAIL_CLOSED) {
            return;
        }
        hasGoodBeat = false;
        target = 0;
        int from = appliedCeiling();
        granted = 0;
        if (from != 0) {
            setCeiling(0);
            emit(new FleetEvent.ShareChanged(now, from, 0, globalCeiling, liveNodes, "expired"));
        }
    }

    /** Under the lock: sets the limiter's ceiling to what the state now says, if it moved. */
    private void applyCeiling(int from, long now) {
        int to = appliedCeiling();
        if (from != to) {
            setCeiling(to);
            emit(new FleetEvent.ShareChanged(now, from, to, globalCeiling, liveNodes, to > from ? "raised" : "lowered"));
        }
    }

    /**
     * Sets the limiter's ceiling. The limiter applies it before it reads its ticker to publish
     * the change, so a ticker that throws there leaves the ceiling set and throws to us: counted,
     * and the member's step (a close, an expiry, a share change) goes on.
     */
    private void setCeiling(int ceiling) {
        try {
            limiter.ceiling(ceiling);
        } catch (Throwable e) {
            ceilingFailures.failed(e);
        }
    }

    private int appliedCeiling() {
        return localOnly ? Integer.MAX_VALUE : granted;
    }

    /** Under the lock. Another incarnation of our id that keeps refreshing is a second live process. */
    private void checkClashes(FleetShares view, long now) {
        Map<String, Instant> seen = new HashMap<>();
        for (NodeReport r : view.nodes()) {
            if (!r.nodeId().equals(nodeId) || r.incarnation().equals(incarnation)) {
                continue;
            }
            seen.put(r.incarnation(), r.reportedAt());
            Instant before = otherIncarnations.get(r.incarnation());
            if (before != null && !before.equals(r.reportedAt()) && clashes.add(r.incarnation())) {
                emit(new FleetEvent.DuplicateNodeId(now, nodeId, incarnation, r.incarnation()));
            }
        }
        otherIncarnations.clear();
        otherIncarnations.putAll(seen);
    }

    // ---- lifecycle and views -------------------------------------------------------------

    /**
     * Leaves the fleet. At once: the limiter's ceiling goes to 0 and pauses are no longer
     * shared. Then, once the calls still in flight have finished (heartbeats meanwhile publish
     * them as this node's claim, so nobody grows into the room they hold), the heartbeat stops
     * and this node's report is removed: as the last of them is released, whether or not the
     * scheduler still accepts the member's timers. A heartbeat on its way then is waited for: the
     * leave finishes as its reply or failure comes, or at the latest one {@link #ttl()} after it
     * was sent, when the heartbeat is given up (a reply that never comes, from a transport
     * without a timeout). If the scheduler refuses the member's timers, so that nothing could
     * time that bound, the leave does not wait for that heartbeat; should its write land after
     * the leave, the report expires after its TTL, as a dead node's. Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (leaving) {
                return;
            }
            leaving = true;
            int from = appliedCeiling();
            localOnly = false;
            granted = 0;
            target = 0;
            setCeiling(0);
            if (from != 0) {
                // Only the event's time: the leave goes on (the hooks, the pauses, the report).
                emit(new FleetEvent.ShareChanged(readingForEvent(), from, 0, globalCeiling, liveNodes, "closed"));
            }
        }
        limiter.othersInflight(0);
        limiter.removeLocalLimitListener(limitMoved);
        limiter.removeQueueListener(callsWait);
        pauses.close();
        synchronized (lock) {
            // A tick the scheduler refused is tried again: while one is armed, a heartbeat on its
            // way is waited for at most a ttl (the tick gives it up then); if the scheduler
            // refuses again, the leave waits for no heartbeat (doneLeaving).
            if (tickRefused) {
                rearmTick(0, readingForEvent());
            }
        }
        // Before the look: a last call released after it is heard; one released before, seen.
        limiter.addIdleListener(callsEnded);
        leaveIfDone();
    }

    /**
     * Under the lock: whether a leaving member may remove its report now: no call in flight (its
     * ceiling is 0, so none can start), and no heartbeat on its way, whose write could land after
     * the leave (its reply finishes the leave instead). A heartbeat on its way is waited for only
     * while a tick is armed, which gives it up a ttl after it was sent: with none (the scheduler
     * refused it) its reply may never come (a transport without a timeout), and nothing else
     * would end the wait. The leave then goes on without it: should that heartbeat's write land
     * after the leave, the report expires after its TTL, as a dead node's (its claim only makes
     * the others more careful meanwhile). Removing it again when its reply comes was not done:
     * a leave removes every incarnation of the id, so a late one could remove the report of a
     * node started since under the same id.
     */
    private boolean doneLeaving() {
        return leaving && !closed && (!beating || tickRefused) && limiter.inflight() == 0;
    }

    /** Finishes the leave if {@link #doneLeaving()}; told by the limiter as a release leaves nothing in flight. */
    private void leaveIfDone() {
        boolean done;
        synchronized (lock) {
            done = doneLeaving();
        }
        if (done) {
            finishLeaving();
        }
    }

    private void finishLeaving() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            cancel(tickTask);
            cancel(expiryTask);
        }
        limiter.removeIdleListener(callsEnded);
        try {
            coordinator.leave(key, nodeId);
        } catch (Throwable ignored) {
            // Anything: the report then expires after its TTL, as a dead node's would.
        }
    }

    /** @return a consistent snapshot of this member */
    public FleetStats stats() {
        synchronized (lock) {
            return new FleetStats(appliedCeiling(), target, globalCeiling, liveNodes, up, heartbeats,
                    heartbeatFailures, pauses.published(), pauses.received(), !clashes.isEmpty(),
                    listenerFailures.sum() + pauses.failures());
        }
    }

    /** @return the ceiling applied to the limiter now ({@link Integer#MAX_VALUE} while local-only) */
    public int share() {
        synchronized (lock) {
            return appliedCeiling();
        }
    }

    /** @return whether {@link #close()} was called */
    public boolean isClosed() {
        return leaving;
    }

    /** @return whether this node has left: closed, its calls finished and its report removed */
    public boolean hasLeft() {
        return closed;
    }

    /** @return the limiter this member bounds */
    public Limiter limiter() {
        return limiter;
    }

    /** @return the backend's key */
    public String key() {
        return key;
    }

    /** @return this node's id */
    public String nodeId() {
        return nodeId;
    }

    /** @return this process's random incarnation */
    public String incarnation() {
        return incarnation;
    }

    /** @return the heartbeat period */
    public Duration heartbeat() {
        return heartbeat;
    }

    /** @return the sync interval: how often this node reports while it has work */
    public Duration syncInterval() {
        return syncInterval;
    }

    /** @return the TTL of this node's reports */
    public Duration ttl() {
        return ttl;
    }

    /** @return the outage policy */
    public OutagePolicy outagePolicy() {
        return policy;
    }

    @Override
    public String toString() {
        return "FleetMember[key=" + key + ", nodeId=" + nodeId + ", " + stats() + "]";
    }

    private void emit(FleetEvent event) {
        Listeners.tellAll(listeners, event, FleetListener::onEvent, listenerFailures);
    }


    /** One heartbeat: its order, when it left, what it said and which share it announced. */
    private record Beat(long seq, long sentNanos, NodeReport report, int want) {
    }

    /**
     * Configures and joins a {@link FleetMember}. Not thread-safe. Every option is checked when
     * set or, for those that depend on each other, by {@link #join()}, which throws
     * {@link IllegalArgumentException} naming the option and the value.
     */
    public static final class Builder {
        private static final Duration MAX_PERIOD = MAX_HEARTBEAT;

        private final Limiter limiter;
        private final Coordinator coordinator;
        private String key;
        private String nodeId;
        private Duration heartbeat = DEFAULT_HEARTBEAT;
        private Duration ttl;
        private Duration syncInterval;
        private boolean learn = true;
        private OutagePolicy policy = OutagePolicy.FAIL_CLOSED;
        private Clock clock = Clock.systemUTC();
        private final List<FleetListener> listeners = new ArrayList<>();

        private Builder(Limiter limiter, Coordinator coordinator) {
            this.limiter = Objects.requireNonNull(limiter, "limiter");
            this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
        }

        /**
         * @param key the backend's key, shared by every node that calls it; required, not blank
         * @return this builder
         */
        public Builder key(String key) {
            this.key = key;
            return this;
        }

        /**
         * @param nodeId this node's id, unique in the fleet; required, not blank, no default
         *               (two nodes with one id would be told apart only by incarnation)
         * @return this builder
         */
        public Builder nodeId(String nodeId) {
            this.nodeId = nodeId;
            return this;
        }

        /**
         * @param heartbeat the report period, positive; default 1 s
         * @return this builder
         */
        public Builder heartbeat(Duration heartbeat) {
            if (heartbeat == null || heartbeat.isNegative() || heartbeat.isZero()) {
                throw new IllegalArgumentException("heartbeat must be positive: " + heartbeat);
            }
            this.heartbeat = heartbeat;
            return this;
        }

        /**
         * @param ttl how long a report stays live without another heartbeat; must exceed the
         *            heartbeat; default twice the heartbeat
         * @return this builder
         */
        public Builder ttl(Duration ttl) {
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl must be positive: " + ttl);
            }
            this.ttl = ttl;
            return this;
        }

        /**
         * The rules by which the fleet learns its backend's capacity (on by default):
         * the limiter's samples carry the fleet's in flight (its own plus what the others last
         * reported, {@link Limiter#othersInflight(int)}), so each local limit, and the global
         * ceiling their median, estimates what the backend takes in total; another member's
         * Retry-After is folded into the local limit ({@link Limiter#rateLimitedElsewhere});
         * a node with calls in flight or waiting reports every {@link #syncInterval(Duration)};
         * shares follow demand (an idle node keeps one slot, its room goes to the nodes with
         * work); a node never takes more than the room the others' claims leave; and members
         * resume from a fleet pause one after another, spread over one sync interval.
         * docs/core-guard-fleet.md has the rules and the figures.
         *
         * Off, the fleet runs the earlier rules: every node reports once a heartbeat, samples are
         * the node's own, and {@code G} is split evenly whatever each node's demand.
         *
         * @param learn whether to learn the fleet's capacity; default {@code true}
         * @return this builder
         */
        public Builder learnCapacity(boolean learn) {
            this.learn = learn;
            return this;
        }

        /**
         * @param syncInterval how often a node that has calls in flight or waiting (or a share
         *                     it has not reached yet) reports, so that shares and the global
         *                     ceiling follow the backend at the pace of the calls; positive, at
         *                     most the heartbeat; default the heartbeat divided by
         *                     {@value FleetMember#SYNC_PER_HEARTBEAT} (100 ms for 1 s). Each
         *                     report is one call to the coordinator. Used with
         *                     {@link #learnCapacity(boolean)}
         * @return this builder
         */
        public Builder syncInterval(Duration syncInterval) {
            if (syncInterval == null || syncInterval.isNegative() || syncInterval.isZero()) {
                throw new IllegalArgumentException("syncInterval must be positive: " + syncInterval);
            }
            this.syncInterval = syncInterval;
            return this;
        }

        /**
         * @param policy what to do while the coordinator does not answer; default
         *               {@link OutagePolicy#FAIL_CLOSED}
         * @return this builder
         */
        public Builder outagePolicy(OutagePolicy policy) {
            this.policy = Objects.requireNonNull(policy, "outagePolicy");
            return this;
        }

        /**
         * @param clock the wall clock in which fleet pauses and report times are written;
         *              default {@link Clock#systemUTC()}; in virtual time,
         *              {@link dev.adaptive.time.VirtualTime#clock(Instant)}
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param listener told of every {@link FleetEvent}; may be called several times
         * @return this builder
         */
        public Builder listener(FleetListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Checks the options, attaches to the limiter (ceiling 0 until the first share is
         * validated), subscribes to the fleet's pauses and sends the first heartbeat.
         *
         * <p>A join that fails after the options were checked (the coordinator's subscription
         * throws, or the limiter's scheduler refuses the first heartbeat's timer) throws what
         * was thrown and leaves the limiter as it was: its ceiling, no hook, no subscription, no
         * report stored.
         *
         * @return the running member
         * @throws IllegalArgumentException naming the first invalid option and its value
         */
        public FleetMember join() {
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("key must be set and not blank: " + quoted(key));
            }
            if (nodeId == null || nodeId.isBlank()) {
                throw new IllegalArgumentException("nodeId must be set and not blank (there is no default: "
                        + "two nodes with one id corrupt the fleet's view): " + quoted(nodeId));
            }
            if (heartbeat.compareTo(MAX_PERIOD) > 0) {
                throw new IllegalArgumentException("heartbeat must be at most " + MAX_PERIOD + ": " + heartbeat);
            }
            if (syncInterval != null && syncInterval.compareTo(heartbeat) > 0) {
                throw new IllegalArgumentException("syncInterval must be at most heartbeat (" + heartbeat + "): "
                        + syncInterval);
            }
            if (ttl != null && ttl.compareTo(heartbeat) <= 0) {
                throw new IllegalArgumentException("ttl must exceed heartbeat (" + heartbeat + "): " + ttl);
            }
            if (ttl != null && ttl.compareTo(MAX_PERIOD.multipliedBy(2)) > 0) {
                throw new IllegalArgumentException("ttl must be at most " + MAX_PERIOD.multipliedBy(2) + ": " + ttl);
            }
            FleetMember member = new FleetMember(this);
            member.start();
            return member;
        }

        private static String quoted(String s) {
            return s == null ? "null" : "'" + s + "'";
        }
    }
}
