package dev.adaptive.vertx;

import dev.adaptive.Limiter;
import dev.adaptive.LimiterStats;

import java.util.Map;
import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.json.JsonObject;

/**
 * A limiter's figures, as {@link AdaptiveLimiter#stats()} and the stats publication show them: a
 * Vert.x data object whose JSON converter vertx-codegen generates. {@code pausedForMs} is what is
 * left of an open Retry-After pause, rounded up; {@code metrics} are the algorithm's (a value
 * that is not finite, "not known yet", is null). Not thread-safe; a snapshot.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptiveLimiterStats extends JsonDataObject {

    private String name;
    private int limit;
    private int localLimit;
    private int inflight;
    private int waiting;
    private int maxLimitReached;
    private long congestionEvents;
    private long rateLimitEvents;
    private boolean ratePaused;
    private long pausedForMs;
    private boolean outage;
    private long outages;
    private String state;
    private long listenerFailures;
    private long limitFailures;
    private String algorithm;
    private JsonObject metrics;

    /** Every figure at zero. */
    public AdaptiveLimiterStats() {
    }

    /** @param json the figures, as {@link #toJson()} writes them */
    public AdaptiveLimiterStats(JsonObject json) {
        AdaptiveLimiterStatsConverter.fromJson(json, this);
    }

    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptiveLimiterStatsConverter.toJson(this, json);
        return json;
    }

    /**
     * Never throws for the limiter's time source: a {@link dev.adaptive.time.Ticker} that throws
     * as the open pause's remaining time is read gives at most the whole pause in
     * {@code pausedForMs}, and the throw is counted in these stats' {@code limitFailures}, as
     * {@link Limiter#stats()} does.
     *
     * @param name    the limiter's name
     * @param limiter the engine
     * @return a snapshot of its figures
     */
    public static AdaptiveLimiterStats of(String name, Limiter limiter) {
        LimiterStats s = limiter.stats();
        // The stats' own reading of the pause, not one more of the ticker: theirs is guarded (a
        // ticker that throws gives at most the whole pause, and is counted in these stats'
        // limitFailures); a reading here threw out of of(), and so out of stats() and the
        // stats publication.
        long left = s.remainingPause().toNanos();
        JsonObject metrics = new JsonObject();
        try {
            for (Map.Entry<String, Double> e : limiter.limitState().metrics().entrySet()) {
                double v = e.getValue();
                // JSON has no NaN or infinity; an algorithm's "not yet known" would break encoding.
                metrics.put(e.getKey(), Double.isFinite(v) ? v : null);
            }
        } catch (Throwable brokenLimit) {
            // A user's limit whose metrics cannot be read: the stats still go out, without them.
            metrics.clear();
        }
        return new AdaptiveLimiterStats().setName(name).setLimit(s.limit()).setLocalLimit(limiter.localLimit())
                .setInflight(s.inflight()).setWaiting(s.waiting()).setMaxLimitReached(s.maxLimitReached())
                .setCongestionEvents(s.congestionEvents()).setRateLimitEvents(s.rateLimitEvents())
                .setRatePaused(s.ratePaused()).setPausedForMs(left / 1_000_000 + (left % 1_000_000 == 0 ? 0 : 1))
                .setOutage(limiter.isOutage()).setOutages(s.outages())
                .setState(s.state().name()).setListenerFailures(s.listenerFailures())
                .setLimitFailures(s.limitFailures()).setAlgorithm(limiter.algorithm().name()).setMetrics(metrics);
    }

    /** @return the limiter's name */
    public String getName() {
        return name;
    }

    /**
     * @param name the limiter's name
     * @return this
     */
    public AdaptiveLimiterStats setName(String name) {
        this.name = name;
        return this;
    }

    /** @return the effective limit */
    public int getLimit() {
        return limit;
    }

    /**
     * @param limit the effective limit
     * @return this
     */
    public AdaptiveLimiterStats setLimit(int limit) {
        this.limit = limit;
        return this;
    }

    /** @return the algorithm's own limit, before a fleet ceiling */
    public int getLocalLimit() {
        return localLimit;
    }

    /**
     * @param localLimit the algorithm's own limit, before a fleet ceiling
     * @return this
     */
    public AdaptiveLimiterStats setLocalLimit(int localLimit) {
        this.localLimit = localLimit;
        return this;
    }

    /** @return calls in flight */
    public int getInflight() {
        return inflight;
    }

    /**
     * @param inflight calls in flight
     * @return this
     */
    public AdaptiveLimiterStats setInflight(int inflight) {
        this.inflight = inflight;
        return this;
    }

    /** @return calls waiting for a slot */
    public int getWaiting() {
        return waiting;
    }

    /**
     * @param waiting calls waiting for a slot
     * @return this
     */
    public AdaptiveLimiterStats setWaiting(int waiting) {
        this.waiting = waiting;
        return this;
    }

    /** @return the highest limit reached */
    public int getMaxLimitReached() {
        return maxLimitReached;
    }

    /**
     * @param maxLimitReached the highest limit reached
     * @return this
     */
    public AdaptiveLimiterStats setMaxLimitReached(int maxLimitReached) {
        this.maxLimitReached = maxLimitReached;
        return this;
    }

    /** @return dropped calls that decreased the limit */
    public long getCongestionEvents() {
        return congestionEvents;
    }

    /**
     * @param congestionEvents dropped calls that decreased the limit
     * @return this
     */
    public AdaptiveLimiterStats setCongestionEvents(long congestionEvents) {
        this.congestionEvents = congestionEvents;
        return this;
    }

    /** @return rate-limited calls */
    public long getRateLimitEvents() {
        return rateLimitEvents;
    }

    /**
     * @param rateLimitEvents rate-limited calls
     * @return this
     */
    public AdaptiveLimiterStats setRateLimitEvents(long rateLimitEvents) {
        this.rateLimitEvents = rateLimitEvents;
        return this;
    }

    /** @return whether a Retry-After pause is open */
    public boolean isRatePaused() {
        return ratePaused;
    }

    /**
     * @param ratePaused whether a Retry-After pause is open
     * @return this
     */
    public AdaptiveLimiterStats setRatePaused(boolean ratePaused) {
        this.ratePaused = ratePaused;
        return this;
    }

    /** @return whether an outage holds dispatch to one probe at a time */
    public boolean isOutage() {
        return outage;
    }

    /**
     * @param outage whether an outage holds dispatch to one probe at a time
     * @return this
     */
    public AdaptiveLimiterStats setOutage(boolean outage) {
        this.outage = outage;
        return this;
    }

    /** @return outages the limiter met */
    public long getOutages() {
        return outages;
    }

    /**
     * @param outages outages the limiter met
     * @return this
     */
    public AdaptiveLimiterStats setOutages(long outages) {
        this.outages = outages;
        return this;
    }

    /** @return what is left of the pause, ms, rounded up */
    public long getPausedForMs() {
        return pausedForMs;
    }

    /**
     * @param pausedForMs what is left of the pause, ms, rounded up
     * @return this
     */
    public AdaptiveLimiterStats setPausedForMs(long pausedForMs) {
        this.pausedForMs = pausedForMs;
        return this;
    }

    /** @return the lifecycle state */
    public String getState() {
        return state;
    }

    /**
     * @param state the lifecycle state
     * @return this
     */
    public AdaptiveLimiterStats setState(String state) {
        this.state = state;
        return this;
    }

    /** @return listener calls that threw */
    public long getListenerFailures() {
        return listenerFailures;
    }

    /**
     * @param listenerFailures listener calls that threw
     * @return this
     */
    public AdaptiveLimiterStats setListenerFailures(long listenerFailures) {
        this.listenerFailures = listenerFailures;
        return this;
    }

    /** @return algorithm folds that threw or returned null */
    public long getLimitFailures() {
        return limitFailures;
    }

    /**
     * @param limitFailures algorithm folds that threw or returned null
     * @return this
     */
    public AdaptiveLimiterStats setLimitFailures(long limitFailures) {
        this.limitFailures = limitFailures;
        return this;
    }

    /** @return the algorithm's name */
    public String getAlgorithm() {
        return algorithm;
    }

    /**
     * @param algorithm the algorithm's name
     * @return this
     */
    public AdaptiveLimiterStats setAlgorithm(String algorithm) {
        this.algorithm = algorithm;
        return this;
    }

    /** @return the algorithm's metrics */
    public JsonObject getMetrics() {
        return metrics;
    }

    /**
     * @param metrics the algorithm's metrics
     * @return this
     */
    public AdaptiveLimiterStats setMetrics(JsonObject metrics) {
        this.metrics = metrics;
        return this;
    }

}
