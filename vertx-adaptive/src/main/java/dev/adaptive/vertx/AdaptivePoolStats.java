package dev.adaptive.vertx;

import dev.adaptive.pool.ConcurrencySegment;
import dev.adaptive.pool.PoolStats;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.json.JsonObject;

/**
 * The figures of an {@link AdaptivePool} run (the core's {@link PoolStats}) as a Vert.x data object
 * whose JSON converter vertx-codegen generates, for logs, the event bus and HTTP answers.
 * Durations are in milliseconds; {@code timeAtConcurrencyMs} is keyed by limit; {@code stopReason}
 * and {@code stopCause} are absent when the run was not stopped early. Not thread-safe; a snapshot.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptivePoolStats extends JsonDataObject {

    private int finalConcurrency;
    private int maxConcurrencyReached;
    private long congestionEvents;
    private long rateLimitEvents;
    private long outages;
    private long totalRetries;
    private long totalAttempts;
    private long accepted;
    private long succeeded;
    private long failed;
    private long elapsedMs;
    private List<AdaptivePoolSegment> performanceData;
    private boolean performanceDataTruncated;
    private Map<String, Long> timeAtConcurrencyMs;
    private long callbackFailures;
    private long limitFailures;
    private String stopReason;
    private String stopCause;

    /** Every figure at zero. */
    public AdaptivePoolStats() {
    }

    /** @param json the figures, as {@link #toJson()} writes them */
    public AdaptivePoolStats(JsonObject json) {
        AdaptivePoolStatsConverter.fromJson(json, this);
    }

    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptivePoolStatsConverter.toJson(this, json);
        return json;
    }

    /**
     * @param stats a run's stats
     * @return them as a data object
     */
    public static AdaptivePoolStats of(PoolStats stats) {
        List<AdaptivePoolSegment> segments = new ArrayList<>();
        for (ConcurrencySegment s : stats.performanceData()) {
            segments.add(new AdaptivePoolSegment().setConcurrency(s.concurrency()).setDurationMs(s.duration().toMillis()));
        }
        Map<String, Long> atLimit = new TreeMap<>();
        stats.timeAtConcurrency().forEach((limit, d) -> atLimit.put(String.valueOf(limit), d.toMillis()));
        AdaptivePoolStats out = new AdaptivePoolStats().setFinalConcurrency(stats.finalConcurrency())
                .setMaxConcurrencyReached(stats.maxConcurrencyReached()).setCongestionEvents(stats.congestionEvents())
                .setRateLimitEvents(stats.rateLimitEvents()).setOutages(stats.outages()).setTotalRetries(stats.totalRetries())
                .setTotalAttempts(stats.totalAttempts()).setAccepted(stats.accepted()).setSucceeded(stats.succeeded())
                .setFailed(stats.failed()).setElapsedMs(stats.elapsed().toMillis()).setPerformanceData(segments)
                .setPerformanceDataTruncated(stats.performanceDataTruncated()).setTimeAtConcurrencyMs(atLimit)
                .setCallbackFailures(stats.callbackFailures()).setLimitFailures(stats.limitFailures());
        stats.stopCause().ifPresent(stop -> out.setStopReason(stop.reason().name())
                .setStopCause(String.valueOf(stop.getMessage())));
        return out;
    }

    /** @return the limit when the run ended */
    public int getFinalConcurrency() {
        return finalConcurrency;
    }

    /**
     * @param finalConcurrency the limit when the run ended
     * @return this
     */
    public AdaptivePoolStats setFinalConcurrency(int finalConcurrency) {
        this.finalConcurrency = finalConcurrency;
        return this;
    }

    /** @return the highest limit of the run */
    public int getMaxConcurrencyReached() {
        return maxConcurrencyReached;
    }

    /**
     * @param maxConcurrencyReached the highest limit of the run
     * @return this
     */
    public AdaptivePoolStats setMaxConcurrencyReached(int maxConcurrencyReached) {
        this.maxConcurrencyReached = maxConcurrencyReached;
        return this;
    }

    /** @return dropped attempts */
    public long getCongestionEvents() {
        return congestionEvents;
    }

    /**
     * @param congestionEvents dropped attempts
     * @return this
     */
    public AdaptivePoolStats setCongestionEvents(long congestionEvents) {
        this.congestionEvents = congestionEvents;
        return this;
    }

    /** @return rate-limited attempts */
    public long getRateLimitEvents() {
        return rateLimitEvents;
    }

    /**
     * @param rateLimitEvents rate-limited attempts
     * @return this
     */
    public AdaptivePoolStats setRateLimitEvents(long rateLimitEvents) {
        this.rateLimitEvents = rateLimitEvents;
        return this;
    }

    /** @return outages the limiter began during the run (held to one probe at a time) */
    public long getOutages() {
        return outages;
    }

    /**
     * @param outages outages the limiter began during the run
     * @return this
     */
    public AdaptivePoolStats setOutages(long outages) {
        this.outages = outages;
        return this;
    }

    /** @return attempts after the first */
    public long getTotalRetries() {
        return totalRetries;
    }

    /**
     * @param totalRetries attempts after the first
     * @return this
     */
    public AdaptivePoolStats setTotalRetries(long totalRetries) {
        this.totalRetries = totalRetries;
        return this;
    }

    /** @return attempts */
    public long getTotalAttempts() {
        return totalAttempts;
    }

    /**
     * @param totalAttempts attempts
     * @return this
     */
    public AdaptivePoolStats setTotalAttempts(long totalAttempts) {
        this.totalAttempts = totalAttempts;
        return this;
    }

    /** @return items accepted */
    public long getAccepted() {
        return accepted;
    }

    /**
     * @param accepted items accepted
     * @return this
     */
    public AdaptivePoolStats setAccepted(long accepted) {
        this.accepted = accepted;
        return this;
    }

    /** @return items that succeeded */
    public long getSucceeded() {
        return succeeded;
    }

    /**
     * @param succeeded items that succeeded
     * @return this
     */
    public AdaptivePoolStats setSucceeded(long succeeded) {
        this.succeeded = succeeded;
        return this;
    }

    /** @return items that failed */
    public long getFailed() {
        return failed;
    }

    /**
     * @param failed items that failed
     * @return this
     */
    public AdaptivePoolStats setFailed(long failed) {
        this.failed = failed;
        return this;
    }

    /** @return the run's duration, ms */
    public long getElapsedMs() {
        return elapsedMs;
    }

    /**
     * @param elapsedMs the run's duration, ms
     * @return this
     */
    public AdaptivePoolStats setElapsedMs(long elapsedMs) {
        this.elapsedMs = elapsedMs;
        return this;
    }

    /** @return the run as stretches at one limit, in order */
    public List<AdaptivePoolSegment> getPerformanceData() {
        return performanceData;
    }

    /**
     * @param performanceData the run as stretches at one limit, in order
     * @return this
     */
    public AdaptivePoolStats setPerformanceData(List<AdaptivePoolSegment> performanceData) {
        this.performanceData = performanceData;
        return this;
    }

    /** @return whether performanceData stopped at its bound */
    public boolean isPerformanceDataTruncated() {
        return performanceDataTruncated;
    }

    /**
     * @param performanceDataTruncated whether performanceData stopped at its bound
     * @return this
     */
    public AdaptivePoolStats setPerformanceDataTruncated(boolean performanceDataTruncated) {
        this.performanceDataTruncated = performanceDataTruncated;
        return this;
    }

    /** @return total time at each limit, ms */
    public Map<String, Long> getTimeAtConcurrencyMs() {
        return timeAtConcurrencyMs;
    }

    /**
     * @param timeAtConcurrencyMs total time at each limit, ms
     * @return this
     */
    public AdaptivePoolStats setTimeAtConcurrencyMs(Map<String, Long> timeAtConcurrencyMs) {
        this.timeAtConcurrencyMs = timeAtConcurrencyMs;
        return this;
    }

    /** @return listener or subscriber calls that threw */
    public long getCallbackFailures() {
        return callbackFailures;
    }

    /**
     * @param callbackFailures listener or subscriber calls that threw
     * @return this
     */
    public AdaptivePoolStats setCallbackFailures(long callbackFailures) {
        this.callbackFailures = callbackFailures;
        return this;
    }

    /**
     * @return failures the run survived in its limit and its time source: the limiter's
     *         {@code limitFailures} during the run and the run's own (see
     *         {@link PoolStats#limitFailures()})
     */
    public long getLimitFailures() {
        return limitFailures;
    }

    /**
     * @param limitFailures failures the run survived in its limit and its time source
     * @return this
     */
    public AdaptivePoolStats setLimitFailures(long limitFailures) {
        this.limitFailures = limitFailures;
        return this;
    }

    /** @return why the run stopped early, or null */
    public String getStopReason() {
        return stopReason;
    }

    /**
     * @param stopReason why the run stopped early, or null
     * @return this
     */
    public AdaptivePoolStats setStopReason(String stopReason) {
        this.stopReason = stopReason;
        return this;
    }

    /** @return the message of what stopped it, or null */
    public String getStopCause() {
        return stopCause;
    }

    /**
     * @param stopCause the message of what stopped it, or null
     * @return this
     */
    public AdaptivePoolStats setStopCause(String stopCause) {
        this.stopCause = stopCause;
        return this;
    }

}
