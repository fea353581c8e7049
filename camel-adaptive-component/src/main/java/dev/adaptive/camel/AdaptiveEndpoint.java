package dev.adaptive.camel;

import dev.adaptive.fleet.Coordinator;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.Category;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.api.management.ManagedAttribute;
import org.apache.camel.api.management.ManagedResource;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.support.DefaultEndpoint;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code adaptive:name}: a producer hands the exchange to the route that consumes from the
 * same name, like {@code direct:}, through the pool's adaptive limiter, which finds how many
 * attempts may run at once, retries failures and pauses the whole pool on a 429 with
 * {@code Retry-After}.
 *
 * <p>Every option but {@code timeout} belongs to the pool, which is shared by every endpoint
 * with the same name in one Camel context: the first endpoint that sets any pool option fixes
 * them all, later endpoints either set none (they join) or set exactly the same values, or
 * their creation fails with {@link IllegalArgumentException} naming the options that differ.
 *
 * <p>Duration options are read by the component, not by Camel's converter (which reads
 * {@code abc} or {@code 1M} as 0 and {@code 1h30x} as an hour): milliseconds ({@code 500}),
 * numbers with units from {@code d} to {@code ms} in that order ({@code 1h30m15s},
 * {@code 500ms}) or ISO-8601 ({@code PT1S}); anything else, a negative value or one past a long
 * of nanoseconds fails the endpoint's creation with an {@link IllegalArgumentException} naming
 * the option and quoting the text.
 *
 * <p>Thread-safe once configured; options are set while Camel creates the endpoint.
 */
@UriEndpoint(firstVersion = "0.1.0", scheme = "adaptive", title = "Adaptive", syntax = "adaptive:name",
        category = {Category.CORE, Category.HTTP}, headersClass = AdaptiveConstants.class)
@ManagedResource(description = "Managed adaptive endpoint: its pool's limit, load and counters")
public class AdaptiveEndpoint extends DefaultEndpoint {

    /** Default wait for a consumer route when none is started: 30 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Set<String> explicit = ConcurrentHashMap.newKeySet();
    /** Duration options as typed in the URI, so that messages quote them so. */
    private final Map<String, String> spelled = new ConcurrentHashMap<>();

    @UriPath(description = "Name of the pool. Producers and the one consumer route with the same name in a"
            + " Camel context share one pool.")
    @Metadata(required = true)
    private String name;

    @UriParam(label = "common", defaultValue = "vegas", enums = "vegas,aimd,gradient2,fixed",
            description = "The limit algorithm. vegas (default) keeps the downstream's queue short from latency;"
                    + " aimd grows additively while latency is stable and halves on errors; gradient2 follows"
                    + " the ratio of long- to short-term latency; fixed always allows exactly max (initial must"
                    + " then stay unset).")
    private String algorithm = PoolConfig.DEFAULT_ALGORITHM;

    @UriParam(label = "common", defaultValueNote = "5, moved into [min, max]",
            description = "The concurrency limit before any attempt has finished. Must be within [min, max]."
                    + " Default 5, moved into [min, max] when unset. Not allowed with algorithm=fixed.")
    private Integer initial;

    @UriParam(label = "common", defaultValue = "1",
            description = "The lowest the concurrency limit goes. At least 1; default 1. Ignored by algorithm=fixed.")
    private int min = PoolConfig.DEFAULT_MIN;

    @UriParam(label = "common", defaultValue = "100",
            description = "The highest the concurrency limit goes (with algorithm=fixed: the limit). At least min;"
                    + " default 100.")
    private int max = PoolConfig.DEFAULT_MAX;

    @UriParam(label = "advanced", defaultValue = "true",
            description = "Whether latency moves the limit. When false, successes feed a flat RTT so the limit only"
                    + " probes upward. Default true.")
    private boolean adaptOnLatency = true;

