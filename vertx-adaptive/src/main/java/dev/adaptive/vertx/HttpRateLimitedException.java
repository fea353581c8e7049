package dev.adaptive.vertx;

import dev.adaptive.RateLimitedException;
import dev.adaptive.retry.RetryAfter;
import io.vertx.ext.web.client.HttpResponse;

import java.time.Clock;
import java.time.Duration;

/**
 * An HTTP answer that {@link AdaptiveWebClient} counts as a rate limit (429, or 503 with a
 * usable {@code Retry-After}): the limiter pauses for the announced wait and the request is
 * retried on the rate-limit budget. Once that budget runs out, the call fails with it, and the
 * last response is kept.
 */
public class HttpRateLimitedException extends RateLimitedException {

    private final transient HttpResponse<?> response;

    /**
     * @param what     the request, for the message
     * @param response the response; its {@code Retry-After} is parsed (delta-seconds or HTTP-date),
     *                 capped at {@link RetryAfter#DEFAULT_MAX}
     * @param clock    "now" for HTTP-dates
     */
    public HttpRateLimitedException(String what, HttpResponse<?> response, Clock clock) {
        this(what, response, clock, RetryAfter.DEFAULT_MAX);
    }

    /**
     * @param what          the request, for the message
     * @param response      the response; its {@code Retry-After} is parsed (delta-seconds or HTTP-date)
     * @param clock         "now" for HTTP-dates
     * @param maxRetryAfter the cap on the parsed wait: the limiter's {@code maxRetryAfter}, positive
     */
    public HttpRateLimitedException(String what, HttpResponse<?> response, Clock clock, Duration maxRetryAfter) {
        super("HTTP " + response.statusCode() + " " + response.statusMessage() + " from " + what
                + retryAfterText(response), response.getHeader("Retry-After"), clock, maxRetryAfter);
        this.response = response;
    }

    private static String retryAfterText(HttpResponse<?> response) {
        String ra = response.getHeader("Retry-After");
        return ra == null ? "" : ", Retry-After: " + ra;
    }

    /** @return the status code */
    public int statusCode() {
        return response.statusCode();
    }

    /** @return the last response */
    public HttpResponse<?> response() {
        return response;
    }
}
