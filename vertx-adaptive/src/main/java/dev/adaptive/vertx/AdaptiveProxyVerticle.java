package dev.adaptive.vertx;

import dev.adaptive.AcquireTimeoutException;
import dev.adaptive.LimiterClosedException;
import dev.adaptive.RejectedException;
import dev.adaptive.TaskTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

import java.util.Objects;
import java.util.function.Consumer;


/**
 * A verticle that consumes an address and forwards each request to a target address through an
 * {@link AdaptiveLimiter}, replying with the target's reply (body and headers). Requests are
 * forwarded with their headers; each forwarded attempt has its own {@code requestTimeout}.
 *
 * <p>Deploy it from JSON config ({@link AdaptiveProxyOptions}):
 * <pre>{@code
 * vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions().setConfig(new JsonObject()
 *     .put("address", "orders").put("targetAddress", "orders.backend")
 *     .put("options", new JsonObject().put("maxLimit", 20))));
 * }</pre>
 * A bad config fails the deployment with an {@link IllegalArgumentException} naming the option.
 *
 * <p>The target says "rate-limited" by the {@link RateLimitReply} convention
 * ({@code message.fail(429, "retry-after=2")}): the proxy pauses all forwarding for the wait and
 * sends the request again after it. When a request finally fails, the caller gets:
 * <ul>
 *   <li>the target's own failure code and message, for a failure of the target (including a
 *       last rate limit, so a caller using {@link AdaptiveEventBus} backs off too);</li>
 *   <li>{@value #UNAVAILABLE} with a message starting {@code adaptive-proxy}, when the proxy
 *       cannot take the request: its queue is full, the wait timed out, or it was undeployed;</li>
 *   <li>{@value #TIMEOUT} when the target did not reply in time, {@value #NO_TARGET} when nothing
 *       consumes the target address, {@value #ERROR} for anything else, a request or reply the
 *       proxy cannot pass on included (a body of a codec registered by name only, which the
 *       proxy does not know: register a default codec for such types). A request the event bus
 *       refuses to forward is answered at once, after one attempt, with no sample and no retry
 *       (as {@link AdaptiveEventBus} does): it says nothing of the target. So is, without going
 *       through the limiter, a request whose body the proxy's node cannot decode (on a
 *       clustered event bus, a codec whose {@code decodeFromWire} throws).</li>
 * </ul>
 *
 * <p>Undeploying fails every request not yet answered (queued, waiting for a retry, or in flight
 * at the target) at once with {@value #UNAVAILABLE} and a message saying the proxy was
 * undeployed; a late reply from the target is dropped. No caller is left waiting for its own
 * timeout.
 */
public class AdaptiveProxyVerticle extends VerticleBase {

    /** Failure code when the proxy cannot take or finish a request: {@value}. */
    public static final int UNAVAILABLE = 503;
    /** Failure code when the target did not reply in time: {@value}. */
    public static final int TIMEOUT = 504;
    /** Failure code when nothing consumes the target address: {@value}. */
    public static final int NO_TARGET = 502;
    /** Failure code for any other failure: {@value}. */
    public static final int ERROR = 500;

    private final AdaptiveProxyOptions given;
    private final Consumer<AdaptiveLimiter.Builder> customizer;
    private AdaptiveProxyOptions options;
    private AdaptiveLimiter limiter;
    private AdaptiveEventBus bus;
    private MessageConsumer<Object> consumer;
    private volatile boolean undeploying;

    /** Configured by the deployment config. */
    public AdaptiveProxyVerticle() {
        this(null, b -> { });
    }

    /** @param options the configuration, used instead of the deployment config */
    public AdaptiveProxyVerticle(AdaptiveProxyOptions options) {
        this(Objects.requireNonNull(options, "options"), b -> { });
    }

    /**
     * @param options    the configuration, or {@code null} to read the deployment config
     * @param customizer adds to the limiter what JSON cannot say (a classifier, trace listeners),
     *                   called on start
     */
    public AdaptiveProxyVerticle(AdaptiveProxyOptions options, Consumer<AdaptiveLimiter.Builder> customizer) {
        this.given = options == null ? null : new AdaptiveProxyOptions(options);
        this.customizer = Objects.requireNonNull(customizer, "customizer");
    }