    @UriParam(label = "advanced", defaultValue = "true",
            description = "Whether failed and timed-out attempts decrease the limit. Default true.")
    private boolean adaptOnErrors = true;

    @UriParam(label = "advanced", defaultValue = "true",
            description = "Whether rate-limited attempts decrease the limit. A 429 with Retry-After pauses the pool"
                    + " either way. Default true.")
    private boolean adaptOnRateLimit = true;

    @UriParam(label = "retry", defaultValue = "3",
            description = "Retries per exchange after failed or timed-out attempts, each after a backoff delay."
                    + " Rate-limited attempts do not consume them (see maxRateLimitRetries). At least 0; default 3.")
    private int retries = 3;

    @UriParam(label = "retry", defaultValue = "exponential", enums = "exponential,linear,constant",
            description = "How the backoff delay grows: exponential (minDelay * 2^(n-1)), linear (minDelay * n) or"
                    + " constant (minDelay). Default exponential.")
    private String backoff = PoolConfig.DEFAULT_BACKOFF;

    @UriParam(label = "retry", defaultValue = "100ms", javaType = "java.time.Duration",
            description = "The base backoff delay. Like every duration option: milliseconds (100), numbers with"
                    + " units from d to ms in that order (1h30m15s, 2s500ms) or ISO-8601 (PT0.1S); anything else"
                    + " fails when the endpoint is created. At least 0; default 100ms.")
    private Duration minDelay = Duration.ofMillis(100);

    @UriParam(label = "retry", defaultValue = "30s", javaType = "java.time.Duration",
            description = "The cap on one backoff delay, jitter included. At least minDelay; default 30s.")
    private Duration maxDelay = Duration.ofSeconds(30);

    @UriParam(label = "retry", defaultValue = "0.2",
            description = "The fraction by which a backoff delay is spread either way, within [0, 1]; default 0.2."
                    + " Never applied to a Retry-After wait.")
    private double jitter = 0.2;

    @UriParam(label = "retry", defaultValue = "10",
            description = "Retries per exchange after rate-limited attempts (429, or another of"
                    + " rateLimitStatusCodes with Retry-After); each waits for the pool's Retry-After pause."
                    + " At least 0; default 10.")
    private int maxRateLimitRetries = 10;

    @UriParam(label = "retry", defaultValue = "10m", javaType = "java.time.Duration",
            description = "The cap on one Retry-After pause: a longer or hostile value is cut to this. Positive;"
                    + " default 10m.")
    private Duration maxRetryAfter = Duration.ofMinutes(10);

    @UriParam(label = "common", defaultValue = "0", javaType = "java.time.Duration",
            description = "How long one attempt may run; past it the attempt counts as dropped, its thread is"
                    + " interrupted and a retry follows (within retries). 0 (default) means no timeout.")
    private Duration taskTimeout = Duration.ZERO;

    @UriParam(label = "producer", defaultValue = "10000",
            description = "How many exchanges may wait (for a slot, a backoff or a Retry-After pause) while no slot"
                    + " is free; one more is refused at once with dev.adaptive.RejectedException. At least 0;"
                    + " default 10000.")
    private int maxQueueSize = PoolConfig.DEFAULT_MAX_QUEUE_SIZE;

    @UriParam(label = "advanced", defaultValue = "429,503",
            description = "HTTP statuses read as rate limits, comma-separated. 429 counts with or without"
                    + " Retry-After; any other listed status only when the response has a valid Retry-After"
                    + " (delta-seconds or HTTP-date). Read from camel-http's HttpOperationFailedException or the"
                    + " CamelHttpResponseCode header. Default 429,503.")
    private String rateLimitStatusCodes = PoolConfig.DEFAULT_RATE_LIMIT_STATUS_CODES;

    @UriParam(label = "advanced",
            description = "A dev.adaptive.camel.ExchangeClassifier bean (classifier=#name) that reads each attempt"
                    + " first; when it returns null or throws, the default reading applies. Default none.")
    private ExchangeClassifier classifier;

