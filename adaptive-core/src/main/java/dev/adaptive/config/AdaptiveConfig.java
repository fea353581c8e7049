package dev.adaptive.config;

import dev.adaptive.Adapt;
import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.internal.ConfigText;
import dev.adaptive.internal.DurationText;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The options a limiter, its retries and its fleet membership share in every face: the one
 * place where each option's name, default, unit, check and error message is written. The
 * Camel component reads URI and properties options onto it, the Vert.x module its JSON; a
 * plain-Java program builds it directly or binds a {@code Map} (a properties file, say).
 *
 * <pre>{@code
 * AdaptiveConfig config = AdaptiveConfig.builder().setAll(Map.of("maxLimit", "50", "maxDelay", "5s")).build();
 * Limiter limiter = config.limiterBuilder().name("orders").build();
 * AdaptiveExecutor executor = config.executorBuilder(limiter).build();
 * Optional<FleetMember> member = config.fleetMemberBuilder(limiter, "orders").map(FleetMember.Builder::join);
 * }</pre>
 *
 * <p>Options and defaults: see {@link ConfigOption} (its {@link ConfigOption#markdownTable()}
 * is the table in the documentation). Text values are read strictly ({@link ConfigOption.Kind}):
 * whole numbers as ASCII digits, durations as milliseconds ({@code 500}), units from {@code d}
 * to {@code ms} in that order ({@code 1h30m}) or ISO-8601 ({@code PT1S}), enums by option name
 * in any ASCII case. Anything else fails with {@link IllegalArgumentException} naming the
 * option and quoting the value as given, and so does a duration past about 292 years (a long of
 * nanoseconds), whether text, a number of milliseconds or a {@link Duration}.
 *
 * <p>Immutable and thread-safe, provided the trace listener and coordinator it holds are.
 * {@link #equals} compares every option, the listener and coordinator by identity.
 */
public final class AdaptiveConfig {

    /** The default algorithm: {@link Algorithm#VEGAS}. */
    public static final Algorithm DEFAULT_ALGORITHM = Algorithm.VEGAS;
    /** The default backoff: exponential. */
    public static final Backoff.Kind DEFAULT_BACKOFF = Backoff.Kind.EXPONENTIAL;
    /** The default outage policy of a fleet member: fail closed. */
    public static final OutagePolicy DEFAULT_FLEET_OUTAGE_POLICY = OutagePolicy.FAIL_CLOSED;

    private static final AdaptiveConfig DEFAULTS = new Builder().build();

    private final Algorithm algorithm;
    private final Integer initialLimit;
    private final int effectiveInitialLimit;
    private final int minLimit;
    private final int maxLimit;
    private final boolean adaptOnLatency;
    private final boolean adaptOnErrors;
    private final boolean adaptOnRateLimit;
    private final int retries;
    private final Backoff.Kind backoff;
    private final Duration minDelay;
    private final Duration maxDelay;
    private final double jitter;
    private final int maxRateLimitRetries;
    private final Duration maxRetryAfter;
    private final Duration taskTimeout;
    private final Duration waitTimeout;
    private final int maxQueueSize;
    private final boolean retryBudget;
    private final double retryBudgetRatio;
    private final double retryBudgetMinPerSecond;
    private final Duration retryBudgetWindow;
    private final Duration outageProbe;
    private final boolean quotaHeaders;
    private final boolean quotaSpread;
    private final TraceListener traceListener;
    private final Coordinator coordinator;
    private final String fleetKey;
    private final String fleetNodeId;
    private final Duration fleetHeartbeat;
    private final OutagePolicy fleetOutagePolicy;

    private AdaptiveConfig(Builder b, int effectiveInitialLimit) {
        this.algorithm = b.algorithm;
        this.initialLimit = b.initialLimit;
        this.effectiveInitialLimit = effectiveInitialLimit;
        this.minLimit = b.minLimit;
        this.maxLimit = b.maxLimit;
        this.adaptOnLatency = b.adaptOnLatency;
        this.adaptOnErrors = b.adaptOnErrors;
        this.adaptOnRateLimit = b.adaptOnRateLimit;
        this.retries = b.retries;
        this.backoff = b.backoff;
        this.minDelay = b.minDelay;
        this.maxDelay = b.maxDelay;
        this.jitter = b.jitter;
        this.maxRateLimitRetries = b.maxRateLimitRetries;
        this.maxRetryAfter = b.maxRetryAfter;
        this.taskTimeout = b.taskTimeout;
        this.waitTimeout = b.waitTimeout;
        this.maxQueueSize = b.maxQueueSize;
        this.retryBudget = b.retryBudget;
        this.retryBudgetRatio = b.retryBudgetRatio;
        this.retryBudgetMinPerSecond = b.retryBudgetMinPerSecond;
        this.retryBudgetWindow = b.retryBudgetWindow;
        this.outageProbe = b.outageProbe;
        this.quotaHeaders = b.quotaHeaders;
        this.quotaSpread = b.quotaSpread;
        this.traceListener = b.traceListener;
        this.coordinator = b.coordinator;
        this.fleetKey = b.fleetKey;
        this.fleetNodeId = b.fleetNodeId;
        this.fleetHeartbeat = b.fleetHeartbeat;
        this.fleetOutagePolicy = b.fleetOutagePolicy;
    }

    /** @return a builder with every option at its default; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return every option at its default */
    public static AdaptiveConfig defaults() {
        return DEFAULTS;
    }

    /**
     * @param options option names to values, read as {@link Builder#set} reads them
     * @return the options, validated
     * @throws IllegalArgumentException on an unknown name or a bad value, naming it
     */
    public static AdaptiveConfig of(Map<String, ?> options) {
        return builder().setAll(options).build();
    }

    /** @return a builder holding these options, to change a few */
    public Builder toBuilder() {
        Builder b = new Builder();
        for (ConfigOption o : ConfigOption.values()) {
            Object v = value(o);
            if (v != null) {
                b.set(o, v, null);
            }
        }
        b.initialLimit = initialLimit;
        return b;
    }

    // ---- the engine's values ------------------------------------------------------------

    /** @return the algorithm with these bounds */
    public Limit limit() {
        return algorithm.limit(effectiveInitialLimit, minLimit, maxLimit);
    }

    /** @return which signals move the limit */
    public Adapt adapt() {
        return Adapt.of(adaptOnLatency, adaptOnErrors, adaptOnRateLimit);
    }

    /** @return the retry policy, retrying every error */
    public RetryPolicy retryPolicy() {
        return retryPolicy(RetryClassifier.all());
    }

    /**
     * @param retryOn which errors are worth a retry
     * @return the retry policy these options describe
     */
    public RetryPolicy retryPolicy(RetryClassifier retryOn) {
        return RetryPolicy.builder()
                .retries(retries)
                .backoff(new Backoff(backoff, minDelay, maxDelay, jitter))
                .maxRateLimitRetries(maxRateLimitRetries)
                .maxRetryAfter(maxRetryAfter)
                .retryOn(retryOn)
                .build();
    }

    /** @return the retry budget these options describe, {@link RetryBudget#unlimited()} when off */
    public RetryBudget retryBudgetValue() {
        return retryBudget ? new RetryBudget(retryBudgetRatio, retryBudgetMinPerSecond, retryBudgetWindow)
                : RetryBudget.unlimited();
    }

    /**
     * @return a limiter builder with the algorithm, adapt switches, queue bound, wait timeout,
     *         Retry-After cap, retry budget, quota spreading and trace listener of these options;
     *         name and time are the caller's
     */
    public Limiter.Builder limiterBuilder() {
        Limiter.Builder b = Limiter.builder()
                .limit(limit())
                .adapt(adapt())
                .maxQueueSize(maxQueueSize)
                .waitTimeout(waitTimeout.isZero() ? null : waitTimeout)
                .maxRetryAfter(maxRetryAfter)
                .retryBudget(retryBudgetValue())
                .outageProbe(outageProbe)
                .quotaSpread(quotaSpread);
        if (traceListener != null) {
            b.traceListener(traceListener);
        }
        return b;
    }

    /**
     * @param limiter the limiter the executor runs through
     * @return an executor builder with the retry policy and task timeout of these options
     */
    public AdaptiveExecutor.Builder executorBuilder(Limiter limiter) {
        return AdaptiveExecutor.builder(limiter).retryPolicy(retryPolicy()).taskTimeout(taskTimeout.isZero() ? null
                : taskTimeout);
    }

    /**
     * The fleet membership these options describe, as every face applies it: without it a
     * program that set {@code coordinator} and {@code fleetNodeId} would get a limiter that runs
     * alone. Join it once the limiter is built (and close the member on shutdown).
     *
     * @param limiter the limiter that joins the fleet
     * @param name    the face's name for it, the fleet key unless {@code fleetKey} is set
     * @return a member builder with the coordinator, key, node id, heartbeat and outage policy of
     *         these options (time and clock are the caller's); empty without a coordinator
     */
    public Optional<FleetMember.Builder> fleetMemberBuilder(Limiter limiter, String name) {
        if (coordinator == null) {
            return Optional.empty();
        }
        return Optional.of(FleetMember.builder(limiter, coordinator)
                .key(fleetKey != null ? fleetKey : name)
                .nodeId(fleetNodeId)
                .heartbeat(fleetHeartbeat)
                .outagePolicy(fleetOutagePolicy));
    }

    // ---- the options ----------------------------------------------------------------------

    /** @return the limit algorithm */
    public Algorithm algorithm() {
        return algorithm;
    }

    /** @return the initial limit as set, or {@code null} when left to its default */
    public Integer initialLimit() {
        return initialLimit;
    }

    /** @return the initial limit in force: as set, or the default moved into [min, max]; {@code maxLimit} with {@code fixed} */
    public int effectiveInitialLimit() {
        return effectiveInitialLimit;
    }

    /** @return the lowest limit */
    public int minLimit() {
        return minLimit;
    }

    /** @return the highest limit */
    public int maxLimit() {
        return maxLimit;
    }

    /** @return whether latency moves the limit */
    public boolean adaptOnLatency() {
        return adaptOnLatency;
    }

    /** @return whether errors and timeouts decrease the limit */
    public boolean adaptOnErrors() {
        return adaptOnErrors;
    }

    /** @return whether rate limits decrease the limit */
    public boolean adaptOnRateLimit() {
        return adaptOnRateLimit;
    }

    /** @return retries after errors and timeouts */
    public int retries() {
        return retries;
    }

    /** @return how the backoff grows */
    public Backoff.Kind backoff() {
        return backoff;
    }

    /** @return the base backoff delay */
    public Duration minDelay() {
        return minDelay;
    }

    /** @return the cap on a backoff delay */
    public Duration maxDelay() {
        return maxDelay;
    }

    /** @return the backoff jitter */
    public double jitter() {
        return jitter;
    }

    /** @return retries after rate-limit answers */
    public int maxRateLimitRetries() {
        return maxRateLimitRetries;
    }

    /** @return the cap on one Retry-After pause */
    public Duration maxRetryAfter() {
        return maxRetryAfter;
    }

    /** @return the per-attempt timeout; zero for none */
    public Duration taskTimeout() {
        return taskTimeout;
    }

    /** @return how long a call may wait for a slot; zero for no limit */
    public Duration waitTimeout() {
        return waitTimeout;
    }

    /** @return how many calls may wait for a slot */
    public int maxQueueSize() {
        return maxQueueSize;
    }

    /** @return whether retries are capped by a retry budget */
    public boolean retryBudget() {
        return retryBudget;
    }

    /** @return retries allowed per first attempt in the retry budget's window */
    public double retryBudgetRatio() {
        return retryBudgetRatio;
    }

    /** @return retries allowed besides, per second of the window */
    public double retryBudgetMinPerSecond() {
        return retryBudgetMinPerSecond;
    }

    /** @return the retry budget's window */
    public Duration retryBudgetWindow() {
        return retryBudgetWindow;
    }

    /** @return the longest wait between two probes of an outage; zero when the rule is off */
    public Duration outageProbe() {
        return outageProbe;
    }

    /** @return whether the HTTP faces read announced quotas from response headers */
    public boolean quotaHeaders() {
        return quotaHeaders;
    }

    /** @return whether an announced quota is spread over the time to its reset */
    public boolean quotaSpread() {
        return quotaSpread;
    }

    /** @return the trace listener, or {@code null} */
    public TraceListener traceListener() {
        return traceListener;
    }

    /** @return the fleet coordinator, or {@code null} when the node runs alone */
    public Coordinator coordinator() {
        return coordinator;
    }

    /** @return the fleet key, or {@code null} for the face's name */
    public String fleetKey() {
        return fleetKey;
    }

    /** @return this node's id in the fleet, or {@code null} without a coordinator */
    public String fleetNodeId() {
        return fleetNodeId;
    }

    /** @return the fleet heartbeat */
    public Duration fleetHeartbeat() {
        return fleetHeartbeat;
    }

    /** @return the fleet outage policy */
    public OutagePolicy fleetOutagePolicy() {
        return fleetOutagePolicy;
    }

    /**
     * @param option an option
     * @return its value here: typed as its getter returns it, {@code null} where unset
     */
    public Object value(ConfigOption option) {
        return switch (option) {
            case ALGORITHM -> algorithm;
            case INITIAL_LIMIT -> initialLimit;
            case MIN_LIMIT -> minLimit;
            case MAX_LIMIT -> maxLimit;
            case ADAPT_ON_LATENCY -> adaptOnLatency;
            case ADAPT_ON_ERRORS -> adaptOnErrors;
            case ADAPT_ON_RATE_LIMIT -> adaptOnRateLimit;
            case RETRIES -> retries;
            case BACKOFF -> backoff;
            case MIN_DELAY -> minDelay;
            case MAX_DELAY -> maxDelay;
            case JITTER -> jitter;
            case MAX_RATE_LIMIT_RETRIES -> maxRateLimitRetries;
            case MAX_RETRY_AFTER -> maxRetryAfter;
            case TASK_TIMEOUT -> taskTimeout;
            case WAIT_TIMEOUT -> waitTimeout;
            case MAX_QUEUE_SIZE -> maxQueueSize;
            case RETRY_BUDGET -> retryBudget;
            case RETRY_BUDGET_RATIO -> retryBudgetRatio;
            case RETRY_BUDGET_MIN_PER_SECOND -> retryBudgetMinPerSecond;
            case RETRY_BUDGET_WINDOW -> retryBudgetWindow;
            case OUTAGE_PROBE -> outageProbe;
            case QUOTA_HEADERS -> quotaHeaders;
            case QUOTA_SPREAD -> quotaSpread;
            case TRACE_LISTENER -> traceListener;
            case COORDINATOR -> coordinator;
            case FLEET_KEY -> fleetKey;
            case FLEET_NODE_ID -> fleetNodeId;
            case FLEET_HEARTBEAT -> fleetHeartbeat;
            case FLEET_OUTAGE_POLICY -> fleetOutagePolicy;
        };
    }

    /**
     * @param other other options
     * @return {@code "option=this vs other"} for each option that differs, in option order
     */
    public List<String> differences(AdaptiveConfig other) {
        List<String> out = new ArrayList<>();
        for (ConfigOption o : ConfigOption.values()) {
            Object mine = value(o);
            Object theirs = other.value(o);
            if (!same(o, mine, theirs)) {
                out.add(o.key() + "=" + ConfigOption.text(mine) + " vs " + ConfigOption.text(theirs));
            }
        }
        return out;
    }

    private static boolean same(ConfigOption o, Object a, Object b) {
        return o.kind() == ConfigOption.Kind.BEAN ? a == b : Objects.equals(a, b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AdaptiveConfig other && differences(other).isEmpty();
    }

    @Override
    public int hashCode() {
        int h = 1;
        for (ConfigOption o : ConfigOption.values()) {
            Object v = value(o);
            h = 31 * h + (o.kind() == ConfigOption.Kind.BEAN ? System.identityHashCode(v) : Objects.hashCode(v));
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("AdaptiveConfig[");
        for (ConfigOption o : ConfigOption.values()) {
            Object v = value(o);
            if (v != null) {
                out.append(out.charAt(out.length() - 1) == '[' ? "" : ", ").append(o.key()).append('=')
                        .append(ConfigOption.text(v));
            }
        }
        return out.append(']').toString();
    }

    /**
     * Builds an {@link AdaptiveConfig}. Each setter checks its own value at once; {@link #build()}
     * checks the rules between options. Every failure is an {@link IllegalArgumentException}
     * naming the option and quoting the value as it was given (the text, for values bound from
     * text). Not thread-safe; may build several configurations.
     */
    public static final class Builder {
        private Algorithm algorithm = DEFAULT_ALGORITHM;
        private Integer initialLimit;
        private int minLimit = Limiter.DEFAULT_MIN_LIMIT;
        private int maxLimit = Limiter.DEFAULT_MAX_LIMIT;
        private boolean adaptOnLatency = true;
        private boolean adaptOnErrors = true;
        private boolean adaptOnRateLimit = true;
        private int retries = RetryPolicy.DEFAULT_RETRIES;
        private Backoff.Kind backoff = DEFAULT_BACKOFF;
        private Duration minDelay = Backoff.DEFAULT_MIN_DELAY;
        private Duration maxDelay = Backoff.DEFAULT_MAX_DELAY;
        private double jitter = RetryPolicy.DEFAULT_JITTER;
        private int maxRateLimitRetries = RetryPolicy.DEFAULT_MAX_RATE_LIMIT_RETRIES;
        private Duration maxRetryAfter = RetryAfter.DEFAULT_MAX;
        private Duration taskTimeout = Duration.ZERO;
        private Duration waitTimeout = Duration.ZERO;
        private int maxQueueSize = Limiter.DEFAULT_MAX_QUEUE_SIZE;
        private boolean retryBudget = true;
        private double retryBudgetRatio = RetryBudget.DEFAULT_RATIO;
        private double retryBudgetMinPerSecond = RetryBudget.DEFAULT_MIN_PER_SECOND;
        private Duration retryBudgetWindow = RetryBudget.DEFAULT_WINDOW;
        private Duration outageProbe = Limiter.DEFAULT_OUTAGE_PROBE;
        private boolean quotaHeaders = true;
        private boolean quotaSpread;
        private TraceListener traceListener;
        private Coordinator coordinator;
        private String fleetKey;
        private String fleetNodeId;
        private Duration fleetHeartbeat = FleetMember.DEFAULT_HEARTBEAT;
        private OutagePolicy fleetOutagePolicy = DEFAULT_FLEET_OUTAGE_POLICY;
        /** Values bound from text, as given, so that messages quote them so. */
        private final Map<ConfigOption, String> spelled = new EnumMap<>(ConfigOption.class);

        private Builder() {
        }

        /**
         * Sets one option by name, from text (a URI, a properties file), a JSON value or a
         * typed value. Names are matched as {@link ConfigOption#find} does.
         *
         * @param name  the option's name
         * @param value its value; text is read strictly (see {@link ConfigOption.Kind})
         * @return this
         * @throws IllegalArgumentException on an unknown name, naming it and the known ones, or
         *         on a bad value, naming the option and quoting the value
         */
        public Builder set(String name, Object value) {
            ConfigOption option = ConfigOption.find(Objects.requireNonNull(name, "name"))
                    .orElseThrow(() -> new IllegalArgumentException("unknown option '" + name + "' (known: "
                            + String.join(", ", ConfigOption.keys()) + ")"));
            return set(option, value, asGiven(option, value));
        }

        /**
         * @param options names to values, each set as {@link #set(String, Object)} does
         * @return this
         */
        public Builder setAll(Map<String, ?> options) {
            options.forEach(this::set);
            return this;
        }

        /**
         * @param option an option
         * @param value  its value, read as {@link #set(String, Object)} reads it
         * @return this
         */
        public Builder set(ConfigOption option, Object value) {
            return set(option, value, asGiven(option, value));
        }

        /**
         * @return how a message quotes a value bound by name: text as typed, and a number of
         *         milliseconds for a duration as that number (the Vert.x face's durations are
         *         such numbers; written as a duration, {@code 3600001} would read {@code 1h1ms});
         *         {@code null} where the typed value's own text is the value as given
         */
        private static String asGiven(ConfigOption option, Object value) {
            if (value instanceof String s) {
                return s;
            }
            return value instanceof Number && option.kind() == ConfigOption.Kind.DURATION ? String.valueOf(value)
                    : null;
        }

        private Builder set(ConfigOption option, Object value, String text) {
            String key = option.key();
            if (value == null && (option.kind() == ConfigOption.Kind.BEAN || option.kind() == ConfigOption.Kind.TEXT
                    || option == ConfigOption.INITIAL_LIMIT)) {
                // Clears what may be unset.
                switch (option) {
                    case INITIAL_LIMIT -> initialLimit = null;
                    case TRACE_LISTENER -> traceListener = null;
                    case COORDINATOR -> coordinator = null;
                    case FLEET_KEY -> fleetKey = null;
                    default -> fleetNodeId = null;
                }
                spelled.remove(option);
                return this;
            }
            // Before the check, so that its message quotes this text, not an earlier one.
            if (text != null) {
                spelled.put(option, text);
            } else {
                spelled.remove(option);
            }
            switch (option) {
                case ALGORITHM -> algorithm(ConfigText.enumValue(key, value, Algorithm.class));
                case INITIAL_LIMIT -> initialLimit(ConfigText.integer(key, value));
                case MIN_LIMIT -> minLimit(ConfigText.integer(key, value));
                case MAX_LIMIT -> maxLimit(ConfigText.integer(key, value));
                case ADAPT_ON_LATENCY -> adaptOnLatency(ConfigText.bool(key, value));
                case ADAPT_ON_ERRORS -> adaptOnErrors(ConfigText.bool(key, value));
                case ADAPT_ON_RATE_LIMIT -> adaptOnRateLimit(ConfigText.bool(key, value));
                case RETRIES -> retries(ConfigText.integer(key, value));
                case BACKOFF -> backoff(ConfigText.enumValue(key, value, Backoff.Kind.class));
                case MIN_DELAY -> minDelay(ConfigText.duration(key, value));
                case MAX_DELAY -> maxDelay(ConfigText.duration(key, value));
                case JITTER -> jitter(ConfigText.decimal(key, value));
                case MAX_RATE_LIMIT_RETRIES -> maxRateLimitRetries(ConfigText.integer(key, value));
                case MAX_RETRY_AFTER -> maxRetryAfter(ConfigText.duration(key, value));
                case TASK_TIMEOUT -> taskTimeout(ConfigText.duration(key, value));
                case WAIT_TIMEOUT -> waitTimeout(ConfigText.duration(key, value));
                case MAX_QUEUE_SIZE -> maxQueueSize(ConfigText.integer(key, value));
                case RETRY_BUDGET -> retryBudget(ConfigText.bool(key, value));
                case RETRY_BUDGET_RATIO -> retryBudgetRatio(ConfigText.decimal(key, value));
                case RETRY_BUDGET_MIN_PER_SECOND -> retryBudgetMinPerSecond(ConfigText.decimal(key, value));
                case RETRY_BUDGET_WINDOW -> retryBudgetWindow(ConfigText.duration(key, value));
                case OUTAGE_PROBE -> outageProbe(ConfigText.duration(key, value));
                case QUOTA_HEADERS -> quotaHeaders(ConfigText.bool(key, value));
                case QUOTA_SPREAD -> quotaSpread(ConfigText.bool(key, value));
                case TRACE_LISTENER -> traceListener(bean(key, value, TraceListener.class));
                case COORDINATOR -> coordinator(bean(key, value, Coordinator.class));
                case FLEET_KEY -> fleetKey(ConfigText.text(key, value));
                case FLEET_NODE_ID -> fleetNodeId(ConfigText.text(key, value));
                case FLEET_HEARTBEAT -> fleetHeartbeat(ConfigText.duration(key, value));
                case FLEET_OUTAGE_POLICY -> fleetOutagePolicy(ConfigText.enumValue(key, value, OutagePolicy.class));
            }
            if (text != null) {
                spelled.put(option, text);
            }
            return this;
        }

        private static <T> T bean(String key, Object value, Class<T> type) {
            if (!type.isInstance(value)) {
                throw new IllegalArgumentException(key + " must be a " + type.getName() + ": " + value);
            }
            return type.cast(value);
        }

        /**
         * @param algorithm the limit algorithm; default {@code vegas}
         * @return this
         */
        public Builder algorithm(Algorithm algorithm) {
            this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
            spelled.remove(ConfigOption.ALGORITHM);
            return this;
        }

        /**
         * @param initialLimit the limit before any sample, at least 1 and within [minLimit,
         *                     maxLimit] (checked by {@link #build()}); {@code null} for the
         *                     default, 5 moved into the bounds
         * @return this
         */
        public Builder initialLimit(Integer initialLimit) {
            if (initialLimit != null && initialLimit < 1) {
                throw bad(ConfigOption.INITIAL_LIMIT, initialLimit, "must be >= 1");
            }
            this.initialLimit = initialLimit;
            spelled.remove(ConfigOption.INITIAL_LIMIT);
            return this;
        }

        /**
         * @param minLimit the lowest limit, at least 1; default 1
         * @return this
         */
        public Builder minLimit(int minLimit) {
            this.minLimit = atLeast(ConfigOption.MIN_LIMIT, minLimit, 1);
            return this;
        }

        /**
         * @param maxLimit the highest limit, at least 1 (and at least minLimit, checked by
         *                 {@link #build()}); default 100
         * @return this
         */
        public Builder maxLimit(int maxLimit) {
            this.maxLimit = atLeast(ConfigOption.MAX_LIMIT, maxLimit, 1);
            return this;
        }

        /**
         * @param adaptOnLatency whether latency moves the limit; default true
         * @return this
         */
        public Builder adaptOnLatency(boolean adaptOnLatency) {
            this.adaptOnLatency = adaptOnLatency;
            spelled.remove(ConfigOption.ADAPT_ON_LATENCY);
            return this;
        }

        /**
         * @param adaptOnErrors whether errors and timeouts decrease the limit; default true
         * @return this
         */
        public Builder adaptOnErrors(boolean adaptOnErrors) {
            this.adaptOnErrors = adaptOnErrors;
            spelled.remove(ConfigOption.ADAPT_ON_ERRORS);
            return this;
        }

        /**
         * @param adaptOnRateLimit whether rate limits decrease the limit; default true
         * @return this
         */
        public Builder adaptOnRateLimit(boolean adaptOnRateLimit) {
            this.adaptOnRateLimit = adaptOnRateLimit;
            spelled.remove(ConfigOption.ADAPT_ON_RATE_LIMIT);
            return this;
        }

        /**
         * @param retries retries after errors and timeouts, at least 0; default 3
         * @return this
         */
        public Builder retries(int retries) {
            this.retries = atLeast(ConfigOption.RETRIES, retries, 0);
            return this;
        }

        /**
         * @param backoff how the backoff grows; default exponential
         * @return this
         */
        public Builder backoff(Backoff.Kind backoff) {
            this.backoff = Objects.requireNonNull(backoff, "backoff");
            spelled.remove(ConfigOption.BACKOFF);
            return this;
        }

        /**
         * @param minDelay the base backoff delay, at least 0; default 100 ms
         * @return this
         */
        public Builder minDelay(Duration minDelay) {
            this.minDelay = notNegative(ConfigOption.MIN_DELAY, minDelay);
            return this;
        }

        /**
         * @param maxDelay the cap on a backoff delay, at least minDelay (checked by
         *                 {@link #build()}); default 30 s
         * @return this
         */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = notNegative(ConfigOption.MAX_DELAY, maxDelay);
            return this;
        }

        /**
         * @param jitter the backoff's spread either way, within [0, 1]; default 0.2
         * @return this
         */
        public Builder jitter(double jitter) {
            if (!(jitter >= 0 && jitter <= 1)) {
                throw bad(ConfigOption.JITTER, jitter, "must be within [0, 1]");
            }
            this.jitter = jitter;
            spelled.remove(ConfigOption.JITTER);
            return this;
        }

        /**
         * @param maxRateLimitRetries retries after rate-limit answers, at least 0; default 10
         * @return this
         */
        public Builder maxRateLimitRetries(int maxRateLimitRetries) {
            this.maxRateLimitRetries = atLeast(ConfigOption.MAX_RATE_LIMIT_RETRIES, maxRateLimitRetries, 0);
            return this;
        }

        /**
         * @param maxRetryAfter the cap on one Retry-After pause, positive; default
         *                      {@link RetryAfter#DEFAULT_MAX} (10 min)
         * @return this
         */
        public Builder maxRetryAfter(Duration maxRetryAfter) {
            this.maxRetryAfter = positive(ConfigOption.MAX_RETRY_AFTER, maxRetryAfter);
            return this;
        }

        /**
         * @param taskTimeout the per-attempt timeout, at least 0; zero (the default) for none
         * @return this
         */
        public Builder taskTimeout(Duration taskTimeout) {
            this.taskTimeout = notNegative(ConfigOption.TASK_TIMEOUT, taskTimeout);
            return this;
        }

        /**
         * @param waitTimeout how long a call may wait for a slot, at least 0; zero (the default)
         *                    for no limit
         * @return this
         */
        public Builder waitTimeout(Duration waitTimeout) {
            this.waitTimeout = notNegative(ConfigOption.WAIT_TIMEOUT, waitTimeout);
            return this;
        }

        /**
         * @param maxQueueSize how many calls may wait for a slot, at least 0; default
         *                     {@value Limiter#DEFAULT_MAX_QUEUE_SIZE}
         * @return this
         */
        public Builder maxQueueSize(int maxQueueSize) {
            this.maxQueueSize = atLeast(ConfigOption.MAX_QUEUE_SIZE, maxQueueSize, 0);
            return this;
        }

        /**
         * @param retryBudget whether retries are capped by a retry budget; default true
         * @return this
         */
        public Builder retryBudget(boolean retryBudget) {
            this.retryBudget = retryBudget;
            spelled.remove(ConfigOption.RETRY_BUDGET);
            return this;
        }

        /**
         * @param retryBudgetRatio retries per first attempt in the window, at least 0; default
         *                         {@value RetryBudget#DEFAULT_RATIO}
         * @return this
         */
        public Builder retryBudgetRatio(double retryBudgetRatio) {
            if (!(retryBudgetRatio >= 0) || Double.isInfinite(retryBudgetRatio)) {
                throw bad(ConfigOption.RETRY_BUDGET_RATIO, retryBudgetRatio, "must be a finite number >= 0");
            }
            this.retryBudgetRatio = retryBudgetRatio;
            spelled.remove(ConfigOption.RETRY_BUDGET_RATIO);
            return this;
        }

        /**
         * @param retryBudgetMinPerSecond retries allowed besides per second of the window, at
         *                                least 0; default {@value RetryBudget#DEFAULT_MIN_PER_SECOND}
         * @return this
         */
        public Builder retryBudgetMinPerSecond(double retryBudgetMinPerSecond) {
            if (!(retryBudgetMinPerSecond >= 0) || Double.isInfinite(retryBudgetMinPerSecond)) {
                throw bad(ConfigOption.RETRY_BUDGET_MIN_PER_SECOND, retryBudgetMinPerSecond,
                        "must be a finite number >= 0");
            }
            this.retryBudgetMinPerSecond = retryBudgetMinPerSecond;
            spelled.remove(ConfigOption.RETRY_BUDGET_MIN_PER_SECOND);
            return this;
        }

        /**
         * @param retryBudgetWindow the retry budget's window, positive and at most 1 day; default 10 s
         * @return this
         */
        public Builder retryBudgetWindow(Duration retryBudgetWindow) {
            if (retryBudgetWindow != null && retryBudgetWindow.compareTo(RetryBudget.MAX_WINDOW) > 0) {
                throw bad(ConfigOption.RETRY_BUDGET_WINDOW, retryBudgetWindow, "must be at most 1d");
            }
            this.retryBudgetWindow = positive(ConfigOption.RETRY_BUDGET_WINDOW, retryBudgetWindow);
            return this;
        }

        /**
         * @param outageProbe the longest wait between two probes of an outage, at least 0 and at
         *                    most 1 hour; 0 turns the rule off; default 1 s (see
         *                    {@link Limiter.Builder#outageProbe})
         * @return this
         */
        public Builder outageProbe(Duration outageProbe) {
            // The cap first: the check below forgets the text as typed, which the message quotes.
            if (outageProbe != null && outageProbe.compareTo(Limiter.MAX_OUTAGE_PROBE) > 0) {
                throw bad(ConfigOption.OUTAGE_PROBE, outageProbe, "must be at most 1h");
            }
            this.outageProbe = notNegative(ConfigOption.OUTAGE_PROBE, outageProbe);
            return this;
        }

        /**
         * @param quotaHeaders whether the HTTP faces read announced quotas; default true
         * @return this
         */
        public Builder quotaHeaders(boolean quotaHeaders) {
            this.quotaHeaders = quotaHeaders;
            spelled.remove(ConfigOption.QUOTA_HEADERS);
            return this;
        }

        /**
         * @param quotaSpread whether an announced quota is spread over the time to its reset; default false
         * @return this
         */
        public Builder quotaSpread(boolean quotaSpread) {
            this.quotaSpread = quotaSpread;
            spelled.remove(ConfigOption.QUOTA_SPREAD);
            return this;
        }

        /**
         * @param traceListener receives every trace event, or {@code null} for none (the default)
         * @return this
         */
        public Builder traceListener(TraceListener traceListener) {
            this.traceListener = traceListener;
            return this;
        }

        /**
         * @param coordinator the fleet coordinator, or {@code null} to run alone (the default)
         * @return this
         */
        public Builder coordinator(Coordinator coordinator) {
            this.coordinator = coordinator;
            return this;
        }

        /**
         * @param fleetKey the key shared in the coordinator, not blank, or {@code null} for the
         *                 face's name (the default)
         * @return this
         */
        public Builder fleetKey(String fleetKey) {
            if (fleetKey != null && fleetKey.isBlank()) {
                throw new IllegalArgumentException("fleetKey must not be blank: '" + fleetKey + "'");
            }
            this.fleetKey = fleetKey;
            spelled.remove(ConfigOption.FLEET_KEY);
            return this;
        }

        /**
         * @param fleetNodeId this node's id, not blank, or {@code null} (the default; required
         *                    with a coordinator)
         * @return this
         */
        public Builder fleetNodeId(String fleetNodeId) {
            if (fleetNodeId != null && fleetNodeId.isBlank()) {
                throw new IllegalArgumentException("fleetNodeId must not be blank: '" + fleetNodeId + "'");
            }
            this.fleetNodeId = fleetNodeId;
            spelled.remove(ConfigOption.FLEET_NODE_ID);
            return this;
        }

        /**
         * @param fleetHeartbeat the fleet report period, positive and at most
         *                       {@link FleetMember#MAX_HEARTBEAT}; default 1 s
         * @return this
         */
        public Builder fleetHeartbeat(Duration fleetHeartbeat) {
            if (fleetHeartbeat != null && fleetHeartbeat.compareTo(FleetMember.MAX_HEARTBEAT) > 0) {
                throw bad(ConfigOption.FLEET_HEARTBEAT, fleetHeartbeat, "must be at most "
                        + ConfigOption.text(FleetMember.MAX_HEARTBEAT));
            }
            this.fleetHeartbeat = positive(ConfigOption.FLEET_HEARTBEAT, fleetHeartbeat);
            return this;
        }

        /**
         * @param fleetOutagePolicy what to do while the coordinator does not answer; default failClosed
         * @return this
         */
        public Builder fleetOutagePolicy(OutagePolicy fleetOutagePolicy) {
            this.fleetOutagePolicy = Objects.requireNonNull(fleetOutagePolicy, "fleetOutagePolicy");
            spelled.remove(ConfigOption.FLEET_OUTAGE_POLICY);
            return this;
        }

        /**
         * @return the options
         * @throws IllegalArgumentException naming the first rule between options that fails,
         *         the option and its value
         */
        public AdaptiveConfig build() {
            if (maxLimit < minLimit) {
                throw bad(ConfigOption.MAX_LIMIT, maxLimit, "must be >= minLimit (" + spelling(ConfigOption.MIN_LIMIT,
                        minLimit) + ")");
            }
            int effective;
            if (algorithm == Algorithm.FIXED) {
                // A fixed limit is maxLimit; an initial limit different from it would be silently ignored.
                if (initialLimit != null && initialLimit != maxLimit) {
                    throw bad(ConfigOption.INITIAL_LIMIT, initialLimit, "has no meaning with algorithm=fixed, which"
                            + " runs exactly maxLimit (" + maxLimit + ") at once; leave it unset");
                }
                effective = maxLimit;
            } else if (initialLimit == null) {
                effective = Math.max(minLimit, Math.min(maxLimit, Limiter.DEFAULT_INITIAL_LIMIT));
            } else {
                if (initialLimit < minLimit || initialLimit > maxLimit) {
                    throw bad(ConfigOption.INITIAL_LIMIT, initialLimit, "must be within [minLimit, maxLimit] = ["
                            + minLimit + ", " + maxLimit + "]");
                }
                effective = initialLimit;
            }
            if (maxDelay.compareTo(minDelay) < 0) {
                throw bad(ConfigOption.MAX_DELAY, maxDelay, "must be >= minDelay ("
                        + spelling(ConfigOption.MIN_DELAY, minDelay) + ")");
            }
            if (coordinator == null) {
                // Fleet options without a fleet would be silently ignored.
                if (fleetKey != null) {
                    throw bad(ConfigOption.FLEET_KEY, fleetKey, "has no meaning without coordinator");
                }
                if (fleetNodeId != null) {
                    throw bad(ConfigOption.FLEET_NODE_ID, fleetNodeId, "has no meaning without coordinator");
                }
            } else if (fleetNodeId == null) {
                throw bad(ConfigOption.FLEET_NODE_ID, null, "must be set when coordinator is (there is no default:"
                        + " two nodes with one id would corrupt the fleet's view)");
            }
            return new AdaptiveConfig(this, effective);
        }

        private int atLeast(ConfigOption option, int value, int least) {
            if (value < least) {
                throw bad(option, value, "must be >= " + least);
            }
            spelled.remove(option);
            return value;
        }

        private Duration notNegative(ConfigOption option, Duration value) {
            if (value == null || value.isNegative()) {
                throw bad(option, value, "must be a duration >= 0");
            }
            return notTooLong(option, value);
        }

        private Duration positive(ConfigOption option, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw bad(option, value, "must be a positive duration");
            }
            return notTooLong(option, value);
        }

        /** Text past {@link DurationText#MAX} cannot be read: a typed duration that long is refused alike. */
        private Duration notTooLong(ConfigOption option, Duration value) {
            if (value.compareTo(DurationText.MAX) > 0) {
                throw bad(option, value, DurationText.TOO_LONG);
            }
            spelled.remove(option);
            return value;
        }

        private IllegalArgumentException bad(ConfigOption option, Object value, String rule) {
            return new IllegalArgumentException(option.key() + " " + rule + ": " + spelling(option, value));
        }

        private String spelling(ConfigOption option, Object value) {
            String typed = spelled.get(option);
            return typed != null ? typed : value instanceof Duration d && !d.isNegative() ? ConfigOption.text(d)
                    : String.valueOf(value);
        }
    }
}
