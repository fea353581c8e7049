package dev.adaptive.vertx.impl;

import dev.adaptive.RateLimitedException;
import dev.adaptive.vertx.AdaptiveEventBus;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.RateLimitReply;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;

import java.time.Clock;
import java.util.Objects;

/** The {@link AdaptiveEventBus}. Internal; thread-safe. */
public final class AdaptiveEventBusImpl implements AdaptiveEventBus {

    private final AdaptiveLimiter limiter;
    private final Clock clock;

    /**
     * @param limiter the limiter
     * @param clock   "now" for HTTP-dates
     */
    public AdaptiveEventBusImpl(AdaptiveLimiter limiter, Clock clock) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public <T> Future<Message<T>> request(String address, Object body, DeliveryOptions options) {
        Objects.requireNonNull(address, "address");
        DeliveryOptions copy = new DeliveryOptions(Objects.requireNonNull(options, "options"));
        return limiter.<Message<T>>execute(() -> limiter.vertx().eventBus().<T>request(address, body, copy)
                        .recover(err -> Future.failedFuture(classify(err, clock))))
                .recover(err -> Future.failedFuture(unwrap(err)));
    }

    /**
     * @param failure a request's failure
     * @param clock   "now" for HTTP-dates
     * @return a {@link RateLimitedException} if the convention says so, the failure otherwise
     */
    static Throwable classify(Throwable failure, Clock clock) {
        return RateLimitReply.rateLimited(failure, clock).<Throwable>map(rl -> rl).orElse(failure);
    }

    /**
     * @param failure a final failure
     * @return the consumer's own {@link ReplyException} when a rate limit wraps one, also when
     *         the retry budget ended the call ({@link LastFailure})
     */
    static Throwable unwrap(Throwable failure) {
        Throwable last = LastFailure.of(failure);
        if (last instanceof RateLimitedException && last.getCause() instanceof ReplyException re) {
            return re;
        }
        return last;
    }

    @Override
    public AdaptiveLimiter limiter() {
        return limiter;
    }
}