    @UriParam(label = "advanced",
            description = "A dev.adaptive.trace.TraceListener bean (traceListener=#name) that receives the pool's"
                    + " trace events: attempt start and end, limit decisions and changes, retries, Retry-After"
                    + " pauses. Called on the threads that cause them; must be fast. Default none.")
    private TraceListener traceListener;

    @UriParam(label = "fleet",
            description = "A dev.adaptive.fleet.Coordinator bean (coordinator=#name) through which several Camel"
                    + " applications calling one backend share one concurrency ceiling and one Retry-After pause:"
                    + " the pool joins the fleet under fleetKey at its first exchange and leaves when the component"
                    + " stops. Requires fleetNodeId. Default none (the pool runs alone).")
    private Coordinator coordinator;

    @UriParam(label = "fleet", defaultValueNote = "the pool's name",
            description = "The key every node calling the same backend shares in the coordinator. Default: the"
                    + " pool's name. Only with coordinator.")
    private String fleetKey;

    @UriParam(label = "fleet",
            description = "This application's id in the fleet, unique among the nodes of one fleetKey. Required with"
                    + " coordinator; no default, since two nodes with one id would corrupt the fleet's view."
                    + " Only with coordinator.")
    private String fleetNodeId;

    @UriParam(label = "fleet", defaultValue = "1s", javaType = "java.time.Duration",
            description = "How often the pool reports to the coordinator and learns its share of the fleet's"
                    + " ceiling; reports live twice as long. Positive; default 1s.")
    private Duration fleetHeartbeat = Duration.ofSeconds(1);

    @UriParam(label = "fleet", defaultValue = "failClosed", enums = "failClosed,localOnly",
            description = "What the pool does while the coordinator does not answer: failClosed (default) keeps its"
                    + " last share until its report may have expired, then admits nothing until the coordinator"
                    + " answers, so the fleet stays under its ceiling; localOnly runs on its own limit meanwhile.")
    private String fleetOutagePolicy = PoolConfig.DEFAULT_FLEET_OUTAGE_POLICY;

    @UriParam(label = "producer", defaultValue = "30s", javaType = "java.time.Duration",
            description = "How long an exchange waits for a consumer route when none is started, holding no thread;"
                    + " then it fails with AdaptiveConsumerNotAvailableException. 0 fails at once. This option is"
                    + " the endpoint's own, not the pool's. Default 30s.")
    private Duration timeout = DEFAULT_TIMEOUT;

    @UriParam(label = "producer,advanced", defaultValue = "false",
            description = "Whether the first attempt of an exchange runs on the caller's thread when a slot is free"
                    + " at once, as direct: does, instead of on the pool's worker threads. For callers that wait"
                    + " for the result anyway (ProducerTemplate.sendBody, a synchronous route): it saves a thread"
                    + " hand-off per exchange. Exchanges that wait for a slot, retries and attempts after a"
                    + " Retry-After pause still run on the workers, and a task timeout frees the slot and fails"
                    + " the attempt but does not interrupt the caller's thread. Transacted exchanges always run"
                    + " their first attempt this way, so the transaction stays on its thread. This option is the"
                    + " endpoint's own, not the pool's. Default false.")
    private boolean synchronous;

    /**
     * @param uri       the endpoint URI
     * @param component the component
     * @param name      the pool's name
     */
    public AdaptiveEndpoint(String uri, AdaptiveComponent component, String name) {
        super(uri, component);
        this.name = name;
    }

    @Override
    public AdaptiveComponent getComponent() {
        return (AdaptiveComponent) super.getComponent();
    }

    @Override
    public Producer createProducer() {
        return new AdaptiveProducer(this);
    }

    @Override
    public Consumer createConsumer(Processor processor) throws Exception {
        AdaptiveConsumer consumer = new AdaptiveConsumer(this, processor);
        configureConsumer(consumer);
        return consumer;
    }

