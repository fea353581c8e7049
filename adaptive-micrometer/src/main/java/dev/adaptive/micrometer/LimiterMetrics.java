package dev.adaptive.micrometer;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;
import dev.adaptive.limit.Outcome;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.FleetStats;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds one {@link Limiter} to a Micrometer {@link MeterRegistry}: gauges read the limiter when
 * the registry is scraped, counters read its {@link LimiterStats} counters (so nothing is
 * counted twice, and a binder added late still shows the counts from the limiter's start), and
 * a timer of attempt round-trip times is fed by a {@link TraceListener} added at
 * {@link #bindTo(MeterRegistry)}.
 *
 * <p>Every meter is tagged {@code name} (the limiter's {@link Limiter#name()}), plus the tags
 * given to the builder; fleet meters also {@code fleet} (the fleet key). Names:
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>extra tags</th><th>what</th></tr>
 *   <tr><td>{@code adaptive.limiter.limit}</td><td>gauge</td><td></td><td>the effective limit</td></tr>
 *   <tr><td>{@code adaptive.limiter.inflight}</td><td>gauge</td><td></td><td>leases held</td></tr>
 *   <tr><td>{@code adaptive.limiter.waiting}</td><td>gauge</td><td></td><td>acquisitions queued</td></tr>
 *   <tr><td>{@code adaptive.limiter.paused}</td><td>gauge</td><td></td><td>1 while a Retry-After pause is open</td></tr>
 *   <tr><td>{@code adaptive.limiter.outage}</td><td>gauge</td><td></td><td>1 while an outage holds dispatch to one probe at a time</td></tr>
 *   <tr><td>{@code adaptive.limiter.pause.remaining}</td><td>time gauge</td><td></td><td>what is left of it</td></tr>
 *   <tr><td>{@code adaptive.limiter.attempts}</td><td>counter</td><td>{@code outcome}</td><td>attempts released, by outcome</td></tr>
 *   <tr><td>{@code adaptive.limiter.retries}</td><td>counter</td><td>{@code cause}</td><td>retries decided, by cause</td></tr>
 *   <tr><td>{@code adaptive.limiter.pauses}</td><td>counter</td><td></td><td>Retry-After pauses opened</td></tr>
 *   <tr><td>{@code adaptive.limiter.limit.changes}</td><td>counter</td><td>{@code direction}</td><td>limit moves</td></tr>
 *   <tr><td>{@code adaptive.limiter.shed}</td><td>counter</td><td></td><td>acquisitions refused at once: full, paused, or others queued first</td></tr>
 *   <tr><td>{@code adaptive.limiter.retries.refused}</td><td>counter</td><td></td><td>retries the retry budget refused</td></tr>
 *   <tr><td>{@code adaptive.limiter.quota.holds}</td><td>counter</td><td></td><td>holds of dispatch by an announced quota</td></tr>
 *   <tr><td>{@code adaptive.limiter.outages}</td><td>counter</td><td></td><td>outages met</td></tr>
 *   <tr><td>{@code adaptive.limiter.callback.failures}</td><td>counter</td><td>{@code callback}</td><td>user callbacks that threw</td></tr>
 *   <tr><td>{@code adaptive.limiter.attempt.rtt}</td><td>timer</td><td>{@code outcome}</td><td>attempt round trips</td></tr>
 *   <tr><td>{@code adaptive.fleet.share}</td><td>gauge</td><td>{@code fleet}</td><td>this node's ceiling</td></tr>
 *   <tr><td>{@code adaptive.fleet.ceiling}</td><td>gauge</td><td>{@code fleet}</td><td>the fleet's ceiling</td></tr>
 *   <tr><td>{@code adaptive.fleet.nodes}</td><td>gauge</td><td>{@code fleet}</td><td>live nodes</td></tr>
 * </table>
 *
 * <p>Tag values: {@code outcome} is {@code success}, {@code dropped}, {@code rate_limited} or
 * {@code ignored}; {@code cause} is {@code error}, {@code timeout} or {@code rate_limited};
 * {@code direction} is {@code increase} or {@code decrease}; {@code callback} is
 * {@code listener}, {@code limit} (the algorithm or the admission gate) or {@code classifier}.
 *
 * <p>The timer sees the attempts of the runners on the limiter (executor, pool, queue, Camel,
 * Vert.x), which emit {@link TraceEvent.TaskEnd}; a limiter used only through
 * {@code acquire}/{@code release} has no timer samples. While it is bound, the runners build
 * one {@link TraceEvent.TaskEnd} per attempt (and no other trace event, unless another listener
 * wants them), a small cost per attempt; {@link Builder#attemptTimer(boolean)} turns it off.
 *
 * <p>Thread-safe. {@link #bindTo(MeterRegistry)} may be called for several registries (again
 * for one already bound, it does nothing); {@link #close()} removes every meter it registered
 * and the trace listener. The binds and the close of one binding run one at a time: a bind into
 * a registry this binding is being bound to on another thread waits for that bind, then does
 * nothing (or binds, if that one failed). One registry holds the meters of one limiter per name
 * and tags: a registry that already has them (another limiter of the same name, or a composite
 * this binding already feeds), or that another binding of the name and tags is being bound to
 * at that moment, is refused with an {@link IllegalStateException} naming the limiter, since
 * Micrometer would hand back the other limiter's meters, and closing either binding would then
 * remove the meters of both. A registry is user configuration, and its filters and listeners
 * may throw: a bind that fails leaves none of its meters in the registry (and may be tried
 * again), and a close removes every meter even if removing one throws.
 */
public final class LimiterMetrics implements MeterBinder, AutoCloseable {

    /** Prefix of the limiter's meters: {@value}. */
    public static final String LIMITER = "adaptive.limiter";
    /** Prefix of the fleet meters: {@value}. */
    public static final String FLEET = "adaptive.fleet";

    private final Limiter limiter;
    private final Tags tags;
    private final FleetMember fleet;
    private final boolean attemptTimer;
    /** The registries this binding is bound to; its lock is held by each bind and close. */
    private final List<Bound> bound = new ArrayList<>();

    /**
     * The name and tags of each binding bound (or binding) to a registry, from the start of its
     * bind to its close; see {@link #claim}. Weak keys: a registry dropped with bindings never
     * closed goes away all the same. Guarded by itself, held for no user code.
     */
    private static final Map<MeterRegistry, Set<Tags>> CLAIMED = new WeakHashMap<>();

    private record Bound(MeterRegistry registry, List<Meter> meters, TraceListener listener) {
    }

    private LimiterMetrics(Builder b) {
        this.limiter = b.limiter;
        this.tags = Tags.of("name", limiter.name()).and(b.tags);
        this.fleet = b.fleet;
        this.attemptTimer = b.attemptTimer;
    }

    /**
     * @param limiter the limiter to show
     * @return a builder: no extra tags, no fleet, with the attempt timer
     */
    public static Builder builder(Limiter limiter) {
        return new Builder(limiter);
    }

    /**
     * Binds a limiter with the defaults.
     *
     * @param limiter  the limiter
     * @param registry where its meters go
     * @return the binding; close it when the limiter goes away
     */
    public static LimiterMetrics bind(Limiter limiter, MeterRegistry registry) {
        LimiterMetrics m = builder(limiter).build();
        m.bindTo(registry);
        return m;
    }

    /**
     * Registers the limiter's meters in {@code registry}; nothing if this binding already did.
     *
     * @param registry where the meters go
     * @throws IllegalStateException if the registry already has the meters of a limiter of this
     *                               name and tags, or another binding of them is being bound to it
     * @throws RuntimeException      what the registry threw as it registered a meter (an
     *                               {@code Error} too); none of this bind's meters is left in it
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        // Held throughout: a second bind of this binding into the registry waits for the first and
        // then does nothing, instead of passing the checks beside it and adding a second timer
        // listener, which would count each attempt twice.
        synchronized (bound) {
            for (Bound b : bound) {
                if (b.registry() == registry) {
                    return;
                }
            }
            claim(registry);
            List<Meter> meters = new ArrayList<>();
            TraceListener listener = null;
            try {
                if (registry.find(LIMITER + ".limit").tags(tags).meter() != null) {
                    throw nameTaken();
                }
                registerAll(registry, meters);
                if (attemptTimer) {
                    AttemptTimers timers = new AttemptTimers(registry, meters, LIMITER + ".attempt.rtt", tags);
                    listener = timers;
                    limiter.addTraceListener(listener);
                }
            } catch (Throwable failed) {
                // Half a binding would stay for good: nothing could close it, and its limit gauge
                // would refuse every later bind of this limiter as a second limiter of its name.
                removeAll(registry, meters, failed);
                unclaim(registry);
                throw failed;
            }
            bound.add(new Bound(registry, meters, listener));
        }
    }

    /**
     * Claims this binding's name and tags in {@code registry} until {@link #close()}. The check
     * for the meters of another limiter of the name and their registration are two steps, and
     * Micrometer hands back the meter it has for an id: another limiter's bind between the two
     * would pass the check too, and the two bindings would share (and each close) one set of
     * meters. The claim makes the check and the taking of the name one step.
     */
    private void claim(MeterRegistry registry) {
        synchronized (CLAIMED) {
            if (!CLAIMED.computeIfAbsent(registry, r -> new HashSet<>()).add(tags)) {
                throw nameTaken();
            }
        }
    }

    private void unclaim(MeterRegistry registry) {
        synchronized (CLAIMED) {
            Set<Tags> claimed = CLAIMED.get(registry);
            if (claimed != null && claimed.remove(tags) && claimed.isEmpty()) {
                CLAIMED.remove(registry);
            }
        }
    }

    private IllegalStateException nameTaken() {
        return new IllegalStateException("the registry already has the meters of a limiter named '"
                + limiter.name() + "' " + tags + ", or is being given them: two limiters share that name (give each"
                + " its own), or the registry is in a composite this binding already feeds");
    }

    /** Registers every meter but the timers, each kept in {@code meters} as soon as it is. */
    private void registerAll(MeterRegistry registry, List<Meter> meters) {
        String p = LIMITER + ".";
        gauge(registry, meters, p + "limit", "The concurrency limit now", Limiter::limit);
        gauge(registry, meters, p + "inflight", "Attempts holding a slot now", Limiter::inflight);
        gauge(registry, meters, p + "waiting", "Acquisitions queued for a slot now", Limiter::waiting);
        gauge(registry, meters, p + "paused", "1 while a Retry-After pause holds all dispatch, else 0",
                l -> l.isRatePaused() ? 1 : 0);
        gauge(registry, meters, p + "outage", "1 while an outage holds dispatch to one probe at a time, else 0",
                l -> l.isOutage() ? 1 : 0);
        register(registry, meters, p + "pause.remaining", tags, () -> TimeGauge.builder(p + "pause.remaining",
                        limiter, TimeUnit.NANOSECONDS, l -> l.remainingPause().toNanos())
                .description("What is left of the open Retry-After pause; 0 when none is open")
                .tags(tags).strongReference(true).register(registry));
        family(registry, meters, p + "attempts", "Attempts released, by outcome", "outcome",
                series("success", LimiterStats::successes), series("dropped", LimiterStats::congestionEvents),
                series("rate_limited", LimiterStats::rateLimitEvents), series("ignored", LimiterStats::ignored));
        family(registry, meters, p + "retries", "Retries decided, by cause", "cause",
                series("error", LimiterStats::errorRetries), series("timeout", LimiterStats::timeoutRetries),
                series("rate_limited", LimiterStats::rateLimitRetries));
        family(registry, meters, p + "pauses", "Retry-After pauses opened", null,
                series(null, LimiterStats::pausesOpened));
        family(registry, meters, p + "limit.changes", "Moves of the limit, by direction", "direction",
                series("increase", LimiterStats::limitIncreases), series("decrease", LimiterStats::limitDecreases));
        family(registry, meters, p + "shed", "Acquisitions refused at once: a tryAcquire while the limiter was full,"
                + " a Retry-After pause was open or others were queued first, and an acquire beyond maxQueueSize", null,
                series(null, LimiterStats::shed));
        family(registry, meters, p + "retries.refused", "Refusals of a retry by the retry budget; the item asks again after its next backoff, and ends once its retries are spent", null,
                series(null, LimiterStats::retriesRefused));
        family(registry, meters, p + "quota.holds", "Times an announced quota held dispatch until its reset", null,
                series(null, LimiterStats::quotaHolds));
        family(registry, meters, p + "outages", "Outages met: runs of errors and timeouts during which dispatch went"
                + " one probe at a time", null, series(null, LimiterStats::outages));
        family(registry, meters, p + "callback.failures", "User callbacks that threw", "callback",
                series("listener", LimiterStats::listenerFailures), series("limit", LimiterStats::limitFailures),
                series("classifier", LimiterStats::classifierFailures));
        if (fleet != null) {
            Tags f = tags.and("fleet", fleet.key());
            fleetGauge(registry, meters, "share", "This node's share of the fleet's ceiling; NaN while local-only",
                    f, s -> s.share() == Integer.MAX_VALUE ? Double.NaN : s.share());
            fleetGauge(registry, meters, "ceiling", "The fleet's ceiling in the last heartbeat", f,
                    FleetStats::globalCeiling);
            fleetGauge(registry, meters, "nodes", "The fleet's live nodes in the last heartbeat", f,
                    FleetStats::liveNodes);
        }
    }

    /**
     * Registers one meter and keeps it in {@code meters}. A registry that throws may have kept the
     * meter all the same (its meter-added listeners run once it is in): it is then removed by its
     * name and tags, which is all a registry needs to find a meter it was asked for, unless a
     * meter of that name and tags was there before, which is someone else's.
     */
    private static <M extends Meter> M register(MeterRegistry registry, List<Meter> meters, String name, Tags tags,
                                                Supplier<M> registration) {
        boolean someoneElses = registry.find(name).tags(tags).meter() != null;
        try {
            M meter = registration.get();
            meters.add(meter);
            return meter;
        } catch (Throwable failed) {
            if (!someoneElses) {
                try {
                    registry.removeByPreFilterId(new Meter.Id(name, tags, null, null, Meter.Type.OTHER));
                } catch (Throwable alsoFailed) {
                    failed.addSuppressed(alsoFailed);
                }
            }
            throw failed;
        }
    }

    /**
     * Removes every meter of {@code meters}, each whatever the others do.
     *
     * @return {@code failure}, with what the registry threw added to it as suppressed; with no
     *         {@code failure}, the first thing the registry threw (the others suppressed in it), or
     *         {@code null}
     */
    private static Throwable removeAll(MeterRegistry registry, List<Meter> meters, Throwable failure) {
        for (Meter m : meters) {
            try {
                registry.remove(m);
            } catch (Throwable failed) {
                if (failure == null) {
                    failure = failed;
                } else {
                    failure.addSuppressed(failed);
                }
            }
        }
        return failure;
    }

    private void gauge(MeterRegistry registry, List<Meter> meters, String name, String description,
                       ToDoubleFunction<Limiter> f) {
        register(registry, meters, name, tags, () -> Gauge.builder(name, limiter, f).description(description)
                .tags(tags).strongReference(true).register(registry));
    }

    /** One counter of a family: its tag's value ({@code null} for an untagged counter) and what it reads. */
    private record Series(String value, ToDoubleFunction<LimiterStats> count) {
    }

    private static Series series(String value, ToDoubleFunction<LimiterStats> count) {
        return new Series(value, count);
    }

    /** Registers one function counter per series, all under one name, told apart by {@code tag}. */
    private void family(MeterRegistry registry, List<Meter> meters, String name, String description, String tag,
                        Series... series) {
        for (Series one : series) {
            Tags t = tag == null ? tags : tags.and(tag, one.value());
            ToDoubleFunction<LimiterStats> count = one.count();
            register(registry, meters, name, t, () -> FunctionCounter.builder(name, limiter,
                            l -> count.applyAsDouble(l.stats()))
                    .description(description).tags(t).register(registry));
        }
    }

    private void fleetGauge(MeterRegistry registry, List<Meter> meters, String name, String description, Tags t,
                            ToDoubleFunction<FleetStats> f) {
        String full = FLEET + "." + name;
        register(registry, meters, full, t, () -> Gauge.builder(full, fleet, m -> f.applyAsDouble(m.stats()))
                .description(description).tags(t).strongReference(true).register(registry));
    }

    /**
     * Removes every meter registered by {@link #bindTo(MeterRegistry)} and the trace listener.
     * Idempotent. A registry that throws as a meter is removed (a meter-removed listener) does
     * not keep the others: every meter of every registry is removed, and then the first failure
     * is thrown, the others suppressed in it.
     */
    @Override
    public void close() {
        Throwable failure = null;
        synchronized (bound) {
            for (Bound b : bound) {
                if (b.listener() != null) {
                    limiter.removeTraceListener(b.listener());
                }
                failure = removeAll(b.registry(), b.meters(), failure);
                unclaim(b.registry());
            }
            bound.clear();
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException("a registry failed to remove a meter of limiter '" + limiter.name() + "'",
                    failure);
        }
    }

    /** @return the tags every meter carries: {@code name} and the builder's */
    public Tags tags() {
        return tags;
    }

    /** One timer per outcome, fed by the runners' {@link TraceEvent.TaskEnd}. */
    private static final class AttemptTimers implements TraceListener {
        private final Timer success;
        private final Timer dropped;
        private final Timer rateLimited;
        private final Timer ignored;

        /** Registers the four timers, each kept in {@code meters} as soon as it is. */
        AttemptTimers(MeterRegistry registry, List<Meter> meters, String name, Tags tags) {
            success = timer(registry, meters, name, tags, "success");
            dropped = timer(registry, meters, name, tags, "dropped");
            rateLimited = timer(registry, meters, name, tags, "rate_limited");
            ignored = timer(registry, meters, name, tags, "ignored");
        }

        private static Timer timer(MeterRegistry registry, List<Meter> meters, String name, Tags tags,
                                   String outcome) {
            Tags t = tags.and("outcome", outcome);
            return register(registry, meters, name, t, () -> Timer.builder(name)
                    .description("Round trip of one attempt, by outcome").tags(t).register(registry));
        }

        /** Only the attempts' ends: the engine then builds no other event for this binder. */
        @Override
        public boolean accepts(Class<? extends TraceEvent> kind) {
            return kind == TraceEvent.TaskEnd.class;
        }

        @Override
        public void onEvent(TraceEvent event) {
            if (event instanceof TraceEvent.TaskEnd end) {
                Outcome o = end.outcome();
                Timer t = o instanceof Outcome.Success ? success : o instanceof Outcome.Dropped ? dropped
                        : o instanceof Outcome.RateLimited ? rateLimited : ignored;
                t.record(end.rttNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    /** Builds a {@link LimiterMetrics}. Not thread-safe; {@link #build()} copies the options. */
    public static final class Builder {
        private final Limiter limiter;
        private Tags tags = Tags.empty();
        private FleetMember fleet;
        private boolean attemptTimer = true;

        private Builder(Limiter limiter) {
            this.limiter = Objects.requireNonNull(limiter, "limiter");
        }

        /**
         * @param tags added to every meter; default none; {@code name} is always there
         * @return this
         * @throws IllegalArgumentException for a key the meters set themselves (see {@link #tag})
         */
        public Builder tags(Iterable<Tag> tags) {
            Objects.requireNonNull(tags, "tags");
            for (Tag t : tags) {
                checkKey(t.getKey(), t.getValue());
            }
            this.tags = this.tags.and(tags);
            return this;
        }

        /**
         * @param key   a tag key; not one the meters set themselves: {@code name} (the limiter's
         *              name), {@code outcome}, {@code cause}, {@code direction}, {@code callback}
         *              or {@code fleet}
         * @param value its value
         * @return this
         * @throws NullPointerException     naming the tag, if the key or the value is {@code null}
         * @throws IllegalArgumentException for a key the meters set themselves
         */
        public Builder tag(String key, String value) {
            if (key == null) {
                throw new NullPointerException("a tag has no key (its value: '" + value + "')");
            }
            if (value == null) {
                throw new NullPointerException("tag '" + key + "' has no value");
            }
            checkKey(key, value);
            this.tags = this.tags.and(key, value);
            return this;
        }

        /**
         * A tag the meters set would replace the limiter's name on every meter, or be replaced on
         * some meters only (an {@code outcome} on the attempts), so that one tag's value would
         * differ between the meters of one binding.
         */
        private void checkKey(String key, String value) {
            String setBy = switch (key) {
                case "name" -> "name: the limiter's name, '" + limiter.name() + "'; give the limiter the name instead";
                case "outcome", "cause", "direction", "callback" -> key + ": a series of the meters of one name";
                case "fleet" -> "fleet: the fleet's key, on the fleet's meters";
                default -> null;
            };
            if (setBy != null) {
                throw new IllegalArgumentException("tag '" + key + "' is set by the meters (" + setBy + "): " + value);
            }
        }

        /**
         * @param fleet the limiter's fleet membership, for the {@code adaptive.fleet.*} gauges;
         *              default none
         * @return this
         */
        public Builder fleet(FleetMember fleet) {
            this.fleet = fleet;
            return this;
        }

        /**
         * @param on whether to keep the {@code adaptive.limiter.attempt.rtt} timer, which adds a
         *           trace listener to the limiter; default {@code true}
         * @return this
         */
        public Builder attemptTimer(boolean on) {
            this.attemptTimer = on;
            return this;
        }

        /** @return the binder; nothing is registered until {@link LimiterMetrics#bindTo(MeterRegistry)} */
        public LimiterMetrics build() {
            return new LimiterMetrics(this);
        }
    }
}
