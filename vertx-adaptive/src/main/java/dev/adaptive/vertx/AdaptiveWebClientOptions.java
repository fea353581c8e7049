package dev.adaptive.vertx;

import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.json.JsonObject;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * How {@link AdaptiveWebClient} reads HTTP statuses, as a data object with JSON both ways (the
 * converter vertx-codegen generates; unknown keys and wrong types are rejected, naming them).
 *
 * <ul>
 *   <li>{@code rateLimitStatuses}, default {@code [429]}: always a rate limit; the
 *       {@code Retry-After} (delta-seconds or HTTP-date), if any, pauses the limiter.</li>
 *   <li>{@code retryAfterStatuses}, default {@code [503]}: a rate limit when the response has a
 *       usable {@code Retry-After}; otherwise as {@code errorStatuses} says.</li>
 *   <li>{@code errorStatuses}, default {@code [500, 502, 503, 504]}: an error (a drop), retried
 *       with backoff.</li>
 *   <li>{@code ignoreClientErrors}, default {@code true}: other 4xx answers say nothing about
 *       capacity and give the limit no sample; the response is returned as it is, not retried
 *       (one whose body arrived whole but the request's codec cannot read fails at once with
 *       the codec's exception; one cut halfway through its body is a connection failure).
 *       When {@code false} they count as successes.</li>
 * </ul>
 * Every other status is a success and the response is returned. Statuses must be in
 * [100, 599]; setters throw {@link IllegalArgumentException} naming the option and value. In
 * JSON each list is an array whose statuses are numbers or their ASCII digits as text
 * ({@code ["429"]}), read as every whole number of the options is ({@code "maxLimit": "50"});
 * or one comma-separated text ({@code "429,420"}, as a properties file or an environment
 * variable gives it through vertx-config), read as the Camel component reads its
 * {@code rateLimitStatusCodes}, with the same messages, the empty text being the empty list; or
 * a lone whole number, a list of one (vertx-config turns the text {@code 429} into a number).
 * Anything else fails naming the list and the value; {@link #toJson()} writes arrays.
 * {@code ignoreClientErrors} also reads {@code "true"} / {@code "false"}. Not thread-safe.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptiveWebClientOptions extends JsonDataObject {

    /** Default rate-limit statuses: 429. */
    public static final Set<Integer> DEFAULT_RATE_LIMIT_STATUSES = Set.of(429);
    /** Default statuses that are rate limits when they carry a Retry-After: 503. */
    public static final Set<Integer> DEFAULT_RETRY_AFTER_STATUSES = Set.of(503);
    /** Default error statuses: 500, 502, 503, 504. */
    public static final Set<Integer> DEFAULT_ERROR_STATUSES = Set.of(500, 502, 503, 504);
    /** Default: other 4xx answers are ignored by the limit: {@value}. */
    public static final boolean DEFAULT_IGNORE_CLIENT_ERRORS = true;

    private static final Map<String, StrictJson.Shape> KEYS = Map.of("rateLimitStatuses", StrictJson.Shape.STATUSES,
            "retryAfterStatuses", StrictJson.Shape.STATUSES, "errorStatuses", StrictJson.Shape.STATUSES,
            "ignoreClientErrors", StrictJson.Shape.BOOLEAN);

    private Set<Integer> rateLimitStatuses = new TreeSet<>(DEFAULT_RATE_LIMIT_STATUSES);
    private Set<Integer> retryAfterStatuses = new TreeSet<>(DEFAULT_RETRY_AFTER_STATUSES);
    private Set<Integer> errorStatuses = new TreeSet<>(DEFAULT_ERROR_STATUSES);
    private boolean ignoreClientErrors = DEFAULT_IGNORE_CLIENT_ERRORS;

    /** Every option at its default. */
    public AdaptiveWebClientOptions() {
    }

    /** @param other the options to copy */
    public AdaptiveWebClientOptions(AdaptiveWebClientOptions other) {
        this(Objects.requireNonNull(other, "other").toJson());
    }

    /**
     * @param json options as {@link #toJson()} writes them; missing keys keep their defaults
     * @throws IllegalArgumentException on an unknown key, a wrong type or a status out of range
     */
    public AdaptiveWebClientOptions(JsonObject json) {
        AdaptiveWebClientOptionsConverter.fromJson(StrictJson.check(Objects.requireNonNull(json, "json"), Set.of(),
                KEYS), this);
    }

    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptiveWebClientOptionsConverter.toJson(this, json);
        return json;
    }

    /** @return statuses that are always rate limits */
    public Set<Integer> getRateLimitStatuses() {
        return Collections.unmodifiableSet(rateLimitStatuses);
    }

    /**
     * @param statuses statuses that are always rate limits
     * @return this
     */
    public AdaptiveWebClientOptions setRateLimitStatuses(Set<Integer> statuses) {
        this.rateLimitStatuses = checked("rateLimitStatuses", statuses);
        return this;
    }

    /** @return statuses that are rate limits when they carry a Retry-After */
    public Set<Integer> getRetryAfterStatuses() {
        return Collections.unmodifiableSet(retryAfterStatuses);
    }

    /**
     * @param statuses statuses that are rate limits when they carry a usable Retry-After
     * @return this
     */
    public AdaptiveWebClientOptions setRetryAfterStatuses(Set<Integer> statuses) {
        this.retryAfterStatuses = checked("retryAfterStatuses", statuses);
        return this;
    }

    /** @return statuses that are errors */
    public Set<Integer> getErrorStatuses() {
        return Collections.unmodifiableSet(errorStatuses);
    }

    /**
     * @param statuses statuses that are errors, retried with backoff
     * @return this
     */
    public AdaptiveWebClientOptions setErrorStatuses(Set<Integer> statuses) {
        this.errorStatuses = checked("errorStatuses", statuses);
        return this;
    }

    /** @return whether other 4xx answers are ignored by the limit */
    public boolean isIgnoreClientErrors() {
        return ignoreClientErrors;
    }

    /**
     * @param ignoreClientErrors whether other 4xx answers are ignored by the limit (else successes)
     * @return this
     */
    public AdaptiveWebClientOptions setIgnoreClientErrors(boolean ignoreClientErrors) {
        this.ignoreClientErrors = ignoreClientErrors;
        return this;
    }

    private static Set<Integer> checked(String option, Collection<Integer> statuses) {
        Objects.requireNonNull(statuses, option);
        Set<Integer> out = new TreeSet<>();
        for (Integer s : statuses) {
            if (s == null || s < 100 || s > 599) {
                throw new IllegalArgumentException(option + " must hold statuses in [100, 599]: " + s);
            }
            out.add(s);
        }
        return out;
    }

}
