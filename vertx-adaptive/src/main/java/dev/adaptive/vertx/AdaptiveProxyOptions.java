package dev.adaptive.vertx;

import dev.adaptive.internal.ConfigText;
import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The configuration of an {@link AdaptiveProxyVerticle}, as a data object with JSON both ways
 * (the converter vertx-codegen generates): the deployment config of the verticle is exactly
 * {@link #toJson()}. {@code requestTimeout} is whole milliseconds, or duration text ({@code "30s"});
 * {@code localConsumer} also reads {@code "true"} / {@code "false"}, as a properties file or an
 * environment variable gives it through vertx-config.
 *
 * <pre>{@code
 * {
 *   "address": "orders",              // required: where callers send
 *   "targetAddress": "orders.backend", // required: where requests are forwarded
 *   "requestTimeout": 30000,           // ms per forwarded attempt; default 30000
 *   "localConsumer": false,            // consume on this node only; default false (cluster-wide)
 *   "options": { "maxLimit": 50 }      // the AdaptiveOptions of the proxy's limiter
 * }
 * }</pre>
 *
 * <p>The limiter's name defaults to the proxy's address. Setters and the JSON constructor throw
 * {@link IllegalArgumentException} naming the option and the value; the required addresses are
 * checked by {@link #validate()}, which the verticle calls on start. Not thread-safe.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptiveProxyOptions extends JsonDataObject {

    /** Default timeout of one forwarded attempt: the event bus's default, 30 s. */
    public static final long DEFAULT_REQUEST_TIMEOUT = DeliveryOptions.DEFAULT_TIMEOUT;
    /** Default: the proxy consumes cluster-wide: {@value}. */
    public static final boolean DEFAULT_LOCAL_CONSUMER = false;

    private static final Map<String, StrictJson.Shape> KEYS = Map.of("address", StrictJson.Shape.TEXT,
            "targetAddress", StrictJson.Shape.TEXT, "requestTimeout", StrictJson.Shape.MILLIS,
            "localConsumer", StrictJson.Shape.BOOLEAN, "options", StrictJson.Shape.OBJECT);

    private String address;
    private String targetAddress;
    private long requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private boolean localConsumer = DEFAULT_LOCAL_CONSUMER;
    private AdaptiveOptions options = new AdaptiveOptions();

    /** Defaults; both addresses still to set. */
    public AdaptiveProxyOptions() {
    }

    /** @param other the options to copy */
    public AdaptiveProxyOptions(AdaptiveProxyOptions other) {
        this(Objects.requireNonNull(other, "other").toJson());
    }

    /**
     * @param json the deployment config
     * @throws IllegalArgumentException on an unknown key, a wrong type or a value out of range
     */
    public AdaptiveProxyOptions(JsonObject json) {
        AdaptiveProxyOptionsConverter.fromJson(StrictJson.check(Objects.requireNonNull(json, "json"), Set.of(), KEYS),
                this);
    }

    /** @return the options as the verticle's deployment config */
    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptiveProxyOptionsConverter.toJson(this, json);
        return json;
    }

    /**
     * @throws IllegalArgumentException if an address is missing, or both are the same
     */
    public void validate() {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        if (targetAddress == null) {
            throw new IllegalArgumentException("targetAddress is required");
        }
        if (address.equals(targetAddress)) {
            throw new IllegalArgumentException("targetAddress must differ from address, or the proxy feeds itself: "
                    + targetAddress);
        }
    }

    /** @return where callers send */
    public String getAddress() {
        return address;
    }

    /**
     * @param address where callers send, not blank
     * @return this
     */
    public AdaptiveProxyOptions setAddress(String address) {
        this.address = notBlank("address", address);
        return this;
    }

    /** @return where requests are forwarded */
    public String getTargetAddress() {
        return targetAddress;
    }

    /**
     * @param targetAddress where requests are forwarded, not blank
     * @return this
     */
    public AdaptiveProxyOptions setTargetAddress(String targetAddress) {
        this.targetAddress = notBlank("targetAddress", targetAddress);
        return this;
    }

    /** @return the timeout of one forwarded attempt, in ms */
    public long getRequestTimeout() {
        return requestTimeout;
    }

    /**
     * @param requestTimeout the timeout of one forwarded attempt in ms, at least 1 and at most
     *                       about 292 years; a timeout is a drop and is retried
     * @return this
     */
    public AdaptiveProxyOptions setRequestTimeout(long requestTimeout) {
        if (requestTimeout < 1) {
            throw new IllegalArgumentException("requestTimeout must be >= 1: " + requestTimeout);
        }
        // At most what the JSON constructor reads (about 292 years), so that toJson() reads back.
        ConfigText.duration("requestTimeout", requestTimeout);
        this.requestTimeout = requestTimeout;
        return this;
    }

    /** @return whether the proxy consumes on this node only */
    public boolean isLocalConsumer() {
        return localConsumer;
    }

    /**
     * @param localConsumer consume on this node only instead of cluster-wide
     * @return this
     */
    public AdaptiveProxyOptions setLocalConsumer(boolean localConsumer) {
        this.localConsumer = localConsumer;
        return this;
    }

    /** @return the limiter's options */
    public AdaptiveOptions getOptions() {
        return options;
    }

    /**
     * @param options the limiter's options, copied
     * @return this
     */
    public AdaptiveProxyOptions setOptions(AdaptiveOptions options) {
        this.options = new AdaptiveOptions(Objects.requireNonNull(options, "options"));
        return this;
    }

    private static String notBlank(String option, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(option + " must not be blank: '" + value + "'");
        }
        return value;
    }

}
