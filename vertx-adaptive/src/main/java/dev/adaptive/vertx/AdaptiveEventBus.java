package dev.adaptive.vertx;

import dev.adaptive.vertx.impl.AdaptiveEventBusImpl;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;

import java.time.Clock;

/**
 * Event-bus requests through an {@link AdaptiveLimiter}: {@code request(...)} as on the
 * {@link io.vertx.core.eventbus.EventBus}, with adaptive concurrency, retries, and the
 * rate-limit convention of {@link RateLimitReply} honoured: a consumer answering
 * {@code fail(429, "retry-after=2")} pauses every request of the limiter for 2 s, and the
 * request is sent again after the pause.
 *
 * <p>Failures: a consumer's failure ({@link io.vertx.core.eventbus.ReplyException} with
 * {@code RECIPIENT_FAILURE}), a reply timeout and "no handlers" are errors, retried on the error
 * budget; once retries run out the future fails with the last {@code ReplyException}, as the
 * consumer sent it, also when the last one was a rate limit and when the limiter's retry budget
 * refused the retry. A request the event bus refuses before sending anything (a body of a
 * type with no default codec and no codec named in the options: "No message codec for type")
 * says nothing of the consumer: it fails at once with the event bus's own exception, after one
 * attempt, with no sample ({@link dev.adaptive.limit.Outcome#IGNORED}) and no retry (with a
 * limiter of another implementation, its own classifier and retry policy decide).
 *
 * <p>Thread-safe.
 */
public interface AdaptiveEventBus {

    /**
     * @param limiter the limiter requests go through
     * @return a client
     */
    static AdaptiveEventBus create(AdaptiveLimiter limiter) {
        return new AdaptiveEventBusImpl(limiter, Clock.systemUTC());
    }

    /**
     * @param limiter the limiter requests go through
     * @param clock   "now" for HTTP-dates in Retry-After values
     * @return a client
     */
    static AdaptiveEventBus create(AdaptiveLimiter limiter, Clock clock) {
        return new AdaptiveEventBusImpl(limiter, clock);
    }

    /**
     * @param address the consumer's address
     * @param body    the message
     * @param <T>     the reply body type
     * @return the reply, on the caller's context
     */
    default <T> Future<Message<T>> request(String address, Object body) {
        return request(address, body, new DeliveryOptions());
    }

    /**
     * @param address the consumer's address
     * @param body    the message
     * @param options delivery options (headers, send timeout per attempt, codec)
     * @param <T>     the reply body type
     * @return the reply, on the caller's context
     */
    <T> Future<Message<T>> request(String address, Object body, DeliveryOptions options);

    /** @return the limiter */
    AdaptiveLimiter limiter();
}
