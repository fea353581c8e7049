package dev.adaptive.vertx;

import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.Algorithm;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.internal.ConfigText;
import dev.adaptive.retry.Backoff;
import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The options of an {@link AdaptiveLimiter}, as a Vert.x data object: fluent setters, a copy
 * constructor, and JSON both ways through the converter vertx-codegen generates, so a verticle
 * can be configured from its deployment config. The limiter options are the core's
 * ({@link AdaptiveConfig}: the same names, defaults, checks and messages as the Camel component's
 * URI options); durations are whole milliseconds here, as Vert.x options are, and the JSON
 * constructor also takes them as text ({@code "5s"}, {@code "PT0.5S"}) read as every face reads
 * durations. Every other number, boolean and enum may be text too ({@code "50"}, {@code "0.2"},
 * {@code "true"}, {@code "AIMD"}), in exactly the forms the core reads
 * ({@link ConfigOption#read}, as the Camel component reads its URIs), so that a deployment config
 * that vertx-config reads from properties or environment variables needs no conversion; keys
 * stay exact. Its own options: {@code name} and the stats publication.
 *
 * <table>
 *   <caption>Options, JSON keys and defaults</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>name</td><td>{@value #DEFAULT_NAME}</td><td>names the limiter in stats and errors</td></tr>
 *   <tr><td>algorithm</td><td>vegas</td><td>{@code vegas}, {@code aimd}, {@code gradient2} or
 *       {@code fixed} (exactly maxLimit)</td></tr>
 *   <tr><td>initialLimit</td><td>unset: 5, moved into [minLimit, maxLimit]</td><td>calls in flight before any sample</td></tr>
 *   <tr><td>minLimit / maxLimit</td><td>1 / 100</td><td>bounds of the limit</td></tr>
 *   <tr><td>maxQueueSize</td><td>10000</td><td>calls that may wait for a slot; more are rejected</td></tr>
 *   <tr><td>waitTimeout</td><td>0 (none)</td><td>how long one call may wait for a slot, ms</td></tr>
 *   <tr><td>taskTimeout</td><td>0 (none)</td><td>per attempt, ms; a timeout is a drop and is retried</td></tr>
 *   <tr><td>retries</td><td>3</td><td>retries after errors and timeouts</td></tr>
 *   <tr><td>backoff</td><td>exponential</td><td>{@code exponential}, {@code linear} or {@code constant}</td></tr>
 *   <tr><td>minDelay / maxDelay</td><td>100 / 30000</td><td>backoff bounds, ms</td></tr>
 *   <tr><td>jitter</td><td>0.2</td><td>backoff spread either way, in [0, 1]</td></tr>
 *   <tr><td>maxRateLimitRetries</td><td>10</td><td>retries after rate-limit answers; they do not consume {@code retries}</td></tr>
 *   <tr><td>maxRetryAfter</td><td>600000 (10 min)</td><td>cap on one Retry-After pause, ms</td></tr>
 *   <tr><td>adaptOnLatency / adaptOnErrors / adaptOnRateLimit</td><td>true</td><td>which signals move the limit</td></tr>
 *   <tr><td>retryBudget</td><td>true</td><td>cap retries, across every call, as a share of first attempts</td></tr>
 *   <tr><td>retryBudgetRatio / retryBudgetMinPerSecond</td><td>0.2 / 10.0</td><td>retries per first
 *       attempt, and per second besides, in the window</td></tr>
 *   <tr><td>retryBudgetWindow</td><td>10000 (10 s)</td><td>the retry budget's window, ms</td></tr>
 *   <tr><td>outageProbe</td><td>1000 (1 s)</td><td>the longest wait between two probes of an outage, ms;
 *       0 turns the rule off</td></tr>
 *   <tr><td>quotaHeaders</td><td>true</td><td>the web client reads the quota a server announces</td></tr>
 *   <tr><td>quotaSpread</td><td>false</td><td>spread what remains of a quota over the time to its reset</td></tr>
 *   <tr><td>statsAddress</td><td>{@code null}: off</td><td>event-bus address stats are
 *       published to ({@value #STATS_ADDRESS} by convention); {@code null} turns publication off</td></tr>
 *   <tr><td>statsLocalOnly</td><td>{@value #DEFAULT_STATS_LOCAL_ONLY}</td><td>publish to this node only</td></tr>
 *   <tr><td>statsInterval</td><td>{@value #DEFAULT_STATS_INTERVAL}</td><td>period of publication, ms; 0 on change only</td></tr>
 *   <tr><td>statsOnChange</td><td>{@value #DEFAULT_STATS_ON_CHANGE}</td><td>also publish when the limit
 *       moves or a Retry-After pause opens</td></tr>
 * </table>
 *
 * <p>Each setter checks its own value and throws {@link IllegalArgumentException} naming the
 * option and the value; relations between options (such as {@code minLimit <= maxLimit}) are
 * checked by {@link #toConfig()}, which the limiter calls when it is created. The JSON
 * constructor rejects unknown keys, naming the key, and values of the wrong type the same way,
 * so a typo in a deployment config fails the deployment. {@link #toJson()} writes exactly what
 * was set: an unset {@code initialLimit} stays unset, so options read back from their JSON equal
 * the original and behave as it does.
 *
 * <p>Not thread-safe: configure it, then hand it over; the limiter copies it.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptiveOptions extends JsonDataObject {

    /** Default name: {@value}. */
    public static final String DEFAULT_NAME = "adaptive";
    /**
     * Default stats address: none, so stats are not published, as vertx-circuit-breaker's
     * notifications are off unless an address is set. Set {@link #STATS_ADDRESS} (or any
     * address) to publish; Micrometer meters need no publication at all.
     */
    public static final String DEFAULT_STATS_ADDRESS = null;
    /** The conventional address to publish stats to when publication is wanted: {@value}. */
    public static final String STATS_ADDRESS = "vertx.adaptive";
    /** Default: stats are published to this node only: {@value}. */
    public static final boolean DEFAULT_STATS_LOCAL_ONLY = true;
    /** Default period of stats publication: {@value} ms. */
    public static final long DEFAULT_STATS_INTERVAL = 2_000;
    /** Default: stats are also published on change: {@value}. */
    public static final boolean DEFAULT_STATS_ON_CHANGE = true;

    /** The options of the core's model this face takes; the fleet's are {@code FleetMember}'s here. */
    static final Set<ConfigOption> CORE_OPTIONS = Set.of(ConfigOption.ALGORITHM, ConfigOption.INITIAL_LIMIT,
            ConfigOption.MIN_LIMIT, ConfigOption.MAX_LIMIT, ConfigOption.MAX_QUEUE_SIZE, ConfigOption.WAIT_TIMEOUT,
            ConfigOption.TASK_TIMEOUT, ConfigOption.RETRIES, ConfigOption.BACKOFF, ConfigOption.MIN_DELAY,
            ConfigOption.MAX_DELAY, ConfigOption.JITTER, ConfigOption.MAX_RATE_LIMIT_RETRIES,
            ConfigOption.MAX_RETRY_AFTER, ConfigOption.ADAPT_ON_LATENCY, ConfigOption.ADAPT_ON_ERRORS,
            ConfigOption.ADAPT_ON_RATE_LIMIT, ConfigOption.RETRY_BUDGET, ConfigOption.RETRY_BUDGET_RATIO,
            ConfigOption.RETRY_BUDGET_MIN_PER_SECOND, ConfigOption.RETRY_BUDGET_WINDOW, ConfigOption.OUTAGE_PROBE,
            ConfigOption.QUOTA_HEADERS, ConfigOption.QUOTA_SPREAD);
    /** The options of this face alone. */
    static final Map<String, StrictJson.Shape> OWN = Map.of("name", StrictJson.Shape.TEXT,
            "statsAddress", StrictJson.Shape.NULLABLE_TEXT, "statsLocalOnly", StrictJson.Shape.BOOLEAN,
            "statsInterval", StrictJson.Shape.MILLIS, "statsOnChange", StrictJson.Shape.BOOLEAN);

    private static final AdaptiveConfig DEFAULTS = AdaptiveConfig.defaults();

    private String name = DEFAULT_NAME;
    private String algorithm = ConfigText.enumName(DEFAULTS.algorithm());
    private Integer initialLimit;
    private int minLimit = DEFAULTS.minLimit();
    private int maxLimit = DEFAULTS.maxLimit();
    private int maxQueueSize = DEFAULTS.maxQueueSize();
    private long waitTimeout = DEFAULTS.waitTimeout().toMillis();
    private long taskTimeout = DEFAULTS.taskTimeout().toMillis();
    private int retries = DEFAULTS.retries();
    private String backoff = ConfigText.enumName(DEFAULTS.backoff());
    private long minDelay = DEFAULTS.minDelay().toMillis();
    private long maxDelay = DEFAULTS.maxDelay().toMillis();
    private double jitter = DEFAULTS.jitter();
    private int maxRateLimitRetries = DEFAULTS.maxRateLimitRetries();
    private long maxRetryAfter = DEFAULTS.maxRetryAfter().toMillis();
    private boolean adaptOnLatency = DEFAULTS.adaptOnLatency();
    private boolean adaptOnErrors = DEFAULTS.adaptOnErrors();
    private boolean adaptOnRateLimit = DEFAULTS.adaptOnRateLimit();
    private boolean retryBudget = DEFAULTS.retryBudget();
    private double retryBudgetRatio = DEFAULTS.retryBudgetRatio();
    private double retryBudgetMinPerSecond = DEFAULTS.retryBudgetMinPerSecond();
    private long retryBudgetWindow = DEFAULTS.retryBudgetWindow().toMillis();
    private long outageProbe = DEFAULTS.outageProbe().toMillis();
    private boolean quotaHeaders = DEFAULTS.quotaHeaders();
    private boolean quotaSpread = DEFAULTS.quotaSpread();
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
    }

    /**
     * @param json options as produced by {@link #toJson()}; missing keys keep their defaults
     * @throws IllegalArgumentException on an unknown key (naming it), a value of the wrong type
     *         or out of range (naming the option and the value)
     */
    public AdaptiveOptions(JsonObject json) {
        AdaptiveOptionsConverter.fromJson(StrictJson.check(Objects.requireNonNull(json, "json"), CORE_OPTIONS, OWN),
                this);
        if (json.containsKey("statsAddress") && json.getValue("statsAddress") == null) {
            statsAddress = null;   // "off", which the generated converter leaves at the default
        }
    }

    /** @return the options set, under the keys the JSON constructor reads; an unset initialLimit is absent */
    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptiveOptionsConverter.toJson(this, json);
        if (statsAddress == null) {
            json.putNull("statsAddress");
        }
        return json;
    }

    /**
     * @return the limiter options as the core's model, relations between them checked
     * @throws IllegalArgumentException naming the first rule that fails, the option and its value
     *         (a duration in milliseconds, as this face holds it)
     */
    public AdaptiveConfig toConfig() {
        // Durations go in as the milliseconds this face holds, so that a message quotes them so.
        return AdaptiveConfig.builder()
                .set(ConfigOption.ALGORITHM, algorithm)
                .initialLimit(initialLimit)
                .minLimit(minLimit).maxLimit(maxLimit).maxQueueSize(maxQueueSize)
                .set(ConfigOption.WAIT_TIMEOUT, waitTimeout).set(ConfigOption.TASK_TIMEOUT, taskTimeout)
                .retries(retries).set(ConfigOption.BACKOFF, backoff)
                .set(ConfigOption.MIN_DELAY, minDelay).set(ConfigOption.MAX_DELAY, maxDelay).jitter(jitter)
                .maxRateLimitRetries(maxRateLimitRetries).set(ConfigOption.MAX_RETRY_AFTER, maxRetryAfter)
                .adaptOnLatency(adaptOnLatency).adaptOnErrors(adaptOnErrors).adaptOnRateLimit(adaptOnRateLimit)
                .retryBudget(retryBudget).retryBudgetRatio(retryBudgetRatio)
                .retryBudgetMinPerSecond(retryBudgetMinPerSecond).set(ConfigOption.RETRY_BUDGET_WINDOW, retryBudgetWindow)
                .set(ConfigOption.OUTAGE_PROBE, outageProbe)
                .quotaHeaders(quotaHeaders).quotaSpread(quotaSpread)
                .build();
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

    /** @return the algorithm, by its option name */
    public String getAlgorithm() {
        return algorithm;
    }

    /**
     * @param algorithm {@code vegas}, {@code aimd}, {@code gradient2} or {@code fixed}, ASCII
     *                  letters in any case
     * @return this
     */
    public AdaptiveOptions setAlgorithm(String algorithm) {
        this.algorithm = ConfigText.enumName(ConfigText.enumValue("algorithm", algorithm, Algorithm.class));
        return this;
    }

    /** @return the initial limit as set, or {@code null} when left to its default (5, moved into [minLimit, maxLimit]) */
    public Integer getInitialLimit() {
        return initialLimit;
    }

    /**
     * @param initialLimit calls in flight before any sample, at least 1; {@code null} for the default
     * @return this
     */
    public AdaptiveOptions setInitialLimit(Integer initialLimit) {
        AdaptiveConfig.builder().initialLimit(initialLimit);
        this.initialLimit = initialLimit;
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
        AdaptiveConfig.builder().minLimit(minLimit);
        this.minLimit = minLimit;
        return this;
    }

    /** @return the maximum limit */
    public int getMaxLimit() {
        return maxLimit;
    }

    /**
     * @param maxLimit the largest limit (with {@code fixed}: the limit), at least 1 and minLimit
     * @return this
     */
    public AdaptiveOptions setMaxLimit(int maxLimit) {
        AdaptiveConfig.builder().maxLimit(maxLimit);
        this.maxLimit = maxLimit;
        return this;
    }

    /** @return the bound on calls waiting for a slot */
    public int getMaxQueueSize() {
        return maxQueueSize;
    }

    /**
     * @param maxQueueSize calls that may wait for a slot, at least 0
     * @return this
     */
    public AdaptiveOptions setMaxQueueSize(int maxQueueSize) {
        AdaptiveConfig.builder().maxQueueSize(maxQueueSize);
        this.maxQueueSize = maxQueueSize;
        return this;
    }

    /** @return the wait timeout in ms, 0 for none */
    public long getWaitTimeout() {
        return waitTimeout;
    }

    /**
     * @param waitTimeout how long one call may wait for a slot, in ms, at least 0 (none)
     * @return this
     */
    public AdaptiveOptions setWaitTimeout(long waitTimeout) {
        this.waitTimeout = millis(ConfigOption.WAIT_TIMEOUT, waitTimeout);
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
        this.taskTimeout = millis(ConfigOption.TASK_TIMEOUT, taskTimeout);
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
        AdaptiveConfig.builder().retries(retries);
        this.retries = retries;
        return this;
    }

    /** @return the backoff kind, by its option name */
    public String getBackoff() {
        return backoff;
    }

    /**
     * @param backoff {@code exponential}, {@code linear} or {@code constant}, ASCII letters in any case
     * @return this
     */
    public AdaptiveOptions setBackoff(String backoff) {
        this.backoff = ConfigText.enumName(ConfigText.enumValue("backoff", backoff, Backoff.Kind.class));
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
        this.minDelay = millis(ConfigOption.MIN_DELAY, minDelay);
        return this;
    }

    /** @return the backoff's cap in ms */
    public long getMaxDelay() {
        return maxDelay;
    }

    /**
     * @param maxDelay the backoff's cap in ms, at least 0 (and at least minDelay, checked by {@link #toConfig()})
     * @return this
     */
    public AdaptiveOptions setMaxDelay(long maxDelay) {
        this.maxDelay = millis(ConfigOption.MAX_DELAY, maxDelay);
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
        AdaptiveConfig.builder().jitter(jitter);
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
        AdaptiveConfig.builder().maxRateLimitRetries(maxRateLimitRetries);
        this.maxRateLimitRetries = maxRateLimitRetries;
        return this;
    }

    /** @return the cap on one Retry-After pause, in ms */
    public long getMaxRetryAfter() {
        return maxRetryAfter;
    }

    /**
     * @param maxRetryAfter the cap on one Retry-After pause in ms, positive
     * @return this
     */
    public AdaptiveOptions setMaxRetryAfter(long maxRetryAfter) {
        this.maxRetryAfter = millis(ConfigOption.MAX_RETRY_AFTER, maxRetryAfter);
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

    /** @return whether retries are capped by a retry budget */
    public boolean isRetryBudget() {
        return retryBudget;
    }

    /**
     * @param retryBudget whether retries, across every call, are capped as a share of first attempts
     * @return this
     */
    public AdaptiveOptions setRetryBudget(boolean retryBudget) {
        this.retryBudget = retryBudget;
        return this;
    }

    /** @return retries allowed per first attempt in the retry budget's window */
    public double getRetryBudgetRatio() {
        return retryBudgetRatio;
    }

    /**
     * @param retryBudgetRatio retries allowed per first attempt in the window, at least 0
     * @return this
     */
    public AdaptiveOptions setRetryBudgetRatio(double retryBudgetRatio) {
        AdaptiveConfig.builder().retryBudgetRatio(retryBudgetRatio);
        this.retryBudgetRatio = retryBudgetRatio;
        return this;
    }

    /** @return retries allowed besides, per second of the retry budget's window */
    public double getRetryBudgetMinPerSecond() {
        return retryBudgetMinPerSecond;
    }

    /**
     * @param retryBudgetMinPerSecond retries allowed besides per second of the window, at least 0
     * @return this
     */
    public AdaptiveOptions setRetryBudgetMinPerSecond(double retryBudgetMinPerSecond) {
        AdaptiveConfig.builder().retryBudgetMinPerSecond(retryBudgetMinPerSecond);
        this.retryBudgetMinPerSecond = retryBudgetMinPerSecond;
        return this;
    }

    /** @return the retry budget's window, in ms */
    public long getRetryBudgetWindow() {
        return retryBudgetWindow;
    }

    /**
     * @param retryBudgetWindow the retry budget's window in ms, positive, at most a day
     * @return this
     */
    public AdaptiveOptions setRetryBudgetWindow(long retryBudgetWindow) {
        this.retryBudgetWindow = millis(ConfigOption.RETRY_BUDGET_WINDOW, retryBudgetWindow);
        return this;
    }

    /** @return the longest wait between two probes of an outage, in ms; 0 when the rule is off */
    public long getOutageProbe() {
        return outageProbe;
    }

    /**
     * @param outageProbe the longest wait between two probes of an outage in ms (a run of at
     *                    least five errors or timeouts, one from a call sent after the first
     *                    failed, makes the limiter admit one call at a time, the first after an
     *                    eighth of this, each next after twice the wait before, until one
     *                    succeeds), at least 0 and at most an hour; 0 turns the rule off
     * @return this
     */
    public AdaptiveOptions setOutageProbe(long outageProbe) {
        this.outageProbe = millis(ConfigOption.OUTAGE_PROBE, outageProbe);
        return this;
    }

    /** @return whether the web client reads the quota a server announces */
    public boolean isQuotaHeaders() {
        return quotaHeaders;
    }

    /**
     * @param quotaHeaders whether the web client reads the quota a server announces in
     *                     rate-limit headers, on success and failure alike
     * @return this
     */
    public AdaptiveOptions setQuotaHeaders(boolean quotaHeaders) {
        this.quotaHeaders = quotaHeaders;
        return this;
    }

    /** @return whether an announced quota is spread over the time to its reset */
    public boolean isQuotaSpread() {
        return quotaSpread;
    }

    /**
     * @param quotaSpread whether what remains of an announced quota is spread over the time to its reset
     * @return this
     */
    public AdaptiveOptions setQuotaSpread(boolean quotaSpread) {
        this.quotaSpread = quotaSpread;
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
     * @param statsInterval the period of stats publication in ms, at least 0 (on change only) and
     *                      at most about 292 years
     * @return this
     */
    public AdaptiveOptions setStatsInterval(long statsInterval) {
        if (statsInterval < 0) {
            throw new IllegalArgumentException("statsInterval must be >= 0: " + statsInterval);
        }
        // At most what the JSON constructor reads (about 292 years), so that toJson() reads back.
        ConfigText.duration("statsInterval", statsInterval);
        this.statsInterval = statsInterval;
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


    /** Checks a duration in ms as the core checks that option. */
    private static long millis(ConfigOption option, long ms) {
        AdaptiveConfig.builder().set(option, ms);
        return ms;
    }
}
