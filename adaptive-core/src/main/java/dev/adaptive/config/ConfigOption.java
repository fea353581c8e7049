package dev.adaptive.config;

import dev.adaptive.internal.Ascii;
import dev.adaptive.internal.ConfigText;
import dev.adaptive.internal.DurationText;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every option of an {@link AdaptiveConfig}: its name (the same in Camel URIs and properties,
 * Vert.x JSON and {@link AdaptiveConfig.Builder#set}), the kind of value it takes, its unit, its
 * default and what it does. The faces' catalogs and documentation tables are tested against
 * this list, and {@link #markdownTable()} prints it.
 */
public enum ConfigOption {

    /** {@link AdaptiveConfig.Builder#algorithm}. */
    ALGORITHM("algorithm", Kind.ENUM, "", null,
            "The limit algorithm: `vegas` keeps the downstream's queue short, read from latency; `aimd` grows"
                    + " additively while latency is stable and decreases on errors; `gradient2` follows the ratio of"
                    + " long- to short-term latency; `fixed` always allows exactly `maxLimit`."),
    /** {@link AdaptiveConfig.Builder#initialLimit}. */
    INITIAL_LIMIT("initialLimit", Kind.INTEGER, "calls", "5, moved into [`minLimit`, `maxLimit`]",
            "The concurrency limit before any call has finished; within [`minLimit`, `maxLimit`]. Not with"
                    + " `fixed`, which runs at `maxLimit` from the start."),
    /** {@link AdaptiveConfig.Builder#minLimit}. */
    MIN_LIMIT("minLimit", Kind.INTEGER, "calls", null,
            "The lowest the limit goes; at least 1. Ignored by `fixed`."),
    /** {@link AdaptiveConfig.Builder#maxLimit}. */
    MAX_LIMIT("maxLimit", Kind.INTEGER, "calls", null,
            "The highest the limit goes (with `fixed`: the limit); at least `minLimit`."),
    /** {@link AdaptiveConfig.Builder#adaptOnLatency}. */
    ADAPT_ON_LATENCY("adaptOnLatency", Kind.BOOLEAN, "", null,
            "Whether latency moves the limit; when false, successes feed a flat RTT and the limit only probes upward."),
    /** {@link AdaptiveConfig.Builder#adaptOnErrors}. */
    ADAPT_ON_ERRORS("adaptOnErrors", Kind.BOOLEAN, "", null,
            "Whether failed and timed-out calls decrease the limit."),
    /** {@link AdaptiveConfig.Builder#adaptOnRateLimit}. */
    ADAPT_ON_RATE_LIMIT("adaptOnRateLimit", Kind.BOOLEAN, "", null,
            "Whether rate-limited calls decrease the limit; a 429 with `Retry-After` pauses dispatch either way."),
    /** {@link AdaptiveConfig.Builder#retries}. */
    RETRIES("retries", Kind.INTEGER, "retries", null,
            "Retries per call after errors and timeouts, each after a backoff; rate-limit answers do not consume"
                    + " them. At least 0."),
    /** {@link AdaptiveConfig.Builder#backoff}. */
    BACKOFF("backoff", Kind.ENUM, "", null,
            "How the backoff grows: `exponential` (`minDelay` × 2^(n-1)), `linear` (`minDelay` × n) or `constant`."),
    /** {@link AdaptiveConfig.Builder#minDelay}. */
    MIN_DELAY("minDelay", Kind.DURATION, "duration", null, "The base backoff delay; at least 0."),
    /** {@link AdaptiveConfig.Builder#maxDelay}. */
    MAX_DELAY("maxDelay", Kind.DURATION, "duration", null,
            "The cap on one backoff delay, jitter included; at least `minDelay`."),
    /** {@link AdaptiveConfig.Builder#jitter}. */
    JITTER("jitter", Kind.DECIMAL, "fraction", null,
            "The fraction by which a backoff delay is spread either way, within [0, 1]; never applied to a"
                    + " `Retry-After` wait."),
    /** {@link AdaptiveConfig.Builder#maxRateLimitRetries}. */
    MAX_RATE_LIMIT_RETRIES("maxRateLimitRetries", Kind.INTEGER, "retries", null,
            "Retries per call after rate-limit answers; each waits for the pause. At least 0."),
    /** {@link AdaptiveConfig.Builder#maxRetryAfter}. */
    MAX_RETRY_AFTER("maxRetryAfter", Kind.DURATION, "duration", null,
            "The cap on one `Retry-After` pause: a longer or hostile value is cut to it. Positive."),
    /** {@link AdaptiveConfig.Builder#taskTimeout}. */
    TASK_TIMEOUT("taskTimeout", Kind.DURATION, "duration", "0 (none)",
            "How long one attempt may run; past it the attempt counts as dropped and is retried (within"
                    + " `retries`). 0: no timeout."),
    /** {@link AdaptiveConfig.Builder#waitTimeout}. */
    WAIT_TIMEOUT("waitTimeout", Kind.DURATION, "duration", "0 (none)",
            "How long one call may wait for a slot; then it fails with `AcquireTimeoutException`. 0: no timeout."),
    /** {@link AdaptiveConfig.Builder#maxQueueSize}. */
    MAX_QUEUE_SIZE("maxQueueSize", Kind.INTEGER, "calls", null,
            "How many calls may wait for a slot while none is free; one more is refused at once with"
                    + " `RejectedException`. At least 0."),
    /** {@link AdaptiveConfig.Builder#retryBudget}. */
    RETRY_BUDGET("retryBudget", Kind.BOOLEAN, "", null,
            "Whether retries (after errors, timeouts and rate limits alike) are capped, across every call through"
                    + " the limiter, as a share of first attempts over a sliding window, so that an outage does not get"
                    + " every call's full retry count; a refused retry waits its next backoff and asks again, and"
                    + " once the call's retries are spent it ends with `RetryBudgetExhaustedException`."),
    /** {@link AdaptiveConfig.Builder#retryBudgetRatio}. */
    RETRY_BUDGET_RATIO("retryBudgetRatio", Kind.DECIMAL, "fraction", null,
            "Retries allowed per first attempt in the window; at least 0."),
    /** {@link AdaptiveConfig.Builder#retryBudgetMinPerSecond}. */
    RETRY_BUDGET_MIN_PER_SECOND("retryBudgetMinPerSecond", Kind.DECIMAL, "retries per second", null,
            "Retries allowed besides, per second of the window, so that a client that sends little can still"
                    + " retry; at least 0."),
    /** {@link AdaptiveConfig.Builder#retryBudgetWindow}. */
    RETRY_BUDGET_WINDOW("retryBudgetWindow", Kind.DURATION, "duration", null,
            "The sliding window the retry budget counts in; positive, at most 1 day."),
    /** {@link AdaptiveConfig.Builder#outageProbe}. */
    OUTAGE_PROBE("outageProbe", Kind.DURATION, "duration", null,
            "The longest wait between two probes of an outage (a run of at least five errors or timeouts, one"
                    + " of them from a call sent after the first failed, no success between them): while it lasts one"
                    + " call at a time is sent (a first attempt where one waits, the second probe a retry), the first"
                    + " after an eighth of this and each next after twice the wait before, until a call succeeds."
                    + " 0 turns the rule off; at most 1 hour."),
    /** {@link AdaptiveConfig.Builder#quotaHeaders}. */
    QUOTA_HEADERS("quotaHeaders", Kind.BOOLEAN, "", null,
            "Whether the HTTP faces read the quota a server announces on every answer (`RateLimit`,"
                    + " `RateLimit-Remaining`, `X-RateLimit-Remaining`/`-Reset`, `X-RateLimit-Remaining-Requests`),"
                    + " so that nothing is sent while what remains is no more than what is in flight, until the reset"
                    + " (capped by `maxRetryAfter`)."),
    /** {@link AdaptiveConfig.Builder#quotaSpread}. */
    QUOTA_SPREAD("quotaSpread", Kind.BOOLEAN, "", null,
            "Whether what remains of an announced quota is spread evenly over the time to its reset instead of"
                    + " sent as fast as the limit allows."),
    /** {@link AdaptiveConfig.Builder#traceListener}. */
    TRACE_LISTENER("traceListener", Kind.BEAN, "", "none",
            "A `dev.adaptive.trace.TraceListener` that receives every trace event; must be fast."),
    /** {@link AdaptiveConfig.Builder#coordinator}. */
    COORDINATOR("coordinator", Kind.BEAN, "", "none",
            "A `dev.adaptive.fleet.Coordinator` through which several applications calling one backend share one"
                    + " concurrency ceiling and one `Retry-After` pause. Requires `fleetNodeId`."),
    /** {@link AdaptiveConfig.Builder#fleetKey}. */
    FLEET_KEY("fleetKey", Kind.TEXT, "", "the face's name",
            "The key every node calling the same backend shares in the coordinator. Only with `coordinator`."),
    /** {@link AdaptiveConfig.Builder#fleetNodeId}. */
    FLEET_NODE_ID("fleetNodeId", Kind.TEXT, "", "none (required with `coordinator`)",
            "This application's id in the fleet, unique per `fleetKey`; no default, since two nodes with one id"
                    + " would corrupt the fleet's view. Only with `coordinator`."),
    /** {@link AdaptiveConfig.Builder#fleetHeartbeat}. */
    FLEET_HEARTBEAT("fleetHeartbeat", Kind.DURATION, "duration", null,
            "How often the node reports to the coordinator and learns its share; reports live twice as long."
                    + " Positive, at most 365 days."),
    /** {@link AdaptiveConfig.Builder#fleetOutagePolicy}. */
    FLEET_OUTAGE_POLICY("fleetOutagePolicy", Kind.ENUM, "", null,
            "While the coordinator does not answer: `failClosed` keeps the last share until the report may have"
                    + " expired, then admits nothing until it answers; `localOnly` runs on the own limit meanwhile,"
                    + " and takes its share back, after, as a joining node does.");

    /** The kinds of value an option takes, and so how text is read into it. */
    public enum Kind {
        /** A whole number: an int, a whole JSON number, or ASCII digits. */
        INTEGER,
        /** A number: a JSON number or ASCII {@code [-]digits[.digits]}. */
        DECIMAL,
        /** {@code true} or {@code false}. */
        BOOLEAN,
        /**
         * A {@link Duration}, a whole number of milliseconds, or text as {@link DurationText} reads
         * it; in every form at least 0 and at most {@link DurationText#MAX} (about 292 years).
         */
        DURATION,
        /** The option name of a constant, ASCII letters in any case, dashes and underscores ignored. */
        ENUM,
        /** Text. */
        TEXT,
        /** An object a program hands over (in Camel, a bean reference); never text. */
        BEAN
    }

    private final String key;
    private final Kind kind;
    private final String unit;
    private final String defaultNote;
    private final String description;

    ConfigOption(String key, Kind kind, String unit, String defaultNote, String description) {
        this.key = key;
        this.kind = kind;
        this.unit = unit;
        this.defaultNote = defaultNote;
        this.description = description;
    }

    /** @return the option's name in every face */
    public String key() {
        return key;
    }

    /** @return the kind of value it takes */
    public Kind kind() {
        return kind;
    }

    /** @return its unit ({@code calls}, {@code duration}, ...), empty when it has none */
    public String unit() {
        return unit;
    }

    /** @return what it does, in Markdown */
    public String description() {
        return description;
    }

    /**
     * @return the default as documented: durations as {@link DurationText#format} writes them
     *         ({@code 10m}), enums by their option name ({@code vegas}), or a note where the
     *         default is derived ({@code 5, moved into [minLimit, maxLimit]})
     */
    public String defaultText() {
        if (defaultNote != null) {
            return defaultNote;
        }
        return text(AdaptiveConfig.defaults().value(this));
    }

    /** @return the default value, {@code null} where there is none (a bean, an unset initial limit) */
    public Object defaultValue() {
        return AdaptiveConfig.defaults().value(this);
    }

    /**
     * @param value a value of this option
     * @return it as an option's text: durations in units, enums by option name
     */
    public static String text(Object value) {
        if (value instanceof Duration d) {
            return DurationText.format(d);
        }
        if (value instanceof Enum<?> e) {
            return ConfigText.enumName(e);
        }
        return String.valueOf(value);
    }

    /**
     * Reads a value of this option as its {@link #kind()} says, strictly, without checking its
     * range (the builder does): text, a JSON value or a typed value in, the typed value out
     * ({@link Integer}, {@link Double}, {@link Boolean}, {@link Duration}, the enum constant,
     * {@link String}; a bean as it is).
     *
     * @param value the value as given
     * @return the typed value
     * @throws IllegalArgumentException naming the option and quoting the value
     */
    public Object read(Object value) {
        return switch (this) {
            case ALGORITHM -> ConfigText.enumValue(key, value, Algorithm.class);
            case BACKOFF -> ConfigText.enumValue(key, value, dev.adaptive.retry.Backoff.Kind.class);
            case FLEET_OUTAGE_POLICY -> ConfigText.enumValue(key, value, dev.adaptive.fleet.OutagePolicy.class);
            default -> switch (kind) {
                case INTEGER -> ConfigText.integer(key, value);
                case DECIMAL -> ConfigText.decimal(key, value);
                case BOOLEAN -> ConfigText.bool(key, value);
                case DURATION -> ConfigText.duration(key, value);
                case TEXT -> ConfigText.text(key, value);
                default -> value;
            };
        };
    }

    /** @return the enum type of an {@link Kind#ENUM} option, empty for the others */
    public Optional<Class<? extends Enum<?>>> enumType() {
        return switch (this) {
            case ALGORITHM -> Optional.of(Algorithm.class);
            case BACKOFF -> Optional.of(dev.adaptive.retry.Backoff.Kind.class);
            case FLEET_OUTAGE_POLICY -> Optional.of(dev.adaptive.fleet.OutagePolicy.class);
            default -> Optional.empty();
        };
    }

    /**
     * Finds an option by name as configuration sources spell it: exactly, or (relaxed, for
     * properties files and Camel's case-insensitive binding) with ASCII letters in any case and
     * dashes ignored, so {@code max-limit} and {@code maxlimit} find {@code maxLimit}.
     *
     * @param name the name
     * @return the option, if one has that name
     */
    public static Optional<ConfigOption> find(String name) {
        for (ConfigOption o : values()) {
            if (o.key.equals(name)) {
                return Optional.of(o);
            }
        }
        String relaxed = name.replace("-", "");
        for (ConfigOption o : values()) {
            if (Ascii.equalsIgnoreCase(o.key, relaxed)) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    /** @return every option's name, in the order of {@link #values()} */
    public static List<String> keys() {
        List<String> keys = new ArrayList<>();
        for (ConfigOption o : values()) {
            keys.add(o.key);
        }
        return keys;
    }

    /** @return the options as a Markdown table: option, default, unit, description */
    public static String markdownTable() {
        StringBuilder out = new StringBuilder("| option | default | unit | description |\n|---|---|---|---|\n");
        for (ConfigOption o : values()) {
            out.append("| `").append(o.key).append("` | ").append(o.defaultText()).append(" | ")
                    .append(o.unit).append(" | ").append(o.description).append(" |\n");
        }
        return out.toString();
    }
}
