package dev.adaptive.camel;

import dev.adaptive.Limiter;
import dev.adaptive.config.Algorithm;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriParams;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of an adaptive pool, as Camel sees them: the endpoint's URI options
 * ({@code adaptive:name?maxLimit=50}) and the component's defaults
 * ({@code camel.component.adaptive.max-limit=50}) are both this class, so each option is
 * declared once for the catalog, the configurers and the documentation. Names, defaults, checks
 * and messages are the core's ({@link dev.adaptive.config.AdaptiveConfig}); this class only
 * records what a source set, as given, and the component validates it by binding it onto the
 * core's model. Text is read strictly: durations as milliseconds, units from {@code d} to
 * {@code ms} in that order or ISO-8601; enum names in any ASCII case, dashes and underscores
 * ignored ({@code failClosed}, {@code FAIL_CLOSED}, {@code fail-closed}), no look-alike letters.
 *
 * <p>Getters return the value in force for this source (its default when not set); only the
 * options set here ({@link #options()}) take part in a pool's configuration. Thread-safe for
 * reads once configured; Camel sets the options while it creates the endpoint or component.
 */
@UriParams
public class PoolConfiguration implements Cloneable {

    /** What this source set, by option name: the text as given, or the typed value. */
    private final Map<String, Object> set = Collections.synchronizedMap(new LinkedHashMap<>());

    @UriParam(label = "common",
            defaultValue = "vegas",
            enums = "vegas,aimd,gradient2,fixed",
            description = "The limit algorithm: vegas keeps the downstream's queue short, read from latency; aimd grows additively while latency is stable and decreases on errors; gradient2 follows the ratio of long- to short-term latency; fixed always allows exactly maxLimit (initialLimit must then stay unset).")
    private Algorithm algorithm = Algorithm.VEGAS;

    @UriParam(label = "common",
            defaultValueNote = "5, moved between minLimit and maxLimit",
            description = "The concurrency limit before any attempt has finished; within [minLimit, maxLimit]. Default 5, moved into [minLimit, maxLimit] when unset. Not with algorithm=fixed.")
    private Integer initialLimit;

    @UriParam(label = "common",
            defaultValue = "1",
            description = "The lowest the concurrency limit goes; at least 1. Ignored by algorithm=fixed.")
    private int minLimit = Limiter.DEFAULT_MIN_LIMIT;

    @UriParam(label = "common",
            defaultValue = "100",
            description = "The highest the concurrency limit goes (with algorithm=fixed: the limit); at least minLimit. Give camel-http at least as many connections per route (connectionsPerRoute).")
    private int maxLimit = Limiter.DEFAULT_MAX_LIMIT;

    @UriParam(label = "advanced",
            defaultValue = "true",
            description = "Whether latency moves the limit. When false, successes feed a flat RTT so the limit only probes upward.")
    private boolean adaptOnLatency = true;

    @UriParam(label = "advanced",
            defaultValue = "true",
            description = "Whether failed and timed-out attempts decrease the limit.")
    private boolean adaptOnErrors = true;

    @UriParam(label = "advanced",
            defaultValue = "true",
            description = "Whether rate-limited attempts decrease the limit. A 429 with Retry-After pauses the pool either way.")
    private boolean adaptOnRateLimit = true;

    @UriParam(label = "retry",
            defaultValue = "3",
            description = "Retries per exchange after failed or timed-out attempts, each after a backoff delay. Rate-limited attempts do not consume them (see maxRateLimitRetries). At least 0.")
    private int retries = RetryPolicy.DEFAULT_RETRIES;

    @UriParam(label = "retry",
            defaultValue = "exponential",
            enums = "constant,linear,exponential",
            description = "How the backoff delay grows: exponential (minDelay * 2^(n-1)), linear (minDelay * n) or constant (minDelay).")
    private Backoff.Kind backoff = Backoff.Kind.EXPONENTIAL;

    @UriParam(label = "retry",
            defaultValue = "100ms",
            javaType = "java.time.Duration",
            description = "The base backoff delay. Like every duration option: milliseconds (100), numbers with units from d to ms in that order (1h30m15s, 2s500ms) or ISO-8601 (PT0.1S); anything else fails when the endpoint is created. At least 0.")
    private Duration minDelay = Backoff.DEFAULT_MIN_DELAY;

    @UriParam(label = "retry",
            defaultValue = "30s",
            javaType = "java.time.Duration",
            description = "The cap on one backoff delay, jitter included. At least minDelay.")
    private Duration maxDelay = Backoff.DEFAULT_MAX_DELAY;

    @UriParam(label = "retry",
            defaultValue = "0.2",
            description = "The fraction by which a backoff delay is spread either way, within [0, 1]. Never applied to a Retry-After wait.")
    private double jitter = RetryPolicy.DEFAULT_JITTER;

    @UriParam(label = "retry",
            defaultValue = "10",
            description = "Retries per exchange after rate-limited attempts (429, or another of rateLimitStatusCodes with Retry-After); each waits for the pool's Retry-After pause. At least 0.")
    private int maxRateLimitRetries = RetryPolicy.DEFAULT_MAX_RATE_LIMIT_RETRIES;

    @UriParam(label = "retry",
            defaultValue = "10m",
            javaType = "java.time.Duration",
            description = "The cap on one Retry-After pause: a longer or hostile value is cut to this. Positive.")
    private Duration maxRetryAfter = RetryAfter.DEFAULT_MAX;

    @UriParam(label = "common",
            defaultValue = "0",
            javaType = "java.time.Duration",
            description = "How long one attempt may run; past it the attempt counts as dropped, its thread is interrupted and a retry follows (within retries). 0 (default) means no timeout.")
    private Duration taskTimeout = Duration.ZERO;

    @UriParam(label = "producer",
            defaultValue = "0",
            javaType = "java.time.Duration",
            description = "How long an exchange may wait for a slot; then it fails with dev.adaptive.AcquireTimeoutException. 0 (default) means no limit.")
    private Duration waitTimeout = Duration.ZERO;

    @UriParam(label = "producer",
            defaultValue = "10000",
            description = "How many exchanges may wait (for a slot, a backoff or a Retry-After pause) while no slot is free; one more is refused at once with dev.adaptive.RejectedException. At least 0.")
    private int maxQueueSize = Limiter.DEFAULT_MAX_QUEUE_SIZE;

    @UriParam(label = "retry",
            defaultValue = "true",
            description = "Whether retries (after failures, timeouts and rate limits alike) are capped, across every exchange of the pool, as a share of first attempts over a sliding window, so that an outage does not get every exchange's full retry count. A refused retry waits its next backoff and asks again; once the exchange's retries are spent it ends with dev.adaptive.RetryBudgetExhaustedException.")
    private boolean retryBudget = true;

    @UriParam(label = "retry",
            defaultValue = "0.2",
            description = "Retries allowed per first attempt in the retry budget's window; at least 0.")
    private double retryBudgetRatio = RetryBudget.DEFAULT_RATIO;

    @UriParam(label = "retry",
            defaultValue = "10.0",
            description = "Retries allowed besides, per second of the retry budget's window, so that a pool that sends little can still retry; at least 0.")
    private double retryBudgetMinPerSecond = RetryBudget.DEFAULT_MIN_PER_SECOND;

    @UriParam(label = "retry",
            defaultValue = "10s",
            javaType = "java.time.Duration",
            description = "The sliding window the retry budget counts in; positive, at most 1 day.")
    private Duration retryBudgetWindow = RetryBudget.DEFAULT_WINDOW;

    @UriParam(label = "advanced",
            defaultValue = "1s",
            javaType = "java.time.Duration",
            description = "The longest wait between two probes of an outage (a run of at least five failed or timed-out attempts, one of them sent after the first had failed, no success between them): while it lasts the pool sends one attempt at a time (a first attempt where one waits, the second probe a retry), the first after an eighth of this and each next after twice the wait before, until one succeeds or is rate-limited. 0 turns the rule off; at most 1 hour.")
    private Duration outageProbe = Limiter.DEFAULT_OUTAGE_PROBE;

    @UriParam(label = "advanced",
            defaultValue = "true",
            description = "Whether the quota a server announces on every answer is read from the response headers (RateLimit, RateLimit-Remaining/-Reset, X-RateLimit-Remaining/-Reset, X-RateLimit-Remaining-Requests/-Reset-Requests), on success and failure alike, so that the pool sends nothing while what remains is no more than what is in flight, until the reset (capped by maxRetryAfter).")
    private boolean quotaHeaders = true;

    @UriParam(label = "advanced",
            defaultValue = "false",
            description = "Whether what remains of an announced quota is spread evenly over the time to its reset instead of sent as fast as the limit allows.")
    private boolean quotaSpread;

    @UriParam(label = "advanced",
            defaultValue = "429,503",
            description = "HTTP statuses read as rate limits, comma-separated, within [100, 599]. 429 counts with or without Retry-After; any other listed status only when the response has a valid Retry-After (delta-seconds or HTTP-date). Read from camel-http's HttpOperationFailedException or the CamelHttpResponseCode header.")
    private String rateLimitStatusCodes = PoolConfig.DEFAULT_RATE_LIMIT_STATUS_CODES;

    @UriParam(label = "advanced",
            description = "A dev.adaptive.camel.ExchangeClassifier bean (classifier=#name) that reads each attempt first; when it returns null or throws, the default reading applies.")
    private ExchangeClassifier classifier;

    @UriParam(label = "advanced",
            description = "A dev.adaptive.trace.TraceListener bean (traceListener=#name) that receives the pool's trace events: attempt start and end, limit decisions and changes, retries, Retry-After pauses. Called on the threads that cause them; must be fast.")
    private TraceListener traceListener;

    @UriParam(label = "fleet",
            description = "A dev.adaptive.fleet.Coordinator bean through which several Camel applications calling one backend share one concurrency ceiling and one Retry-After pause: the pool joins the fleet under fleetKey at its first exchange and leaves when the component stops. Requires fleetNodeId. Autowired when the registry holds exactly one Coordinator.")
    @Metadata(autowired = true)
    private Coordinator coordinator;

    @UriParam(label = "fleet",
            defaultValueNote = "the pool's name",
            description = "The key every node calling the same backend shares in the coordinator. Default: the pool's name. Only with coordinator; set on the component, only for the pools that have one.")
    private String fleetKey;

    @UriParam(label = "fleet",
            description = "This application's id in the fleet, unique among the nodes of one fleetKey. Required with coordinator; no default, since two nodes with one id would corrupt the fleet's view. Only with coordinator. Set on the component, it is the id in every fleet the pools join, and a pool without a coordinator runs alone.")
    private String fleetNodeId;

    @UriParam(label = "fleet",
            defaultValue = "1s",
            javaType = "java.time.Duration",
            description = "How often the pool reports to the coordinator and learns its share of the fleet's ceiling; reports live twice as long. Positive, at most 365 days.")
    private Duration fleetHeartbeat = FleetMember.DEFAULT_HEARTBEAT;

    @UriParam(label = "fleet",
            defaultValue = "failClosed",
            enums = "failClosed,localOnly",
            description = "What the pool does while the coordinator does not answer: failClosed keeps its last share until its report may have expired, then admits nothing until the coordinator answers, so the fleet stays under its ceiling; localOnly runs on its own limit meanwhile (the fleet may exceed its ceiling), and takes its share back, after, as a joining node does.")
    private OutagePolicy fleetOutagePolicy = OutagePolicy.FAIL_CLOSED;

    /** @return the option algorithm (as set, or its default) */
    public Algorithm getAlgorithm() {
        return algorithm;
    }

    /** @param algorithm see {@link #getAlgorithm()}; marks the option as set here */
    public void setAlgorithm(Algorithm algorithm) {
        this.algorithm = algorithm;
        set("algorithm", algorithm);
    }

    /** @return the option initialLimit (as set, or its default) */
    public Integer getInitialLimit() {
        return initialLimit;
    }

    /** @param initialLimit see {@link #getInitialLimit()}; marks the option as set here */
    public void setInitialLimit(Integer initialLimit) {
        this.initialLimit = initialLimit;
        set("initialLimit", initialLimit);
    }

    /** @return the option minLimit (as set, or its default) */
    public int getMinLimit() {
        return minLimit;
    }

    /** @param minLimit see {@link #getMinLimit()}; marks the option as set here */
    public void setMinLimit(int minLimit) {
        this.minLimit = minLimit;
        set("minLimit", minLimit);
    }

    /** @return the option maxLimit (as set, or its default) */
    public int getMaxLimit() {
        return maxLimit;
    }

    /** @param maxLimit see {@link #getMaxLimit()}; marks the option as set here */
    public void setMaxLimit(int maxLimit) {
        this.maxLimit = maxLimit;
        set("maxLimit", maxLimit);
    }

    /** @return the option adaptOnLatency (as set, or its default) */
    public boolean isAdaptOnLatency() {
        return adaptOnLatency;
    }

    /** @param adaptOnLatency see {@link #isAdaptOnLatency()}; marks the option as set here */
    public void setAdaptOnLatency(boolean adaptOnLatency) {
        this.adaptOnLatency = adaptOnLatency;
        set("adaptOnLatency", adaptOnLatency);
    }

    /** @return the option adaptOnErrors (as set, or its default) */
    public boolean isAdaptOnErrors() {
        return adaptOnErrors;
    }

    /** @param adaptOnErrors see {@link #isAdaptOnErrors()}; marks the option as set here */
    public void setAdaptOnErrors(boolean adaptOnErrors) {
        this.adaptOnErrors = adaptOnErrors;
        set("adaptOnErrors", adaptOnErrors);
    }

    /** @return the option adaptOnRateLimit (as set, or its default) */
    public boolean isAdaptOnRateLimit() {
        return adaptOnRateLimit;
    }

    /** @param adaptOnRateLimit see {@link #isAdaptOnRateLimit()}; marks the option as set here */
    public void setAdaptOnRateLimit(boolean adaptOnRateLimit) {
        this.adaptOnRateLimit = adaptOnRateLimit;
        set("adaptOnRateLimit", adaptOnRateLimit);
    }

    /** @return the option retries (as set, or its default) */
    public int getRetries() {
        return retries;
    }

    /** @param retries see {@link #getRetries()}; marks the option as set here */
    public void setRetries(int retries) {
        this.retries = retries;
        set("retries", retries);
    }

    /** @return the option backoff (as set, or its default) */
    public Backoff.Kind getBackoff() {
        return backoff;
    }

    /** @param backoff see {@link #getBackoff()}; marks the option as set here */
    public void setBackoff(Backoff.Kind backoff) {
        this.backoff = backoff;
        set("backoff", backoff);
    }

    /** @return the option minDelay (as set, or its default) */
    public Duration getMinDelay() {
        return minDelay;
    }

    /** @param minDelay see {@link #getMinDelay()}; marks the option as set here */
    public void setMinDelay(Duration minDelay) {
        this.minDelay = minDelay;
        set("minDelay", minDelay);
    }

    /** @return the option maxDelay (as set, or its default) */
    public Duration getMaxDelay() {
        return maxDelay;
    }

    /** @param maxDelay see {@link #getMaxDelay()}; marks the option as set here */
    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
        set("maxDelay", maxDelay);
    }

    /** @return the option jitter (as set, or its default) */
    public double getJitter() {
        return jitter;
    }

    /** @param jitter see {@link #getJitter()}; marks the option as set here */
    public void setJitter(double jitter) {
        this.jitter = jitter;
        set("jitter", jitter);
    }

    /** @return the option maxRateLimitRetries (as set, or its default) */
    public int getMaxRateLimitRetries() {
        return maxRateLimitRetries;
    }

    /** @param maxRateLimitRetries see {@link #getMaxRateLimitRetries()}; marks the option as set here */
    public void setMaxRateLimitRetries(int maxRateLimitRetries) {
        this.maxRateLimitRetries = maxRateLimitRetries;
        set("maxRateLimitRetries", maxRateLimitRetries);
    }

    /** @return the option maxRetryAfter (as set, or its default) */
    public Duration getMaxRetryAfter() {
        return maxRetryAfter;
    }

    /** @param maxRetryAfter see {@link #getMaxRetryAfter()}; marks the option as set here */
    public void setMaxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
        set("maxRetryAfter", maxRetryAfter);
    }

    /** @return the option taskTimeout (as set, or its default) */
    public Duration getTaskTimeout() {
        return taskTimeout;
    }

    /** @param taskTimeout see {@link #getTaskTimeout()}; marks the option as set here */
    public void setTaskTimeout(Duration taskTimeout) {
        this.taskTimeout = taskTimeout;
        set("taskTimeout", taskTimeout);
    }

    /** @return the option waitTimeout (as set, or its default) */
    public Duration getWaitTimeout() {
        return waitTimeout;
    }

    /** @param waitTimeout see {@link #getWaitTimeout()}; marks the option as set here */
    public void setWaitTimeout(Duration waitTimeout) {
        this.waitTimeout = waitTimeout;
        set("waitTimeout", waitTimeout);
    }

    /** @return the option maxQueueSize (as set, or its default) */
    public int getMaxQueueSize() {
        return maxQueueSize;
    }

    /** @param maxQueueSize see {@link #getMaxQueueSize()}; marks the option as set here */
    public void setMaxQueueSize(int maxQueueSize) {
        this.maxQueueSize = maxQueueSize;
        set("maxQueueSize", maxQueueSize);
    }

    /** @return the option retryBudget (as set, or its default) */
    public boolean isRetryBudget() {
        return retryBudget;
    }

    /** @param retryBudget see {@link #isRetryBudget()}; marks the option as set here */
    public void setRetryBudget(boolean retryBudget) {
        this.retryBudget = retryBudget;
        set("retryBudget", retryBudget);
    }

    /** @return the option retryBudgetRatio (as set, or its default) */
    public double getRetryBudgetRatio() {
        return retryBudgetRatio;
    }

    /** @param retryBudgetRatio see {@link #getRetryBudgetRatio()}; marks the option as set here */
    public void setRetryBudgetRatio(double retryBudgetRatio) {
        this.retryBudgetRatio = retryBudgetRatio;
        set("retryBudgetRatio", retryBudgetRatio);
    }

    /** @return the option retryBudgetMinPerSecond (as set, or its default) */
    public double getRetryBudgetMinPerSecond() {
        return retryBudgetMinPerSecond;
    }

    /** @param retryBudgetMinPerSecond see {@link #getRetryBudgetMinPerSecond()}; marks the option as set here */
    public void setRetryBudgetMinPerSecond(double retryBudgetMinPerSecond) {
        this.retryBudgetMinPerSecond = retryBudgetMinPerSecond;
        set("retryBudgetMinPerSecond", retryBudgetMinPerSecond);
    }

    /** @return the option retryBudgetWindow (as set, or its default) */
    public Duration getRetryBudgetWindow() {
        return retryBudgetWindow;
    }

    /** @param retryBudgetWindow see {@link #getRetryBudgetWindow()}; marks the option as set here */
    public void setRetryBudgetWindow(Duration retryBudgetWindow) {
        this.retryBudgetWindow = retryBudgetWindow;
        set("retryBudgetWindow", retryBudgetWindow);
    }

    /** @return the option outageProbe (as set, or its default) */
    public Duration getOutageProbe() {
        return outageProbe;
    }

    /** @param outageProbe see {@link #getOutageProbe()}; marks the option as set here */
    public void setOutageProbe(Duration outageProbe) {
        this.outageProbe = outageProbe;
        set("outageProbe", outageProbe);
    }

    /** @return the option quotaHeaders (as set, or its default) */
    public boolean isQuotaHeaders() {
        return quotaHeaders;
    }

    /** @param quotaHeaders see {@link #isQuotaHeaders()}; marks the option as set here */
    public void setQuotaHeaders(boolean quotaHeaders) {
        this.quotaHeaders = quotaHeaders;
        set("quotaHeaders", quotaHeaders);
    }

    /** @return the option quotaSpread (as set, or its default) */
    public boolean isQuotaSpread() {
        return quotaSpread;
    }

    /** @param quotaSpread see {@link #isQuotaSpread()}; marks the option as set here */
    public void setQuotaSpread(boolean quotaSpread) {
        this.quotaSpread = quotaSpread;
        set("quotaSpread", quotaSpread);
    }

    /** @return the option rateLimitStatusCodes (as set, or its default) */
    public String getRateLimitStatusCodes() {
        return rateLimitStatusCodes;
    }

    /** @param rateLimitStatusCodes see {@link #getRateLimitStatusCodes()}; marks the option as set here */
    public void setRateLimitStatusCodes(String rateLimitStatusCodes) {
        this.rateLimitStatusCodes = rateLimitStatusCodes;
        set("rateLimitStatusCodes", rateLimitStatusCodes);
    }

    /** @return the option classifier (as set, or its default) */
    public ExchangeClassifier getClassifier() {
        return classifier;
    }

    /** @param classifier see {@link #getClassifier()}; marks the option as set here */
    public void setClassifier(ExchangeClassifier classifier) {
        this.classifier = classifier;
        set("classifier", classifier);
    }

    /** @return the option traceListener (as set, or its default) */
    public TraceListener getTraceListener() {
        return traceListener;
    }

    /** @param traceListener see {@link #getTraceListener()}; marks the option as set here */
    public void setTraceListener(TraceListener traceListener) {
        this.traceListener = traceListener;
        set("traceListener", traceListener);
    }

    /** @return the option coordinator (as set, or its default) */
    public Coordinator getCoordinator() {
        return coordinator;
    }

    /** @param coordinator see {@link #getCoordinator()}; marks the option as set here */
    public void setCoordinator(Coordinator coordinator) {
        this.coordinator = coordinator;
        set("coordinator", coordinator);
    }

    /** @return the option fleetKey (as set, or its default) */
    public String getFleetKey() {
        return fleetKey;
    }

    /** @param fleetKey see {@link #getFleetKey()}; marks the option as set here */
    public void setFleetKey(String fleetKey) {
        this.fleetKey = fleetKey;
        set("fleetKey", fleetKey);
    }

    /** @return the option fleetNodeId (as set, or its default) */
    public String getFleetNodeId() {
        return fleetNodeId;
    }

    /** @param fleetNodeId see {@link #getFleetNodeId()}; marks the option as set here */
    public void setFleetNodeId(String fleetNodeId) {
        this.fleetNodeId = fleetNodeId;
        set("fleetNodeId", fleetNodeId);
    }

    /** @return the option fleetHeartbeat (as set, or its default) */
    public Duration getFleetHeartbeat() {
        return fleetHeartbeat;
    }

    /** @param fleetHeartbeat see {@link #getFleetHeartbeat()}; marks the option as set here */
    public void setFleetHeartbeat(Duration fleetHeartbeat) {
        this.fleetHeartbeat = fleetHeartbeat;
        set("fleetHeartbeat", fleetHeartbeat);
    }

    /** @return the option fleetOutagePolicy (as set, or its default) */
    public OutagePolicy getFleetOutagePolicy() {
        return fleetOutagePolicy;
    }

    /** @param fleetOutagePolicy see {@link #getFleetOutagePolicy()}; marks the option as set here */
    public void setFleetOutagePolicy(OutagePolicy fleetOutagePolicy) {
        this.fleetOutagePolicy = fleetOutagePolicy;
        set("fleetOutagePolicy", fleetOutagePolicy);
    }

    /**
     * @return the options set on this source, by name, each as given (text where it came from
     *         text, so that messages quote it), in the order they were set
     */
    public Map<String, Object> options() {
        synchronized (set) {
            return Collections.unmodifiableMap(new LinkedHashMap<>(set));
        }
    }

    /** @return whether any option was set on this source */
    public boolean hasOptions() {
        return !set.isEmpty();
    }

    /**
     * Records the text an option was given as, after its typed setter took the value read from it.
     *
     * @param option the option's name
     * @param text   the text as given
     */
    void spelled(String option, String text) {
        set.put(option, text);
    }

    private void set(String option, Object value) {
        set.put(option, value);
    }

    @Override
    public String toString() {
        return "PoolConfiguration" + options();
    }
}
