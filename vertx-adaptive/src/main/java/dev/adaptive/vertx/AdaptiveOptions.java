package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The options of an {@link AdaptiveLimiter}, as a Vert.x data object: fluent setters, a copy
 * constructor, and JSON both ways ({@link #AdaptiveOptions(JsonObject)} / {@link #toJson()}),
 * so a verticle can be configured from its deployment config. Durations are in milliseconds.
 *
 * <table>
 *   <caption>Options, JSON keys and defaults</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>name</td><td>{@value #DEFAULT_NAME}</td><td>names the limiter in stats and errors</td></tr>
 *   <tr><td>algorithm</td><td>{@value #DEFAULT_ALGORITHM}</td><td>{@code vegas}, {@code aimd},
 *       {@code gradient2} or {@code fixed} (stays at initialLimit)</td></tr>
 *   <tr><td>initialLimit</td><td>{@value #DEFAULT_INITIAL_LIMIT}, moved into [min, max] unless set</td>
 *       <td>calls in flight before any sample</td></tr>
 *   <tr><td>minLimit / maxLimit</td><td>{@value #DEFAULT_MIN_LIMIT} / unbounded</td><td>bounds of the limit</td></tr>
 *   <tr><td>maxWaiters</td><td>unbounded</td><td>calls that may queue for a slot; more are rejected</td></tr>
 *   <tr><td>waitTimeout</td><td>0 (none)</td><td>how long one call may queue</td></tr>
 *   <tr><td>taskTimeout</td><td>0 (none)</td><td>per attempt; a timeout is a drop and is retried</td></tr>
 *   <tr><td>retries</td><td>{@value #DEFAULT_RETRIES}</td><td>retries after errors and timeouts</td></tr>
 *   <tr><td>backoff</td><td>{@value #DEFAULT_BACKOFF}</td><td>{@code exponential}, {@code linear} or {@code constant}</td></tr>
 *   <tr><td>minDelay / maxDelay</td><td>{@value #DEFAULT_MIN_DELAY} / {@value #DEFAULT_MAX_DELAY}</td><td>backoff bounds</td></tr>
 *   <tr><td>jitter</td><td>{@value #DEFAULT_JITTER}</td><td>backoff spread either way, in [0, 1]</td></tr>
 *   <tr><td>maxRateLimitRetries</td><td>{@value #DEFAULT_MAX_RATE_LIMIT_RETRIES}</td><td>retries after
 *       rate-limit answers; they do not consume {@code retries}</td></tr>
 *   <tr><td>maxRetryAfter</td><td>{@value #DEFAULT_MAX_RETRY_AFTER} (10 min)</td><td>cap on one Retry-After pause</td></tr>
 *   <tr><td>adaptOnLatency / adaptOnErrors / adaptOnRateLimit</td><td>true</td><td>which signals move the limit</td></tr>
 *   <tr><td>statsAddress</td><td>{@value #DEFAULT_STATS_ADDRESS}</td><td>event-bus address stats are
 *       published to; {@code null} turns publication off</td></tr>
 *   <tr><td>statsLocalOnly</td><td>{@value #DEFAULT_STATS_LOCAL_ONLY}</td><td>publish to this node only,
 *       not across the cluster</td></tr>
 *   <tr><td>statsInterval</td><td>{@value #DEFAULT_STATS_INTERVAL}</td><td>period of publication; 0 publishes on change only</td></tr>
 *   <tr><td>statsOnChange</td><td>{@value #DEFAULT_STATS_ON_CHANGE}</td><td>also publish when the limit
 *       moves or a Retry-After pause opens</td></tr>
 * </table>
 *
 * <p>Each setter checks its own value and throws {@link IllegalArgumentException} naming the
 * option and the value; relations between options (such as {@code minLimit <= maxLimit}) are
 * checked when the limiter is created. The JSON constructor rejects unknown keys and values of
 * the wrong type the same way, so a typo in a deployment config fails the deployment.
 *
 * <p>Not thread-safe: configure it, then hand it over; the limiter copies it.
 */
public class AdaptiveOptions {

    /** Default name: {@value}. */
    public static final String DEFAULT_NAME = "adaptive";
    /** Default algorithm: {@value}. */
    public static final String DEFAULT_ALGORITHM = "vegas";
    /** Default initial limit: {@value}. */
    public static final int DEFAULT_INITIAL_LIMIT = 5;
    /** Default minimum limit: {@value}. */
    public static final int DEFAULT_MIN_LIMIT = 1;
    /** Default maximum limit: {@link Integer#MAX_VALUE}, unbounded. */
    public static final int DEFAULT_MAX_LIMIT = Integer.MAX_VALUE;
    /** Default bound on queued calls: {@link Integer#MAX_VALUE}, unbounded. */
    public static final int DEFAULT_MAX_WAITERS = Integer.MAX_VALUE;
    /** Default wait timeout: {@value} ms, none. */
    public static final long DEFAULT_WAIT_TIMEOUT = 0;
    /** Default task timeout: {@value} ms, none. */
    public static final long DEFAULT_TASK_TIMEOUT = 0;
    /** Default retries after errors: {@value}. */
    public static final int DEFAULT_RETRIES = 3;
    /** Default backoff: {@value}. */
    public static final String DEFAULT_BACKOFF = "exponential";
    /** Default base delay of the backoff: {@value} ms. */
    public static final long DEFAULT_MIN_DELAY = 100;
    /** Default cap of the backoff: {@value} ms. */
    public static final long DEFAULT_MAX_DELAY = 30_000;
    /** Default jitter: {@value}. */
    public static final double DEFAULT_JITTER = 0.2;
    /** Default retries after rate-limit answers: {@value}. */
    public static final int DEFAULT_MAX_RATE_LIMIT_RETRIES = 10;
    /** Default cap on a Retry-After pause: {@value} ms. */
    public static final long DEFAULT_MAX_RETRY_AFTER = 600_000;
    /** Default: the limit moves on latency, errors and rate limits. */
    public static final boolean DEFAULT_ADAPT = true;
    /** Default stats address: {@value}. */
    public static final String DEFAULT_STATS_ADDRESS = "vertx.adaptive";
    /** Default: stats are published to this node only: {@value}. */
    public static final boolean DEFAULT_STATS_LOCAL_ONLY = true;
    /** Default period of stats publication: {@value} ms. */
    public static final long DEFAULT_STATS_INTERVAL = 2_000;
    /** Default: stats are also published on change: {@value}. */
    public static final boolean DEFAULT_STATS_ON_CHANGE = true;

    /** The algorithms {@link #setAlgorithm(String)} accepts. */
    public static final Set<String> ALGORITHMS = Set.of("vegas", "aimd", "gradient2", "fixed");
    /** The backoffs {@link #setBackoff(String)} accepts. */
    public static final Set<String> BACKOFFS = Set.of("exponential", "linear", "constant");

    private static final Set<String> KEYS = Set.of("name", "algorithm", "initialLimit", "minLimit", "maxLimit",
            "maxWaiters", "waitTimeout", "taskTimeout", "retries", "backoff", "minDelay", "maxDelay", "jitter",
            "maxRateLimitRetries", "maxRetryAfter", "adaptOnLatency", "adaptOnErrors", "adaptOnRateLimit",
            "statsAddress", "statsLocalOnly", "statsInterval", "statsOnChange");

    private String name = DEFAULT_NAME;
    private String algorithm = DEFAULT_ALGORITHM;
    private int initialLimit = DEFAULT_INITIAL_LIMIT;
    private boolean initialLimitSet;
    private int minLimit = DEFAULT_MIN_LIMIT;
    private int maxLimit = DEFAULT_MAX_LIMIT;
    private int maxWaiters = DEFAULT_MAX_WAITERS;
    private long waitTimeout = DEFAULT_WAIT_TIMEOUT;
    private long taskTimeout = DEFAULT_TASK_TIMEOUT;
    private int retries = DEFAULT_RETRIES;
    private String backoff = DEFAULT_BACKOFF;
    private long minDelay = DEFAULT_MIN_DELAY;
    private long maxDelay = DEFAULT_MAX_DELAY;
    private double jitter = DEFAULT_JITTER;
    private int maxRateLimitRetries = DEFAULT_MAX_RATE_LIMIT_RETRIES;
    private long maxRetryAfter = DEFAULT_MAX_RETRY_AFTER;
    private boolean adaptOnLatency = DEFAULT_ADAPT;
    private boolean adaptOnErrors = DEFAULT_ADAPT;
    private boolean adaptOnRateLimit = DEFAULT_ADAPT;
    private String statsAddress = DEFAULT_STATS_ADDRESS;
    private boolean statsLocalOnly = DEFAULT_STATS_LOCAL_ONLY;
    private long statsInterval = DEFAULT_STATS_INTERVAL;
    private boolean statsOnChange = DEFAULT_STATS_ON_CHANGE;

    /** Every option at its default. */
    public AdaptiveOptions() {
    }

    /** @param other the options to copy */
    public AdaptiveOptions(AdaptiveOptions other) {
        this(Objects.requireNonNull(other, "other").toJson());
        this.initialLimitSet = other.initialLimitSet;
    }

    /**
     * @param json options as produced by {@link #toJson()}; missing keys keep their defaults
     * @throws IllegalArgumentException on an unknown key, a value of the wrong type or out of range
     */
    public AdaptiveOptions(JsonObject json) {
        Objects.requireNonNull(json, "json");
        for (String key : json.fieldNames()) {
            if (!KEYS.contains(key)) {
                throw new IllegalArgumentException("unknown option '" + key + "' (known: " + KEYS + ")");
            }
        }
        if (json.containsKey("name")) setName(Json.string(json, "name"));
        if (json.containsKey("algorithm")) setAlgorithm(Json.string(json, "algorithm"));
        if (json.containsKey("initialLimit")) setInitialLimit(Json.integer(json, "initialLimit"));
        if (json.containsKey("minLimit")) setMinLimit(Json.integer(json, "minLimit"));
        if (json.containsKey("maxLimit")) setMaxLimit(Json.integer(json, "maxLimit"));
        if (json.containsKey("maxWaiters")) setMaxWaiters(Json.integer(json, "maxWaiters"));
        if (json.containsKey("waitTimeout")) setWaitTimeout(Json.longValue(json, "waitTimeout"));
        if (json.containsKey("taskTimeout")) setTaskTimeout(Json.longValue(json, "taskTimeout"));
        if (json.containsKey("retries")) setRetries(Json.integer(json, "retries"));
        if (json.containsKey("backoff")) setBackoff(Json.string(json, "backoff"));
        if (json.containsKey("minDelay")) setMinDelay(Json.longValue(json, "minDelay"));
        if (json.containsKey("maxDelay")) setMaxDelay(Json.longValue(json, "maxDelay"));
        if (json.containsKey("jitter")) setJitter(Json.doubleValue(json, "jitter"));
        if (json.containsKey("maxRateLimitRetries")) setMaxRateLimitRetries(Json.integer(json, "maxRateLimitRetries"));
        if (json.containsKey("maxRetryAfter")) setMaxRetryAfter(Json.longValue(json, "maxRetryAfter"));
        if (json.containsKey("adaptOnLatency")) setAdaptOnLatency(Json.bool(json, "adaptOnLatency"));
        if (json.containsKey("adaptOnErrors")) setAdaptOnErrors(Json.bool(json, "adaptOnErrors"));
        if (json.containsKey("adaptOnRateLimit")) setAdaptOnRateLimit(Json.bool(json, "adaptOnRateLimit"));
        if (json.containsKey("statsAddress")) setStatsAddress(Json.nullableString(json, "statsAddress"));
        if (json.containsKey("statsLocalOnly")) setStatsLocalOnly(Json.bool(json, "statsLocalOnly"));
        if (json.containsKey("statsInterval")) setStatsInterval(Json.longValue(json, "statsInterval"));
        if (json.containsKey("statsOnChange")) setStatsOnChange(Json.bool(json, "statsOnChange"));
    }

    /** @return every option, under the keys the JSON constructor reads */
    public JsonObject toJson() {
        return new JsonObject()
                .put("name", name)
                .put("algorithm", algorithm)
                .put("initialLimit", getInitialLimit())
                .put("minLimit", minLimit)
                .put("maxLimit", maxLimit)
                .put("maxWaiters", maxWaiters)
                .put("waitTimeout", waitTimeout)
                .put("taskTimeout", taskTimeout)
                .put("retries", retries)
                .put("backoff", backoff)
                .put("minDelay", minDelay)
                .put("maxDelay", maxDelay)
                .put("jitter", jitter)
                .put("maxRateLimitRetries", maxRateLimitRetries)
                .put("maxRetryAfter", maxRetryAfter)
                .put("adaptOnLatency", adaptOnLatency)
                .put("adaptOnErrors", adaptOnErrors)
                .put("adaptOnRateLimit", adaptOnRateLimit)
                .put("statsAddress", statsAddress)
                .put("statsLocalOnly", statsLocalOnly)
                .put("statsInterval", statsInterval)
                .put("statsOnChange", statsOnChange);
    }

    /** @return the name */
    public String getName() {
        return name;
    }

    /**
     * @param name names the limiter in stats and errors, not blank
     * @return this
     */
    public AdaptiveOptions setName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must not be blank: '" + name + "'");
        }
        this.name = name;
        return this;
    }

    /** @return the algorithm */
    public String getAlgorithm() {
        return algorithm;
    }

    /**
     * @param algorithm one of {@link #ALGORITHMS}, case-insensitive
     * @return this
     */
    public AdaptiveOptions setAlgorithm(String algorithm) {
        this.algorithm = oneOf("algorithm", algorithm, ALGORITHMS);
        return this;
    }

    /**
     * @return the initial limit; when never set, the default moved into [minLimit, maxLimit]
     */
    public int getInitialLimit() {
        if (initialLimitSet) {
            return initialLimit;
        }
        return Math.max(minLimit, Math.min(initialLimit, maxLimit));
    }

    /**
     * @param initialLimit calls in flight before any sample, at least 1
     * @return this
     */
    public AdaptiveOptions setInitialLimit(int initialLimit) {
        this.initialLimit = atLeast("initialLimit", initialLimit, 1);
        this.initialLimitSet = true;
        return this;
    }

    /** @return the minimum limit */
    public int getMinLimit() {
        return minLimit;
    }

    /**
     * @param minLimit the smallest limit, at least 1
     * @return this
     */
    public AdaptiveOptions setMinLimit(int minLimit) {
        this.minLimit = atLeast("minLimit", minLimit, 1);
        return this;
    }

    /** @return the maximum limit */
    public int getMaxLimit() {
        return maxLimit;
    }

    /**
     * @param maxLimit the largest limit, at least 1 (and at least minLimit, checked at creation)
     * @return this
     */
    public AdaptiveOptions setMaxLimit(int maxLimit) {
        this.maxLimit = atLeast("maxLimit", maxLimit, 1);
        return this;
    }

    /** @return the bound on queued calls */
    public int getMaxWaiters() {
        return maxWaiters;
    }

    /**
     * @param maxWaiters calls that may queue for a slot, at least 0
     * @return this
     */
    public AdaptiveOptions setMaxWaiters(int maxWaiters) {
        this.maxWaiters = atLeast("maxWaiters", maxWaiters, 0);
        return this;
    }

    /** @return the wait timeout in ms, 0 for none */
    public long getWaitTimeout() {
        return waitTimeout;
    }

    /**
     * @param waitTimeout how long one call may queue, in ms, at least 0 (none)
     * @return this
     */
    public AdaptiveOptions setWaitTimeout(long waitTimeout) {
        this.waitTimeout = atLeast("waitTimeout", waitTimeout, 0);
        return this;
    }

    /** @return the task timeout in ms, 0 for none */
    public long getTaskTimeout() {
        return taskTimeout;
    }

    /**
     * @param taskTimeout per-attempt timeout in ms, at least 0 (none)
     * @return this
     */
    public AdaptiveOptions setTaskTimeout(long taskTimeout) {
        this.taskTimeout = atLeast("taskTimeout", taskTimeout, 0);
        return this;
    }

    /** @return retries after errors and timeouts */
    public int getRetries() {
        return retries;
    }

    /**
     * @param retries retries after errors and timeouts, at least 0
     * @return this
     */
    public AdaptiveOptions setRetries(int retries) {
        this.retries = atLeast("retries", retries, 0);
        return this;
    }

    /** @return the backoff kind */
    public String getBackoff() {
        return backoff;
    }

    /**
     * @param backoff one of {@link #BACKOFFS}, case-insensitive
     * @return this
     */
    public AdaptiveOptions setBackoff(String backoff) {
        this.backoff = oneOf("backoff", backoff, BACKOFFS);
        return this;
    }

    /** @return the backoff's base delay in ms */
    public long getMinDelay() {
        return minDelay;
    }

    /**
     * @param minDelay the backoff's base delay in ms, at least 0
     * @return this
     */
    public AdaptiveOptions setMinDelay(long minDelay) {
        this.minDelay = atLeast("minDelay", minDelay, 0);
        return this;
    }

    /** @return the backoff's cap in ms */
    public long getMaxDelay() {
        return maxDelay;
    }

    /**
     * @param maxDelay the backoff's cap in ms, at least 0 (and at least minDelay, checked at creation)
     * @return this
     */
    public AdaptiveOptions setMaxDelay(long maxDelay) {
        this.maxDelay = atLeast("maxDelay", maxDelay, 0);
        return this;
    }

    /** @return the jitter */
    public double getJitter() {
        return jitter;
    }

    /**
     * @param jitter the backoff's spread either way, in [0, 1]
     * @return this
     */
    public AdaptiveOptions setJitter(double jitter) {
        if (!(jitter >= 0 && jitter <= 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1]: " + jitter);
        }
        this.jitter = jitter;
        return this;
    }

    /** @return retries after rate-limit answers */
    public int getMaxRateLimitRetries() {
        return maxRateLimitRetries;
    }

    /**
     * @param maxRateLimitRetries retries after rate-limit answers, at least 0
     * @return this
     */
    public AdaptiveOptions setMaxRateLimitRetries(int maxRateLimitRetries) {
        this.maxRateLimitRetries = atLeast("maxRateLimitRetries", maxRateLimitRetries, 0);
        return this;
    }

    /** @return the cap on one Retry-After pause, in ms */
    public long getMaxRetryAfter() {
        return maxRetryAfter;
    }

    /**
     * @param maxRetryAfter the cap on one Retry-After pause in ms, at least 1
     * @return this
     */
    public AdaptiveOptions setMaxRetryAfter(long maxRetryAfter) {
        this.maxRetryAfter = atLeast("maxRetryAfter", maxRetryAfter, 1);
        return this;
    }

    /** @return whether latency moves the limit */
    public boolean isAdaptOnLatency() {
        return adaptOnLatency;
    }

    /**
     * @param adaptOnLatency whether latency moves the limit
     * @return this
     */
    public AdaptiveOptions setAdaptOnLatency(boolean adaptOnLatency) {
        this.adaptOnLatency = adaptOnLatency;
        return this;
    }

    /** @return whether errors and timeouts decrease the limit */
    public boolean isAdaptOnErrors() {
        return adaptOnErrors;
    }

    /**
     * @param adaptOnErrors whether errors and timeouts decrease the limit
     * @return this
     */
    public AdaptiveOptions setAdaptOnErrors(boolean adaptOnErrors) {
        this.adaptOnErrors = adaptOnErrors;
        return this;
    }

    /** @return whether rate limits decrease the limit (they always pause dispatch) */
    public boolean isAdaptOnRateLimit() {
        return adaptOnRateLimit;
    }

    /**
     * @param adaptOnRateLimit whether rate limits decrease the limit
     * @return this
     */
    public AdaptiveOptions setAdaptOnRateLimit(boolean adaptOnRateLimit) {
        this.adaptOnRateLimit = adaptOnRateLimit;
        return this;
    }

    /** @return the stats address, or {@code null} if publication is off */
    public String getStatsAddress() {
        return statsAddress;
    }

    /**
     * @param statsAddress where stats are published; {@code null} turns publication off
     * @return this
     */
    public AdaptiveOptions setStatsAddress(String statsAddress) {
        if (statsAddress != null && statsAddress.isBlank()) {
            throw new IllegalArgumentException("statsAddress must be null or not blank: '" + statsAddress + "'");
        }
        this.statsAddress = statsAddress;
        return this;
    }

    /** @return whether stats stay on this node */
    public boolean isStatsLocalOnly() {
        return statsLocalOnly;
    }

    /**
     * @param statsLocalOnly publish stats to this node only (the default) or across the cluster
     * @return this
     */
    public AdaptiveOptions setStatsLocalOnly(boolean statsLocalOnly) {
        this.statsLocalOnly = statsLocalOnly;
        return this;
    }

    /** @return the period of stats publication in ms, 0 for on change only */
    public long getStatsInterval() {
        return statsInterval;
    }

    /**
     * @param statsInterval the period of stats publication in ms, at least 0 (on change only)
     * @return this
     */
    public AdaptiveOptions setStatsInterval(long statsInterval) {
        this.statsInterval = atLeast("statsInterval", statsInterval, 0);
        return this;
    }

    /** @return whether stats are also published on change */
    public boolean isStatsOnChange() {
        return statsOnChange;
    }

    /**
     * @param statsOnChange also publish when the limit moves or a Retry-After pause opens
     * @return this
     */
    public AdaptiveOptions setStatsOnChange(boolean statsOnChange) {
        this.statsOnChange = statsOnChange;
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AdaptiveOptions other && toJson().equals(other.toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return "AdaptiveOptions" + toJson().encode();
    }

    private static int atLeast(String option, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be >= " + min + ": " + value);
        }
        return value;
    }

    private static long atLeast(String option, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be >= " + min + ": " + value);
        }
        return value;
    }

    private static String oneOf(String option, String value, Set<String> allowed) {
        String v = value == null ? null : value.trim().toLowerCase(Locale.ROOT);
        if (v == null || !allowed.contains(v)) {
            throw new IllegalArgumentException(option + " must be one of " + allowed + ": " + value);
        }
        return v;
    }
}