    /** @return whether any pool option was set on this endpoint */
    boolean hasPoolOptions() {
        return !explicit.isEmpty();
    }

    /**
     * @return this endpoint's pool options, validated
     * @throws IllegalArgumentException naming the first bad option and its value
     */
    PoolConfig poolConfig() {
        return PoolConfig.builder()
                .algorithm(algorithm).initial(initial).min(min).max(max)
                .adaptOnLatency(adaptOnLatency).adaptOnErrors(adaptOnErrors).adaptOnRateLimit(adaptOnRateLimit)
                .retries(retries).backoff(backoff).minDelay(minDelay).maxDelay(maxDelay).jitter(jitter)
                .maxRateLimitRetries(maxRateLimitRetries).maxRetryAfter(maxRetryAfter).taskTimeout(taskTimeout)
                .maxQueueSize(maxQueueSize).rateLimitStatusCodes(rateLimitStatusCodes).classifier(classifier)
                .traceListener(traceListener)
                .coordinator(coordinator).fleetKey(fleetKey).fleetNodeId(fleetNodeId)
                .fleetHeartbeat(fleetHeartbeat).fleetOutagePolicy(fleetOutagePolicy)
                .spelled(spelled)
                .build();
    }

    /** @return the pool behind this endpoint, started on first use */
    ExchangePool pool() {
        return getComponent().pool(name);
    }

    /** @return a snapshot of the pool, if it has started */
    public Optional<PoolStats> stats() {
        return getComponent().stats(name);
    }

    private void set(String option) {
        explicit.add(option);
    }

    // ---- JMX -----------------------------------------------------------------------------

    private PoolStats statsOrIdle() {
        return stats().orElse(null);
    }

