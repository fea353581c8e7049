package dev.adaptive.vertx;

import dev.adaptive.RateLimitedException;
import dev.adaptive.internal.Ascii;
import dev.adaptive.retry.RetryAfter;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The event-bus convention by which a consumer says "rate-limited, retry after N", understood by
 * {@link AdaptiveEventBus} and {@link AdaptiveProxyVerticle}.
 *
 * <p>A consumer fails the message with failure code {@value #RATE_LIMITED} and a failure message
 * carrying the wait:
 * <ul>
 *   <li>{@code retry-after=<value>}, where the value is an HTTP {@code Retry-After}: delta-seconds
 *       ({@code retry-after=2}) or an HTTP-date ({@code retry-after=Sun, 06 Nov 1994 08:49:37 GMT});</li>
 *   <li>or {@code retry-after-ms=<milliseconds>} for waits finer than a second.</li>
 * </ul>
 * The keys are found anywhere in the message, their ASCII letters in any case (and nothing but
 * ASCII letters stands for them: text in any script may come before or after). The value runs
 * to the next {@code ;} or the end, so free text may follow:
 * {@code message.fail(429, "retry-after=2; quota of tenant 7 exhausted")}. {@link #fail(Message, Duration)}
 * writes it for you. Code {@value #RATE_LIMITED} without a readable wait is still a rate limit,
 * retried after a backoff; code {@value #SERVICE_UNAVAILABLE} is a rate limit only with a wait,
 * otherwise an ordinary error. Values are never obeyed blindly: garbage and past dates mean "no
 * wait", and waits are capped: by the limiter's {@code maxRetryAfter} for the requests of
 * {@link AdaptiveEventBus} and {@link AdaptiveProxyVerticle}, by {@link RetryAfter#DEFAULT_MAX}
 * for the methods without a cap.
 *
 * <p>Stateless and thread-safe.
 */
public final class RateLimitReply {

    /** The failure code of a rate-limit answer: {@value}. */
    public static final int RATE_LIMITED = 429;
    /** The failure code that is a rate limit when it carries a wait: {@value}. */
    public static final int SERVICE_UNAVAILABLE = 503;
    /** The key of a wait in HTTP {@code Retry-After} form: {@value}. */
    public static final String RETRY_AFTER = "retry-after=";
    /** The key of a wait in milliseconds: {@value}. */
    public static final String RETRY_AFTER_MS = "retry-after-ms=";

    private RateLimitReply() {
    }

    /**
     * Fails {@code message} as rate-limited.
     *
     * @param message    the request to answer
     * @param retryAfter the wait the sender must observe, not negative
     */
    public static void fail(Message<?> message, Duration retryAfter) {
        message.fail(RATE_LIMITED, failureMessage(retryAfter));
    }

    /**
     * @param retryAfter the wait, not negative, any length (readers cap it)
     * @return {@code retry-after=<s>} for whole seconds, {@code retry-after-ms=<ms>} otherwise
     *         (rounded up, so the wait is never shortened; whole seconds past what a long of
     *         milliseconds holds, the longest Duration's fraction of a second dropped, since a
     *         long of seconds holds no more)
     */
    public static String failureMessage(Duration retryAfter) {
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
        }
        // Read from the parts: toNanos() overflows past 292 years, and a consumer's handler that
        // threw here would leave its requester to its own timeout.
        long seconds = retryAfter.getSeconds();
        int nanos = retryAfter.getNano();
        if (nanos == 0) {
            return RETRY_AFTER + seconds;
        }
        if (seconds >= Long.MAX_VALUE / 1000 - 1) {
            // Past what a long of milliseconds holds: whole seconds, rounded up (readers cap it),
            // but no further than a long holds: Long.MAX_VALUE + 1 would be written negative,
            // which no reader takes for a wait.
            return RETRY_AFTER + (seconds == Long.MAX_VALUE ? seconds : seconds + 1);
        }
        long millis = seconds * 1000 + nanos / 1_000_000 + (nanos % 1_000_000 == 0 ? 0 : 1);
        return RETRY_AFTER_MS + millis;
    }

    /**
     * @param retryAfter the wait
     * @return the exception a consumer-side future may be failed with to the same effect
     */
    public static ReplyException exception(Duration retryAfter) {
        return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, RATE_LIMITED, failureMessage(retryAfter));
    }

    /**
     * Reads a request's failure by the convention.
     *
     * @param failure the failure of an event-bus request
     * @param clock   "now" for HTTP-dates
     * @return a {@link RateLimitedException} (with the failure as its cause) if the failure is a
     *         rate limit, empty otherwise
     */
    public static Optional<RateLimitedException> rateLimited(Throwable failure, Clock clock) {
        return rateLimited(failure, clock, RetryAfter.DEFAULT_MAX);
    }

    /**
     * Reads a request's failure by the convention, its wait capped at {@code max}.
     *
     * @param failure the failure of an event-bus request
     * @param clock   "now" for HTTP-dates
     * @param max     the cap on the wait (the limiter's {@code maxRetryAfter}), positive
     * @return a {@link RateLimitedException} (with the failure as its cause) if the failure is a
     *         rate limit, empty otherwise
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    public static Optional<RateLimitedException> rateLimited(Throwable failure, Clock clock, Duration max) {
        if (failure instanceof RateLimitedException rl) {
            return Optional.of(rl);
        }
        if (!(failure instanceof ReplyException re) || re.failureType() != ReplyFailure.RECIPIENT_FAILURE) {
            return Optional.empty();
        }
        int code = re.failureCode();
        if (code != RATE_LIMITED && code != SERVICE_UNAVAILABLE) {
            return Optional.empty();
        }
        Optional<Duration> wait = retryAfter(re.getMessage(), clock, max);
        if (code == SERVICE_UNAVAILABLE && wait.isEmpty()) {
            return Optional.empty();
        }
        RateLimitedException rl = new RateLimitedException(
                "rate-limited by consumer (failure code " + code + "): " + re.getMessage(), wait.orElse(null));
        rl.initCause(re);
        return Optional.of(rl);
    }

    /**
     * @param failureMessage a consumer's failure message
     * @param clock          "now" for HTTP-dates
     * @return the wait it carries, if any is readable; at most {@link RetryAfter#DEFAULT_MAX}
     */
    public static Optional<Duration> retryAfter(String failureMessage, Clock clock) {
        return retryAfter(failureMessage, clock, RetryAfter.DEFAULT_MAX);
    }

    /**
     * @param failureMessage a consumer's failure message
     * @param clock          "now" for HTTP-dates
     * @param max            the cap on the wait (the limiter's {@code maxRetryAfter}), positive
     * @return the wait it carries, if any is readable; at most {@code max}
     * @throws IllegalArgumentException if {@code max} is not positive
     */
    public static Optional<Duration> retryAfter(String failureMessage, Clock clock, Duration max) {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(max, "max");
        if (max.isNegative() || max.isZero()) {
            throw new IllegalArgumentException("max must be positive: " + max);
        }
        if (failureMessage == null) {
            return Optional.empty();
        }
        // Matched in place, ASCII letters without case: lower-casing the text first would
        // shift indices ("İ" lower-cases to two chars) and let look-alikes pass for the keys.
        int ms = Ascii.indexOfIgnoreCase(failureMessage, RETRY_AFTER_MS, 0);
        if (ms >= 0) {
            return millis(value(failureMessage, ms + RETRY_AFTER_MS.length()), max);
        }
        int at = Ascii.indexOfIgnoreCase(failureMessage, RETRY_AFTER, 0);
        if (at >= 0) {
            return RetryAfter.parse(value(failureMessage, at + RETRY_AFTER.length()), clock, max);
        }
        return Optional.empty();
    }

    private static String value(String s, int from) {
        int end = s.indexOf(';', from);
        return (end < 0 ? s.substring(from) : s.substring(from, end)).trim();
    }

    private static Optional<Duration> millis(String digits, Duration max) {
        if (!Ascii.isDigits(digits)) {
            return Optional.empty();
        }
        if (digits.length() > 18) {
            return Optional.of(max);   // past what a long holds: past any cap
        }
        Duration d = Duration.ofMillis(Long.parseLong(digits));
        return Optional.of(d.compareTo(max) > 0 ? max : d);
    }
}
