package dev.adaptive.camel;

import dev.adaptive.Adapt;
import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.internal.Ascii;
import dev.adaptive.internal.ConfigText;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The options of one pool, validated: the core's {@link AdaptiveConfig} (every option every face
 * shares, checked and worded there) plus the two the component adds, {@code rateLimitStatusCodes}
 * and {@code classifier}. Two sources of one pool must agree on this value, so {@link #equals}
 * is the conflict test and {@link #differences} names what differs. Immutable.
 */
record PoolConfig(AdaptiveConfig core, Set<Integer> rateLimitStatusCodes, ExchangeClassifier classifier) {

    /** The component's own pool option: statuses read as rate limits. */
    static final String RATE_LIMIT_STATUS_CODES = "rateLimitStatusCodes";
    /** The component's own pool option: the classifier bean. */
    static final String CLASSIFIER = "classifier";
    static final String DEFAULT_RATE_LIMIT_STATUS_CODES = "429,503";

    static Builder builder() {
        return new Builder();
    }

    /**
     * @param name an option's name, as a URI or properties file spells it
     * @return its canonical name if it is a pool option (the core's or the component's), else null
     */
    static String poolOption(String name) {
        String relaxed = name.replace("-", "");
        if (Ascii.equalsIgnoreCase(relaxed, RATE_LIMIT_STATUS_CODES)) {
            return RATE_LIMIT_STATUS_CODES;
        }
        if (Ascii.equalsIgnoreCase(relaxed, CLASSIFIER)) {
            return CLASSIFIER;
        }
        return ConfigOption.find(name).map(ConfigOption::key).orElse(null);
    }

    Limit limit() {
        return core.limit();
    }

    Adapt adapt() {
        return core.adapt();
    }

    RetryPolicy retryPolicy(RetryClassifier retryOn) {
        return core.retryPolicy(retryOn);
    }

    Duration maxRetryAfter() {
        return core.maxRetryAfter();
    }

    /** @return the task timeout, or {@code null} for none */
    Duration taskTimeout() {
        return core.taskTimeout().isZero() ? null : core.taskTimeout();
    }

    int maxQueueSize() {
        return core.maxQueueSize();
    }

    TraceListener traceListener() {
        return core.traceListener();
    }

    Coordinator coordinator() {
        return core.coordinator();
    }

    String fleetKey() {
        return core.fleetKey();
    }

    String fleetNodeId() {
        return core.fleetNodeId();
    }

    Duration fleetHeartbeat() {
        return core.fleetHeartbeat();
    }

    OutagePolicy fleetOutagePolicy() {
        return core.fleetOutagePolicy();
    }

    /**
     * @param other the options another source asks for
     * @return {@code "option=this-value vs other-value"} for each option that differs
     */
    List<String> differences(PoolConfig other) {
        List<String> out = new ArrayList<>(core.differences(other.core));
        if (!rateLimitStatusCodes.equals(other.rateLimitStatusCodes)) {
            out.add(RATE_LIMIT_STATUS_CODES + "=" + rateLimitStatusCodes + " vs " + other.rateLimitStatusCodes);
        }
        if (classifier != other.classifier) {
            out.add(CLASSIFIER + "=" + classifier + " vs " + other.classifier);
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PoolConfig other && differences(other).isEmpty();
    }

    @Override
    public int hashCode() {
        return Objects.hash(core, rateLimitStatusCodes, System.identityHashCode(classifier));
    }

    /** Collects option values by name (text or typed); {@link #build()} validates them. Not thread-safe. */
    static final class Builder {
        private final Map<String, Object> options = new LinkedHashMap<>();

        /**
         * @param name  a pool option's name
         * @param value its value, text or typed
         * @return this
         * @throws IllegalArgumentException if no pool option has that name
         */
        Builder set(String name, Object value) {
            String key = poolOption(name);
            if (key == null) {
                throw new IllegalArgumentException("unknown pool option '" + name + "' (known: "
                        + String.join(", ", ConfigOption.keys()) + ", " + RATE_LIMIT_STATUS_CODES + ", " + CLASSIFIER
                        + ")");
            }
            options.put(key, value);
            return this;
        }

        /** @param values names to values, later ones winning; @return this */
        Builder setAll(Map<String, ?> values) {
            values.forEach(this::set);
            return this;
        }

        /**
         * @return the validated options
         * @throws IllegalArgumentException naming the first bad option and its value
         */
        PoolConfig build() {
            AdaptiveConfig.Builder core = AdaptiveConfig.builder();
            Object codes = DEFAULT_RATE_LIMIT_STATUS_CODES;
            ExchangeClassifier classifier = null;
            for (Map.Entry<String, Object> e : options.entrySet()) {
                switch (e.getKey()) {
                    case RATE_LIMIT_STATUS_CODES -> codes = e.getValue();
                    case CLASSIFIER -> {
                        if (e.getValue() != null && !(e.getValue() instanceof ExchangeClassifier)) {
                            throw new IllegalArgumentException("classifier must be a "
                                    + ExchangeClassifier.class.getName() + ": " + e.getValue());
                        }
                        classifier = (ExchangeClassifier) e.getValue();
                    }
                    default -> core.set(e.getKey(), e.getValue());
                }
            }
            return new PoolConfig(core.build(), statusCodes(codes), classifier);
        }

        private static Set<Integer> statusCodes(Object value) {
            String raw = value == null ? null : ConfigText.text(RATE_LIMIT_STATUS_CODES, value);
            // The core reads blank text as no status; here the one list must name the rate limits.
            if (raw == null || raw.isBlank()) {
                throw new IllegalArgumentException("rateLimitStatusCodes must list at least one HTTP status code: "
                        + raw);
            }
            return ConfigText.statusCodes(RATE_LIMIT_STATUS_CODES, raw);
        }
    }
}
