package dev.adaptive.guard;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Load shedding for your own service: admits or sheds each incoming request by an inferred
 * concurrency limit, so that an overloaded server answers 503 at once instead of queueing.
 *
 * <pre>{@code
 * ConcurrencyGuard guard = ConcurrencyGuard.create();
 * GuardLease lease = guard.acquire();
 * if (!lease.admitted()) { respond(503); return; }
 * try {
 *     serve();
 *     lease.release();
 * } catch (TimeoutException e) {
 *     lease.release(true);
 * } finally {
 *     lease.releaseIgnored(); // any other failure gives the slot back; after a release, nothing
 * }
 * }</pre>
 *
 * <p>Release on every path: a lease never released keeps its slot for good, and {@link #limit()}
 * such leases leave the guard shedding every request.
 *
 * <p>{@link #acquire()} never waits: it returns an admitted lease while fewer than
 * {@link #limit()} requests are in flight, and a rejected one otherwise. The limit is a
 * {@link GuardGradient} (default {@link GuardGradient#defaults()}: minLimit 4, maxLimit 512,
 * initialLimit 4, rttWindow 100, smoothing 0.2, tolerance 2.0, backoffRatio 0.9, no
 * recalibration) fed with each request's latency from acquire to release.
 *
 * <p>While a {@link Recalibration} probe runs, its {@code probeLimit} bounds the requests
 * admitted since it began; those admitted before it drain on their own. {@link #limit()} is then
 * {@code probeLimit} plus the older requests still in flight, at most the limit before the
 * probe (or {@code probeLimit} if that is larger): it falls to {@code probeLimit} as they end,
 * and requests that last (streams, long polls) do not stop the probe from admitting.
 *
 * <p>Built on a {@link Limiter} whose {@code tryAcquire} sheds; the guard never queues, so the
 * limiter's scheduler is never used for waiting. Time is read only through the
 * {@link Ticker} (default {@link Ticker#system()}), so a guard runs in
 * {@link dev.adaptive.time.VirtualTime}.
 *
 * <p>Thread-safe and lock-free, like the limiter under it.
 */
public final class ConcurrencyGuard {

    private final Limiter limiter;
    private final GuardGradient gradient;
    private final boolean recalibrating;
    private final int probeLimit;
    // The requests admitted since the running probe began; replaced when a later probe is seen.
    private final AtomicReference<ProbeCohort> cohort = new AtomicReference<>(ProbeCohort.NONE);
    private final LongAdder admitted = new LongAdder();
    private final LongAdder shed = new LongAdder();

    private ConcurrencyGuard(Builder b) {
        this.gradient = b.gradient;
        this.recalibrating = b.gradient.recalibration() != null;
        this.probeLimit = b.gradient.probeLimit();
        // The guard bounds a probe's own requests itself; the limiter's limit during a probe then
        // bounds all in flight by the limit before it, and the older requests drain.
        Limiter.Builder lb = Limiter.builder().name(b.name).limit(b.gradient.withCohortProbes())
                .ticker(b.ticker).scheduler(b.scheduler)
                .maxQueueSize(0)
                // A guard sheds what it cannot admit: holding a server to one probe at a time
                // because its own handlers failed would shed requests it could serve.
                .outageProbe(Duration.ZERO);
        b.traceListeners.forEach(lb::traceListener);
        this.limiter = lb.build();
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a guard with every default, in real time */
    public static ConcurrencyGuard create() {
        return builder().build();
    }

    /**
     * Admits or sheds one request, at once.
     *
     * @return an admitted lease to release when the request ends, or a rejected one (whose
     *         release does nothing)
     */
    public GuardLease acquire() {
        // A request admitted as a probe begins, on a state read just before, is counted with the
        // older requests: the probe's bound is then loose by those few, for as long as they run.
        ProbeCohort probing = probeCohort();
        if (probing != null && !probing.tryEnter(probeLimit)) {
            shed.increment();
            return GuardLease.REJECTED;
        }
        Optional<Lease> lease = limiter.tryAcquire();
        if (lease.isEmpty()) {
            if (probing != null) {
                probing.leave();
            }
            shed.increment();
            return GuardLease.REJECTED;
        }
        admitted.increment();
        return GuardLease.admitted(lease.get(), probing);
    }

    /** @return the requests admitted since the running probe began, or {@code null} if none runs */
    private ProbeCohort probeCohort() {
        if (!recalibrating) {
            return null;
        }
        GuardGradient.State s = state();
        if (!s.probing()) {
            return null;
        }
        for (;;) {
            ProbeCohort c = cohort.get();
            // A later probe's cohort, met on a state read before that probe began, serves too:
            // it only holds this request to the later probe's count.
            if (c.probe() - s.probes() >= 0) {
                return c;
            }
            ProbeCohort next = new ProbeCohort(s.probes());
            if (cohort.compareAndSet(c, next)) {
                return next;
            }
        }
    }

    /**
     * The limiter under the guard, named as the guard: for its stats, trace listeners and meters
     * (bind it with {@code adaptive-micrometer}'s {@code LimiterMetrics}). Acquiring leases from
     * it directly takes slots from the guarded requests. While a recalibration probe runs, the
     * guard itself holds the requests admitted since the probe began to its {@code probeLimit}:
     * the limiter's limit is then the bound on all in flight, the limit before the probe (or
     * {@code probeLimit} if larger), and the requests the guard holds back are counted in
     * {@link GuardStats#shed()}, not in the limiter's stats.
     *
     * @return the guard's limiter
     */
    public Limiter limiter() {
        return limiter;
    }

    /**
     * @return the concurrency admitted now; while a recalibration probe runs, {@code probeLimit}
     *         plus the requests admitted before it and still in flight, at most the limit before
     *         the probe (or {@code probeLimit} if larger)
     */
    public int limit() {
        return limit(state());
    }

    private int limit(GuardGradient.State s) {
        int limit = limiter.limit();
        if (!s.probing()) {
            return limit;
        }
        ProbeCohort c = cohort.get();
        int newer = c.probe() == s.probes() ? c.inflight() : 0;
        int older = Math.max(0, limiter.inflight() - newer);
        return (int) Math.min(limit, (long) probeLimit + older);
    }

    /** @return requests admitted and not yet released */
    public int inflight() {
        return limiter.inflight();
    }

    /** @return a snapshot: limit, in flight, rttNoLoad, lastRtt, counters */
    public GuardStats stats() {
        GuardGradient.State s = state();
        return new GuardStats(limit(s), limiter.inflight(), Duration.ofNanos(s.rttNoLoadNanos()),
                Duration.ofNanos(s.lastRttNanos()), admitted.sum(), shed.sum(), s.probes(), s.probing());
    }

    /** @return the limit algorithm */
    public GuardGradient algorithm() {
        return gradient;
    }

    /** @return the algorithm's current state */
    public GuardGradient.State state() {
        return (GuardGradient.State) limiter.limitState();
    }

    /** @return the name given at build time */
    public String name() {
        return limiter.name();
    }

    @Override
    public String toString() {
        return "ConcurrencyGuard[" + name() + ", " + stats() + "]";
    }

    /**
     * Builds a {@link ConcurrencyGuard}. Not thread-safe; {@link #build()} copies every
     * option, so a builder may be reused.
     */
    public static final class Builder {
        private String name = "guard";
        private GuardGradient gradient = GuardGradient.defaults();
        private Ticker ticker = Ticker.system();
        private Scheduler scheduler = Scheduler.system();
        private final List<TraceListener> traceListeners = new ArrayList<>();

        private Builder() {
        }

        /**
         * @param name used in messages; default {@code "guard"}
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param gradient the limit; default {@link GuardGradient#defaults()}
         * @return this builder
         */
        public Builder limit(GuardGradient gradient) {
            this.gradient = Objects.requireNonNull(gradient, "limit");
            return this;
        }

        /**
         * @param ticker the clock latencies are measured on; default {@link Ticker#system()}
         * @return this builder
         */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Sets the ticker, and the scheduler of the limiter under the guard, from one object
         * such as {@link dev.adaptive.time.VirtualTime}.
         *
         * @param time both
         * @param <T>  a ticker that is also a scheduler
         * @return this builder
         */
        public <T extends Ticker & Scheduler> Builder time(T time) {
            this.ticker = Objects.requireNonNull(time, "time");
            this.scheduler = time;
            return this;
        }

        /**
         * @param listener receives the limiter's trace events; may be called several times
         * @return this builder
         */
        public Builder traceListener(TraceListener listener) {
            traceListeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** @return a new guard */
        public ConcurrencyGuard build() {
            return new ConcurrencyGuard(this);
        }
    }
}
