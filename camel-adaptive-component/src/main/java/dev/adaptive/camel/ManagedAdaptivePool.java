package dev.adaptive.camel;

import dev.adaptive.LimiterStats;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedResource;

/**
 * The JMX view of one {@code adaptive:} pool: one MBean per pool, however many endpoints share
 * it, so that summing over the MBeans counts each pool once. Registered by the component when
 * the pool is created, as {@code org.apache.camel:context="<context>",type=adaptive-pools,name="<pool>"}
 * (Camel's management domain; the context's management name and the pool's name, each quoted by
 * {@link javax.management.ObjectName#quote}), and removed when the component stops. Before the pool's first exchange its figures are 0
 * (the fleet's -1) and its state {@code NOT_STARTED}. Thread-safe: every attribute reads the
 * pool's live figures.
 */
@ManagedResource(description = "Managed adaptive pool: its limit, load, Retry-After pauses and counters")
public final class ManagedAdaptivePool {

    private final AdaptiveComponent component;
    private final ExchangePool pool;
    private final String name;

    ManagedAdaptivePool(AdaptiveComponent component, ExchangePool pool) {
        this.component = component;
        this.pool = pool;
        this.name = pool.name();
    }

    private AdaptiveStats statsOrIdle() {
        return component.stats(name).orElse(null);
    }

    private LimiterStats limiterOrIdle() {
        return pool.limiterStats();
    }

    /** @return the pool's concurrency limit now, 0 before it starts */
    @ManagedAttribute(description = "The pool's concurrency limit now")
    public int getLimit() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.limit();
    }

    /** @return attempts holding a slot now */
    @ManagedAttribute(description = "Attempts holding a slot now")
    public int getInflight() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.inflight();
    }

    /** @return exchanges queued for a slot now */
    @ManagedAttribute(description = "Exchanges queued for a slot now")
    public int getWaiting() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.waiting();
    }

    /** @return exchanges accepted and not yet ended */
    @ManagedAttribute(description = "Exchanges accepted and not yet ended (in flight, queued, in backoff)")
    public int getPending() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.pending();
    }

    /** @return the highest limit so far */
    @ManagedAttribute(description = "The highest concurrency limit so far")
    public int getMaxLimitReached() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.maxLimitReached();
    }

    /** @return whether a Retry-After pause is open */
    @ManagedAttribute(description = "Whether a Retry-After pause is open now")
    public boolean isRatePaused() {
        AdaptiveStats s = statsOrIdle();
        return s != null && s.ratePaused();
    }

    /** @return the limiter's lifecycle state, or NOT_STARTED */
    @ManagedAttribute(description = "The limiter's state: RUNNING, PAUSED, STOPPED, ABORTED, or NOT_STARTED")
    public String getPoolState() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? "NOT_STARTED" : s.state().name();
    }

    /** @return exchanges accepted */
    @ManagedAttribute(description = "Exchanges accepted")
    public long getExchangesAccepted() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.accepted();
    }

    /** @return exchanges that ended in success */
    @ManagedAttribute(description = "Exchanges that ended with the consumer route's success")
    public long getExchangesCompleted() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.completed();
    }

    /** @return exchanges that ended with an exception */
    @ManagedAttribute(description = "Exchanges that ended with an exception")
    public long getExchangesFailed() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.failed();
    }

    /** @return exchanges refused at once */
    @ManagedAttribute(description = "Exchanges refused at once: queue full, pool stopped, no consumer")
    public long getExchangesRejected() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.rejected();
    }

    /** @return attempts started */
    @ManagedAttribute(description = "Attempts started")
    public long getAttempts() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.attempts();
    }

    /** @return attempts after the first */
    @ManagedAttribute(description = "Attempts after the first, of any exchange")
    public long getRetryAttempts() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.retries();
    }

    /** @return dropped attempts */
    @ManagedAttribute(description = "Dropped attempts: failed or timed out")
    public long getCongestionEvents() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.congestionEvents();
    }

    /** @return rate-limited attempts */
    @ManagedAttribute(description = "Rate-limited attempts")
    public long getRateLimitEvents() {
        AdaptiveStats s = statsOrIdle();
        return s == null ? 0 : s.rateLimitEvents();
    }

    /** @return this pool's share of the fleet's ceiling, or -1 without a coordinator */
    @ManagedAttribute(description = "This pool's share of the fleet's ceiling; -1 without a coordinator")
    public int getFleetShare() {
        AdaptiveStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().share();
    }

    /** @return the fleet's ceiling, or -1 without a coordinator */
    @ManagedAttribute(description = "The fleet's global ceiling in the last heartbeat; -1 without a coordinator")
    public int getFleetCeiling() {
        AdaptiveStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().globalCeiling();
    }

    /** @return the live nodes of the fleet, or -1 without a coordinator */
    @ManagedAttribute(description = "The fleet's live nodes in the last heartbeat; -1 without a coordinator")
    public int getFleetLiveNodes() {
        AdaptiveStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().liveNodes();
    }

    /** @return Retry-After pauses opened, 0 before the pool starts */
    @ManagedAttribute(description = "Retry-After pauses opened (an extension of an open pause is not counted)")
    public long getPauseCount() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.pausesOpened();
    }

    /** @return whether an outage holds the pool to one probe at a time */
    @ManagedAttribute(description = "Whether an outage (a run of errors in which calls sent after the first failed too) holds"
            + " dispatch to one probe at a time")
    public boolean isOutage() {
        return pool.outage();
    }

    /** @return outages the pool's limiter met, 0 before the pool starts */
    @ManagedAttribute(description = "Outages met: runs of errors during which dispatch went one probe at a time")
    public long getOutageCount() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.outages();
    }

    /** @return milliseconds left of the open Retry-After pause, 0 when none is open */
    @ManagedAttribute(description = "Milliseconds left of the open Retry-After pause; 0 when none is open")
    public long getRemainingPauseMillis() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.remainingPause().toMillis();
    }

    /** @return the last Retry-After a server sent, in milliseconds, before the cap; 0 before the first */
    @ManagedAttribute(description = "The last Retry-After seen, in milliseconds, before maxRetryAfter capped it;"
            + " 0 before the first")
    public long getLastRetryAfterMillis() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.lastRetryAfter().toMillis();
    }

    /** @return moves of the limit upwards */
    @ManagedAttribute(description = "Moves of the concurrency limit upwards")
    public long getLimitIncreases() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.limitIncreases();
    }

    /** @return moves of the limit downwards */
    @ManagedAttribute(description = "Moves of the concurrency limit downwards")
    public long getLimitDecreases() {
        LimiterStats s = limiterOrIdle();
        return s == null ? 0 : s.limitDecreases();
    }

    /** @return the pool's name */
    @ManagedAttribute(description = "The pool's name")
    public String getName() {
        return name;
    }
}