    /** @return the pool's concurrency limit now, 0 before it starts */
    @ManagedAttribute(description = "The pool's concurrency limit now")
    public int getLimit() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.limit();
    }

    /** @return attempts holding a slot now */
    @ManagedAttribute(description = "Attempts holding a slot now")
    public int getInflight() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.inflight();
    }

    /** @return exchanges queued for a slot now */
    @ManagedAttribute(description = "Exchanges queued for a slot now")
    public int getWaiting() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.waiting();
    }

    /** @return exchanges accepted and not yet ended */
    @ManagedAttribute(description = "Exchanges accepted and not yet ended (in flight, queued, in backoff)")
    public int getPending() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.pending();
    }

    /** @return the highest limit so far */
    @ManagedAttribute(description = "The highest concurrency limit so far")
    public int getMaxLimitReached() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.maxLimitReached();
    }

    /** @return whether a Retry-After pause is open */
    @ManagedAttribute(description = "Whether a Retry-After pause is open now")
    public boolean isRatePaused() {
        PoolStats s = statsOrIdle();
        return s != null && s.ratePaused();
    }

    /** @return the limiter's lifecycle state, or NOT_STARTED */
    @ManagedAttribute(description = "The limiter's state: RUNNING, PAUSED, STOPPED, ABORTED, or NOT_STARTED")
    public String getPoolState() {
        PoolStats s = statsOrIdle();
        return s == null ? "NOT_STARTED" : s.state().name();
    }

    /** @return exchanges accepted */
    @ManagedAttribute(description = "Exchanges accepted")
    public long getExchangesAccepted() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.accepted();
    }

    /** @return exchanges that ended in success */
    @ManagedAttribute(description = "Exchanges that ended with the consumer route's success")
    public long getExchangesCompleted() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.completed();
    }

    /** @return exchanges that ended with an exception */
    @ManagedAttribute(description = "Exchanges that ended with an exception")
    public long getExchangesFailed() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.failed();
    }

    /** @return exchanges refused at once */
    @ManagedAttribute(description = "Exchanges refused at once: queue full, pool stopped, no consumer")
    public long getExchangesRejected() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.rejected();
    }

    /** @return attempts started */
    @ManagedAttribute(description = "Attempts started")
    public long getAttempts() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.attempts();
    }

    /** @return attempts after the first */
    @ManagedAttribute(description = "Attempts after the first, of any exchange")
    public long getRetryAttempts() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.retries();
    }

    /** @return dropped attempts */
    @ManagedAttribute(description = "Dropped attempts: failed or timed out")
    public long getCongestionEvents() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.congestionEvents();
    }

    /** @return rate-limited attempts */
    @ManagedAttribute(description = "Rate-limited attempts")
    public long getRateLimitEvents() {
        PoolStats s = statsOrIdle();
        return s == null ? 0 : s.rateLimitEvents();
    }

    /** @return this pool's share of the fleet's ceiling, or -1 without a coordinator */
    @ManagedAttribute(description = "This pool's share of the fleet's ceiling; -1 without a coordinator")
    public int getFleetShare() {
        PoolStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().share();
    }

    /** @return the fleet's ceiling, or -1 without a coordinator */
    @ManagedAttribute(description = "The fleet's global ceiling in the last heartbeat; -1 without a coordinator")
    public int getFleetCeiling() {
        PoolStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().globalCeiling();
    }

    /** @return the live nodes of the fleet, or -1 without a coordinator */
    @ManagedAttribute(description = "The fleet's live nodes in the last heartbeat; -1 without a coordinator")
    public int getFleetLiveNodes() {
        PoolStats s = statsOrIdle();
        return s == null || s.fleet() == null ? -1 : s.fleet().liveNodes();
    }

    // ---- options -------------------------------------------------------------------------

    /** @return the pool's name */
    @ManagedAttribute(description = "The pool's name")
    public String getName() {
        return name;
    }

    /** @param name the pool's name */
    public void setName(String name) {
        this.name = name;
    }

    /** @return the limit algorithm */
    public String getAlgorithm() {
        return algorithm;
    }

    /** @param algorithm vegas (default), aimd, gradient2 or fixed */
    public void setAlgorithm(String algorithm) {
        this.algorithm = algorithm;
        set("algorithm");
    }

    /** @return the initial limit, or {@code null} for the default */
    public Integer getInitial() {
        return initial;
    }

    /** @param initial the limit before any sample */
    public void setInitial(Integer initial) {
        this.initial = initial;
        set("initial");
    }

    /** @return the lowest limit */
    public int getMin() {
        return min;
    }

    /** @param min the lowest limit, at least 1 */
    public void setMin(int min) {
        this.min = min;
        set("min");
    }

    /** @return the highest limit */
    public int getMax() {
        return max;
    }

    /** @param max the highest limit, at least min */
    public void setMax(int max) {
        this.max = max;
        set("max");
    }

    /** @return whether latency moves the limit */
    public boolean isAdaptOnLatency() {
        return adaptOnLatency;
    }

    /** @param adaptOnLatency whether latency moves the limit */
    public void setAdaptOnLatency(boolean adaptOnLatency) {
        this.adaptOnLatency = adaptOnLatency;
        set("adaptOnLatency");
    }

    /** @return whether drops decrease the limit */
    public boolean isAdaptOnErrors() {
        return adaptOnErrors;
    }

    /** @param adaptOnErrors whether drops decrease the limit */
    public void setAdaptOnErrors(boolean adaptOnErrors) {
        this.adaptOnErrors = adaptOnErrors;
        set("adaptOnErrors");
    }

    /** @return whether rate limits decrease the limit */
    public boolean isAdaptOnRateLimit() {
        return adaptOnRateLimit;
    }

    /** @param adaptOnRateLimit whether rate limits decrease the limit */
    public void setAdaptOnRateLimit(boolean adaptOnRateLimit) {
        this.adaptOnRateLimit = adaptOnRateLimit;
        set("adaptOnRateLimit");
    }

    /** @return retries after errors */
    public int getRetries() {
        return retries;
    }

    /** @param retries retries after errors, at least 0 */
    public void setRetries(int retries) {
        this.retries = retries;
        set("retries");
    }

    /** @return the backoff kind */
    public String getBackoff() {
        return backoff;
    }

    /** @param backoff exponential (default), linear or constant */
    public void setBackoff(String backoff) {
        this.backoff = backoff;
        set("backoff");
    }

    /** @return the base backoff delay */
    public Duration getMinDelay() {
        return minDelay;
    }

    /**
     * @param minDelay the base backoff delay, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setMinDelay(String minDelay) {
        setMinDelay(DurationText.parse("minDelay", minDelay));
        spelled.put("minDelay", minDelay);
    }

    /** @param minDelay the base backoff delay */
    public void setMinDelay(Duration minDelay) {
        this.minDelay = minDelay;
        set("minDelay");
        spelled.remove("minDelay");
    }

    /** @return the cap on a backoff delay */
    public Duration getMaxDelay() {
        return maxDelay;
    }

    /**
     * @param maxDelay the cap on a backoff delay, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setMaxDelay(String maxDelay) {
        setMaxDelay(DurationText.parse("maxDelay", maxDelay));
        spelled.put("maxDelay", maxDelay);
    }

    /** @param maxDelay the cap on a backoff delay */
    public void setMaxDelay(Duration maxDelay) {
        this.maxDelay = maxDelay;
        set("maxDelay");
        spelled.remove("maxDelay");
    }

    /** @return the backoff jitter */
    public double getJitter() {
        return jitter;
    }

    /** @param jitter the backoff jitter, within [0, 1] */
    public void setJitter(double jitter) {
        this.jitter = jitter;
        set("jitter");
    }

    /** @return retries after rate limits */
    public int getMaxRateLimitRetries() {
        return maxRateLimitRetries;
    }

    /** @param maxRateLimitRetries retries after rate limits, at least 0 */
    public void setMaxRateLimitRetries(int maxRateLimitRetries) {
        this.maxRateLimitRetries = maxRateLimitRetries;
        set("maxRateLimitRetries");
    }

    /** @return the cap on a Retry-After pause */
    public Duration getMaxRetryAfter() {
        return maxRetryAfter;
    }

    /**
     * @param maxRetryAfter the cap on a Retry-After pause, positive, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setMaxRetryAfter(String maxRetryAfter) {
        setMaxRetryAfter(DurationText.parse("maxRetryAfter", maxRetryAfter));
        spelled.put("maxRetryAfter", maxRetryAfter);
    }

    /** @param maxRetryAfter the cap on a Retry-After pause, positive */
    public void setMaxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
        set("maxRetryAfter");
        spelled.remove("maxRetryAfter");
    }

    /** @return the per-attempt timeout, zero for none */
    public Duration getTaskTimeout() {
        return taskTimeout;
    }

    /**
     * @param taskTimeout the per-attempt timeout, zero for none, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setTaskTimeout(String taskTimeout) {
        setTaskTimeout(DurationText.parse("taskTimeout", taskTimeout));
        spelled.put("taskTimeout", taskTimeout);
    }

    /** @param taskTimeout the per-attempt timeout, zero for none */
    public void setTaskTimeout(Duration taskTimeout) {
        this.taskTimeout = taskTimeout;
        set("taskTimeout");
        spelled.remove("taskTimeout");
    }

    /** @return the bound on queued exchanges */
    public int getMaxQueueSize() {
        return maxQueueSize;
    }

    /** @param maxQueueSize the bound on queued exchanges, at least 0 */
    public void setMaxQueueSize(int maxQueueSize) {
        this.maxQueueSize = maxQueueSize;
        set("maxQueueSize");
    }

    /** @return the statuses read as rate limits, comma-separated */
    public String getRateLimitStatusCodes() {
        return rateLimitStatusCodes;
    }

    /** @param rateLimitStatusCodes the statuses read as rate limits, comma-separated */
    public void setRateLimitStatusCodes(String rateLimitStatusCodes) {
        this.rateLimitStatusCodes = rateLimitStatusCodes;
        set("rateLimitStatusCodes");
    }

    /** @return the custom classifier, or {@code null} */
    public ExchangeClassifier getClassifier() {
        return classifier;
    }

    /** @param classifier the custom classifier */
    public void setClassifier(ExchangeClassifier classifier) {
        this.classifier = classifier;
        set("classifier");
    }

    /** @return the trace listener, or {@code null} */
    public TraceListener getTraceListener() {
        return traceListener;
    }

    /** @param traceListener receives the pool's trace events */
    public void setTraceListener(TraceListener traceListener) {
        this.traceListener = traceListener;
        set("traceListener");
    }

    /** @return the fleet coordinator, or {@code null} */
    public Coordinator getCoordinator() {
        return coordinator;
    }

    /** @param coordinator the fleet coordinator */
    public void setCoordinator(Coordinator coordinator) {
        this.coordinator = coordinator;
        set("coordinator");
    }

    /** @return the fleet key, or {@code null} for the pool's name */
    public String getFleetKey() {
        return fleetKey;
    }

    /** @param fleetKey the fleet key */
    public void setFleetKey(String fleetKey) {
        this.fleetKey = fleetKey;
        set("fleetKey");
    }

    /** @return this node's id in the fleet */
    public String getFleetNodeId() {
        return fleetNodeId;
    }

    /** @param fleetNodeId this node's id in the fleet */
    public void setFleetNodeId(String fleetNodeId) {
        this.fleetNodeId = fleetNodeId;
        set("fleetNodeId");
    }

    /** @return the fleet heartbeat period */
    public Duration getFleetHeartbeat() {
        return fleetHeartbeat;
    }

    /**
     * @param fleetHeartbeat the fleet heartbeat period, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setFleetHeartbeat(String fleetHeartbeat) {
        setFleetHeartbeat(DurationText.parse("fleetHeartbeat", fleetHeartbeat));
        spelled.put("fleetHeartbeat", fleetHeartbeat);
    }

    /** @param fleetHeartbeat the fleet heartbeat period */
    public void setFleetHeartbeat(Duration fleetHeartbeat) {
        this.fleetHeartbeat = fleetHeartbeat;
        set("fleetHeartbeat");
        spelled.remove("fleetHeartbeat");
    }

    /** @return failClosed or localOnly */
    public String getFleetOutagePolicy() {
        return fleetOutagePolicy;
    }

    /** @param fleetOutagePolicy failClosed or localOnly */
    public void setFleetOutagePolicy(String fleetOutagePolicy) {
        this.fleetOutagePolicy = fleetOutagePolicy;
        set("fleetOutagePolicy");
    }

    /** @return whether a first attempt with a free slot runs on the caller's thread */
    public boolean isSynchronous() {
        return synchronous;
    }

    /** @param synchronous whether a first attempt with a free slot runs on the caller's thread */
    public void setSynchronous(boolean synchronous) {
        this.synchronous = synchronous;
    }

    /** @return how long an exchange waits for a consumer route */
    public Duration getTimeout() {
        return timeout;
    }

    /**
     * @param timeout how long an exchange waits for a consumer route, at least 0, as text: milliseconds ({@code 500}), numbers with units from
     *        {@code d} to {@code ms} in that order ({@code 1h30m15s}, {@code 500ms}) or ISO-8601
     *        ({@code PT1S})
     * @throws IllegalArgumentException naming the option and quoting the text, if it is none
     *         of these, negative, or longer than a long of nanoseconds holds
     */
    public void setTimeout(String timeout) {
        setTimeout(DurationText.parse("timeout", timeout));
        spelled.put("timeout", timeout);
    }

    /** @param timeout how long an exchange waits for a consumer route, at least 0 */
    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
        spelled.remove("timeout");
    }
}