    @Override
    public Future<?> start() {
        options = given != null ? given : new AdaptiveProxyOptions(config());
        options.validate();
        AdaptiveOptions limiterOptions = new AdaptiveOptions(options.getOptions());
        if (AdaptiveOptions.DEFAULT_NAME.equals(limiterOptions.getName())) {
            limiterOptions.setName(options.getAddress());
        }
        AdaptiveLimiter.Builder builder = AdaptiveLimiter.builder(vertx, limiterOptions).context(context);
        customizer.accept(builder);
        limiter = builder.build();
        bus = AdaptiveEventBus.create(limiter);
        consumer = options.isLocalConsumer()
                ? vertx.eventBus().localConsumer(options.getAddress(), this::forward)
                : vertx.eventBus().consumer(options.getAddress(), this::forward);
        return consumer.completion().recover(err -> {
            // stop() is not called for a failed start: undo what start() made.
            consumer.unregister();
            return limiter.close().transform(closed -> Future.failedFuture(err));
        });
    }

    @Override
    public Future<?> stop() {
        undeploying = true;
        // Unregister first so nothing new arrives, then fail everything still pending.
        return consumer.unregister().eventually(() -> limiter.close());
    }

    /** @return the proxy's limiter, for its stats; {@code null} before start */
    public AdaptiveLimiter limiter() {
        return limiter;
    }

    private void forward(Message<Object> request) {
        Object body;
        try {
            body = request.body();
        } catch (Throwable undecodable) {
            // On a clustered event bus a body from another node is decoded here, by its codec's
            // decodeFromWire; thrown from this handler it would leave the caller to its own
            // timeout. It gets ERROR at once instead; nothing was sent, so the limiter learns nothing.
            fail(request, undecodable);
            return;
        }
        DeliveryOptions out = new DeliveryOptions()
                .setSendTimeout(options.getRequestTimeout())
                .setHeaders(request.headers());
        bus.<Object>request(options.getTargetAddress(), body, out)
                .onSuccess(reply -> {
                    try {
                        request.reply(reply.body(), new DeliveryOptions().setHeaders(reply.headers()));
                    } catch (Throwable unsendable) {
                        // A reply body no default codec sends (one of a codec registered by name
                        // only), or anything else the reply throws: thrown from this handler it
                        // would leave the caller to its own timeout; it gets ERROR at once instead.
                        fail(request, unsendable);
                    }
                })
                .onFailure(err -> fail(request, err));
    }

    private void fail(Message<Object> request, Throwable err) {
        String proxy = "adaptive-proxy '" + options.getAddress() + "'";
        if (err instanceof LimiterClosedException) {
            request.fail(UNAVAILABLE, proxy + " was undeployed before the request completed"
                    + (undeploying ? "" : " (its limiter was closed)"));
        } else if (err instanceof RejectedException || err instanceof AcquireTimeoutException) {
            request.fail(UNAVAILABLE, proxy + " cannot take the request: " + err.getMessage());
        } else if (err instanceof TaskTimeoutException) {
            request.fail(TIMEOUT, proxy + ": target '" + options.getTargetAddress() + "' timed out: " + err.getMessage());
        } else if (err instanceof ReplyException re) {
            if (re.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
                request.fail(re.failureCode(), re.getMessage());
            } else if (re.failureType() == ReplyFailure.TIMEOUT) {
                request.fail(TIMEOUT, proxy + ": target '" + options.getTargetAddress() + "' did not reply within "
                        + options.getRequestTimeout() + " ms");
            } else if (re.failureType() == ReplyFailure.NO_HANDLERS) {
                request.fail(NO_TARGET, proxy + ": no consumer at target '" + options.getTargetAddress() + "'");
            } else {
                request.fail(ERROR, proxy + ": " + re.getMessage());
            }
        } else {
            request.fail(ERROR, proxy + ": " + err);
        }
    }
}
