package dev.adaptive.camel;

import dev.adaptive.Adapt;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.internal.Ascii;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of one pool, validated. Two endpoints of one pool must agree on this value, so
 * it is a record: {@link #equals} is the conflict test and {@link #differences} names what
 * differs. Beans ({@code classifier}, {@code traceListener}, {@code coordinator}) compare by
 * identity.
 *
 * <p>Immutable; built by {@link Builder}, whose {@link Builder#build()} throws
 * {@link IllegalArgumentException} naming the endpoint option (as spelled in the URI) and its
 * value.
 */
record PoolConfig(String algorithm, int initial, int min, int max, boolean adaptOnLatency, boolean adaptOnErrors,
                  boolean adaptOnRateLimit, int retries, String backoff, Duration minDelay, Duration maxDelay,
                  double jitter, int maxRateLimitRetries, Duration maxRetryAfter, Duration taskTimeout,
                  int maxQueueSize, Set<Integer> rateLimitStatusCodes, ExchangeClassifier classifier,
                  TraceListener traceListener, Coordinator coordinator, String fleetKey, String fleetNodeId,
                  Duration fleetHeartbeat, OutagePolicy fleetOutagePolicy) {

    static final String DEFAULT_ALGORITHM = "vegas";
    static final int DEFAULT_INITIAL = 5;
    static final int DEFAULT_MIN = 1;
    static final int DEFAULT_MAX = 100;
    static final String DEFAULT_BACKOFF = "exponential";
    static final int DEFAULT_MAX_QUEUE_SIZE = 10_000;
    static final String DEFAULT_RATE_LIMIT_STATUS_CODES = "429,503";
    static final String DEFAULT_FLEET_OUTAGE_POLICY = "failClosed";
    /**
     * The longest heartbeat the engine's fleet member takes (its own bound, checked only when
     * it joins, at the pool's first exchange); checked here so the endpoint fails instead.
     */
    static final Duration MAX_FLEET_HEARTBEAT = Duration.ofDays(365);

    static Builder builder() {
        return new Builder();
    }

    /** @return the limit algorithm these options describe */
    Limit limit() {
        return switch (algorithm) {
            case "fixed" -> FixedLimit.of(max);
            case "aimd" -> Aimd.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            case "gradient2" -> Gradient2.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            default -> Vegas.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
        };
    }

    Adapt adapt() {
        return Adapt.of(adaptOnLatency, adaptOnErrors, adaptOnRateLimit);
    }

    /**
     * @param retryOn which errors are worth a retry (the pool keeps its own failures out)
     * @return the retry policy these options describe
     */
    RetryPolicy retryPolicy(RetryClassifier retryOn) {
        Backoff.Kind kind = Backoff.Kind.valueOf(backoff.toUpperCase(Locale.ROOT));
        return RetryPolicy.builder()
                .retries(retries)
                .backoff(new Backoff(kind, minDelay, maxDelay, jitter))
                .maxRateLimitRetries(maxRateLimitRetries)
                .maxRetryAfter(maxRetryAfter)
                .retryOn(retryOn)
                .build();
    }

    /**
     * @param other the options another endpoint asks for
     * @return {@code "option=this-value vs other-value"} for each option that differs
     */
    List<String> differences(PoolConfig other) {
        List<String> out = new ArrayList<>();
        diff(out, "algorithm", algorithm, other.algorithm);
        diff(out, "initial", initial, other.initial);
        diff(out, "min", min, other.min);
        diff(out, "max", max, other.max);
        diff(out, "adaptOnLatency", adaptOnLatency, other.adaptOnLatency);
        diff(out, "adaptOnErrors", adaptOnErrors, other.adaptOnErrors);
        diff(out, "adaptOnRateLimit", adaptOnRateLimit, other.adaptOnRateLimit);
        diff(out, "retries", retries, other.retries);
        diff(out, "backoff", backoff, other.backoff);
        diff(out, "minDelay", minDelay, other.minDelay);
        diff(out, "maxDelay", maxDelay, other.maxDelay);
        diff(out, "jitter", jitter, other.jitter);
        diff(out, "maxRateLimitRetries", maxRateLimitRetries, other.maxRateLimitRetries);
        diff(out, "maxRetryAfter", maxRetryAfter, other.maxRetryAfter);
        diff(out, "taskTimeout", taskTimeout, other.taskTimeout);
        diff(out, "maxQueueSize", maxQueueSize, other.maxQueueSize);
        diff(out, "rateLimitStatusCodes", rateLimitStatusCodes, other.rateLimitStatusCodes);
        diff(out, "classifier", classifier, other.classifier);
        diff(out, "traceListener", traceListener, other.traceListener);
        diff(out, "coordinator", coordinator, other.coordinator);
        diff(out, "fleetKey", fleetKey, other.fleetKey);
        diff(out, "fleetNodeId", fleetNodeId, other.fleetNodeId);
        diff(out, "fleetHeartbeat", fleetHeartbeat, other.fleetHeartbeat);
        diff(out, "fleetOutagePolicy", fleetOutagePolicy, other.fleetOutagePolicy);
        return out;
    }

    private static void diff(List<String> out, String option, Object mine, Object theirs) {
        if (!Objects.equals(mine, theirs)) {
            out.add(option + "=" + mine + " vs " + theirs);
        }
    }

    /**
     * Collects raw option values; {@link #build()} validates them. Not thread-safe.
     */
    static final class Builder {
        private String algorithm = DEFAULT_ALGORITHM;
        private Integer initial;
        private int min = DEFAULT_MIN;
        private int max = DEFAULT_MAX;
        private boolean adaptOnLatency = true;
        private boolean adaptOnErrors = true;
        private boolean adaptOnRateLimit = true;
        private int retries = RetryPolicy.DEFAULT_RETRIES;
        private String backoff = DEFAULT_BACKOFF;
        private Duration minDelay = Backoff.DEFAULT_MIN_DELAY;
        private Duration maxDelay = Backoff.DEFAULT_MAX_DELAY;
        private double jitter = RetryPolicy.DEFAULT_JITTER;
        private int maxRateLimitRetries = RetryPolicy.DEFAULT_MAX_RATE_LIMIT_RETRIES;
        private Duration maxRetryAfter = RetryAfter.DEFAULT_MAX;
        private Duration taskTimeout = Duration.ZERO;
        private int maxQueueSize = DEFAULT_MAX_QUEUE_SIZE;
        private String rateLimitStatusCodes = DEFAULT_RATE_LIMIT_STATUS_CODES;
        private ExchangeClassifier classifier;
        private TraceListener traceListener;
        private Coordinator coordinator;
        private String fleetKey;
        private String fleetNodeId;
        private Duration fleetHeartbeat = FleetMember.DEFAULT_HEARTBEAT;
        private String fleetOutagePolicy = DEFAULT_FLEET_OUTAGE_POLICY;
        private Map<String, String> spelled = Map.of();

        Builder algorithm(String v) { algorithm = v; return this; }
        Builder initial(Integer v) { initial = v; return this; }
        Builder min(int v) { min = v; return this; }
        Builder max(int v) { max = v; return this; }
        Builder adaptOnLatency(boolean v) { adaptOnLatency = v; return this; }
        Builder adaptOnErrors(boolean v) { adaptOnErrors = v; return this; }
        Builder adaptOnRateLimit(boolean v) { adaptOnRateLimit = v; return this; }
        Builder retries(int v) { retries = v; return this; }
        Builder backoff(String v) { backoff = v; return this; }
        Builder minDelay(Duration v) { minDelay = v; return this; }
        Builder maxDelay(Duration v) { maxDelay = v; return this; }
        Builder jitter(double v) { jitter = v; return this; }
        Builder maxRateLimitRetries(int v) { maxRateLimitRetries = v; return this; }
        Builder maxRetryAfter(Duration v) { maxRetryAfter = v; return this; }
        Builder taskTimeout(Duration v) { taskTimeout = v; return this; }
        Builder maxQueueSize(int v) { maxQueueSize = v; return this; }
        Builder rateLimitStatusCodes(String v) { rateLimitStatusCodes = v; return this; }
        Builder classifier(ExchangeClassifier v) { classifier = v; return this; }
        Builder traceListener(TraceListener v) { traceListener = v; return this; }
        Builder coordinator(Coordinator v) { coordinator = v; return this; }
        Builder fleetKey(String v) { fleetKey = v; return this; }
        Builder fleetNodeId(String v) { fleetNodeId = v; return this; }
        Builder fleetHeartbeat(Duration v) { fleetHeartbeat = v; return this; }
        Builder fleetOutagePolicy(String v) { fleetOutagePolicy = v; return this; }
        /** @param v options as the user typed them (option to text), quoted in messages instead of the values */
        Builder spelled(Map<String, String> v) { spelled = Map.copyOf(v); return this; }

        /**
         * @return the validated options
         * @throws IllegalArgumentException naming the first bad option and its value
         */
        PoolConfig build() {
            String algo = oneOf("algorithm", algorithm, "vegas", "aimd", "gradient2", "fixed");
            atLeast("min", min, 1);
            if (max < min) {
                throw bad("max", max, "must be >= min (" + min + ")");
            }
            int init;
            if (initial == null) {
                init = Math.max(min, Math.min(max, DEFAULT_INITIAL));
            } else {
                init = initial;
                if (init < min || init > max) {
                    throw bad("initial", init, "must be within [min, max] = [" + min + ", " + max + "]");
                }
            }
            if (algo.equals("fixed")) {
                // A fixed limit is max; an initial or min different from it would be silently ignored.
                if (initial != null && initial != max) {
                    throw bad("initial", initial, "has no meaning with algorithm=fixed, which runs exactly max ("
                            + max + ") at once; leave it unset");
                }
                init = max;
            }
            atLeast("retries", retries, 0);
            String kind = oneOf("backoff", backoff, "exponential", "linear", "constant");
            notNegative("minDelay", minDelay);
            notNegative("maxDelay", maxDelay);
            if (maxDelay.compareTo(minDelay) < 0) {
                throw bad("maxDelay", maxDelay, "must be >= minDelay (" + spelling("minDelay", minDelay) + ")");
            }
            if (!(jitter >= 0 && jitter <= 1)) {
                throw bad("jitter", jitter, "must be within [0, 1]");
            }
            atLeast("maxRateLimitRetries", maxRateLimitRetries, 0);
            positive("maxRetryAfter", maxRetryAfter);
            notNegative("taskTimeout", taskTimeout);
            atLeast("maxQueueSize", maxQueueSize, 0);
            Set<Integer> codes = statusCodes(rateLimitStatusCodes);
            positive("fleetHeartbeat", fleetHeartbeat);
            if (fleetHeartbeat.compareTo(MAX_FLEET_HEARTBEAT) > 0) {
                throw bad("fleetHeartbeat", fleetHeartbeat, "must be at most " + MAX_FLEET_HEARTBEAT);
            }
            String outage = oneOf("fleetOutagePolicy", fleetOutagePolicy, "failClosed", "localOnly");
            if (coordinator == null) {
                // Fleet options without a fleet would be silently ignored.
                if (fleetKey != null) {
                    throw bad("fleetKey", fleetKey, "has no meaning without coordinator");
                }
                if (fleetNodeId != null) {
                    throw bad("fleetNodeId", fleetNodeId, "has no meaning without coordinator");
                }
            } else {
                if (fleetNodeId == null || fleetNodeId.isBlank()) {
                    throw bad("fleetNodeId", fleetNodeId, "must be set when coordinator is (there is no default:"
                            + " two nodes with one id would corrupt the fleet's view)");
                }
                if (fleetKey != null && fleetKey.isBlank()) {
                    throw bad("fleetKey", "'" + fleetKey + "'", "must not be blank");
                }
            }
            return new PoolConfig(algo, init, algo.equals("fixed") ? max : min, max, adaptOnLatency, adaptOnErrors,
                    adaptOnRateLimit, retries, kind, minDelay, maxDelay, jitter, maxRateLimitRetries, maxRetryAfter,
                    taskTimeout.isZero() ? null : taskTimeout, maxQueueSize, codes, classifier, traceListener, coordinator, fleetKey, fleetNodeId, fleetHeartbeat,
                    outage.equals("localOnly") ? OutagePolicy.LOCAL_ONLY : OutagePolicy.FAIL_CLOSED);
        }

        private Set<Integer> statusCodes(String raw) {
            if (raw == null || raw.isBlank()) {
                throw bad("rateLimitStatusCodes", raw, "must list at least one HTTP status code");
            }
            Set<Integer> codes = new TreeSet<>();
            for (String part : raw.split(",")) {
                String s = part.trim();
                int code;
                try {
                    code = Integer.parseInt(s);
                } catch (NumberFormatException e) {
                    throw bad("rateLimitStatusCodes", raw, "must be comma-separated status codes; '" + s + "' is not one");
                }
                if (code < 100 || code > 599) {
                    throw bad("rateLimitStatusCodes", raw, "must hold status codes within [100, 599]; " + code + " is not");
                }
                codes.add(code);
            }
            return Set.copyOf(codes);
        }

        private String oneOf(String option, String value, String... allowed) {
            if (value != null) {
                String v = value.trim();
                for (String a : allowed) {
                    // ASCII letters only: equalsIgnoreCase would take "fıxed" (dotless i) for fixed.
                    if (Ascii.equalsIgnoreCase(a, v)) {
                        return a;
                    }
                }
            }
            throw bad(option, value, "must be one of " + String.join("|", allowed));
        }

        private void atLeast(String option, int value, int least) {
            if (value < least) {
                throw bad(option, value, "must be >= " + least);
            }
        }

        private void notNegative(String option, Duration value) {
            if (value == null || value.isNegative()) {
                throw bad(option, value, "must be a duration >= 0");
            }
        }

        private void positive(String option, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw bad(option, value, "must be a positive duration");
            }
        }

        private IllegalArgumentException bad(String option, Object value, String rule) {
            return new IllegalArgumentException(option + " " + rule + ": " + spelling(option, value));
        }

        private String spelling(String option, Object value) {
            String typed = spelled.get(option);
            return typed != null ? typed : String.valueOf(value);
        }
    }
}
