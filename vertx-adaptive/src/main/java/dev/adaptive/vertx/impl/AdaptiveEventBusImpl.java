package dev.adaptive.vertx.impl;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.RateLimitedException;
import dev.adaptive.TaskContext;
import dev.adaptive.vertx.AdaptiveEventBus;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.RateLimitReply;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/** The {@link AdaptiveEventBus}. Internal; thread-safe. */
public final class AdaptiveEventBusImpl implements AdaptiveEventBus {

    private final AdaptiveLimiter limiter;
    private final Clock clock;
    private final Duration maxRetryAfter;
    /**
     * The limiter's executor, but a request the event bus refused before sending is IGNORED (no
     * sample) and never retried; {@code null} for a limiter of another implementation, whose own
     * classifier and retry policy then decide.
     */
    private final AdaptiveExecutor executor;

    /**
     * @param limiter the limiter
     * @param clock   "now" for HTTP-dates
     */
    public AdaptiveEventBusImpl(AdaptiveLimiter limiter, Clock clock) {
        this.limiter = Objects.requireNonNull(limiter, "limiter");
        this.clock = Objects.requireNonNull(clock, "clock");
        // The limiter's cap on a wait, not the 10-minute default, which would cut a longer wait
        // that a raised maxRetryAfter lets through.
        this.maxRetryAfter = Duration.ofMillis(limiter.options().getMaxRetryAfter());
        // As the web client's refusal to send a streamed body again: a failure made here, before
        // anything reached a consumer (a body no codec sends: "No message codec for type"), says
        // nothing of the consumer, and sent again it is refused the same way. Counted as a drop
        // it lowered the limit on every retry, for a setup error.
        this.executor = limiter instanceof AdaptiveLimiterImpl impl
                ? impl.executor((result, error) -> null, null)
                : null;
    }

    @Override
    public <T> Future<Message<T>> request(String address, Object body, DeliveryOptions options) {
        Objects.requireNonNull(address, "address");
        DeliveryOptions copy = new DeliveryOptions(Objects.requireNonNull(options, "options"));
        Function<TaskContext, Future<Message<T>>> attempt = ctx -> {
            Future<Message<T>> sent;
            try {
                sent = limiter.vertx().eventBus().<T>request(address, body, copy);
            } catch (Throwable refused) {
                // Thrown by the event bus before it sent anything: no codec for the body, the
                // codec selector's throw, an event bus not (or no longer) started. Any Throwable:
                // the selector is user code, and an Error from it is the same refusal; left to
                // the engine, it was a drop retried on the error budget, refused each time.
                // (An outbound interceptor's throw never gets here: Vert.x reports it to the
                // context and the request waits for its reply timeout.)
                return Future.failedFuture(new IgnoredFailure(refused));
            }
            return sent.recover(err -> Future.failedFuture(classify(err, clock, maxRetryAfter)));
        };
        Future<Message<T>> call = executor != null
                ? ((AdaptiveLimiterImpl) limiter).execute(executor, attempt)
                : limiter.executeWithContext(attempt);
        return call.recover(err -> Future.failedFuture(unwrap(err)));
    }

    /**
     * @param failure a request's failure
     * @param clock   "now" for HTTP-dates
     * @param max     the cap on a wait
     * @return a {@link RateLimitedException} if the convention says so, the failure otherwise
     */
    static Throwable classify(Throwable failure, Clock clock, Duration max) {
        return RateLimitReply.rateLimited(failure, clock, max).<Throwable>map(rl -> rl).orElse(failure);
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
        if (last instanceof IgnoredFailure) {
            return IgnoredFailure.unwrap(last); // the event bus's own exception
        }
        return last;
    }

    @Override
    public AdaptiveLimiter limiter() {
        return limiter;
    }
}
