package dev.adaptive.camel;

import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.internal.Causes;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RateLimitHeaders;
import dev.adaptive.retry.RetryAfter;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.spi.HttpResponseAware;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pool's default reading of an attempt (see {@link ExchangeClassifier}):
 * <ul>
 *   <li>a {@link RateLimitedException} in the exception's cause chain: rate-limited with its wait;</li>
 *   <li>an HTTP failure in the cause chain (camel-http's {@code HttpOperationFailedException},
 *       or any {@link HttpResponseAware} exception) or, without exception, a
 *       {@code CamelHttpResponseCode} header: a status in {@code rateLimitStatusCodes} is
 *       rate-limited with the response's {@code Retry-After}, where 429 always counts and
 *       every other listed status (503 by default) only with a valid {@code Retry-After};</li>
 *   <li>any other exception: dropped; no exception: success.</li>
 * </ul>
 * Retry-After values are parsed by {@link RetryAfter} (delta-seconds or HTTP-date; garbage,
 * negative and past dates mean none) and capped at {@code maxRetryAfter}. With
 * {@code quotaHeaders}, the quota the response announces ({@link RateLimitHeaders}: the
 * {@code RateLimit} fields, {@code X-RateLimit-*}, {@code X-RateLimit-*-Requests}), read from
 * the message headers of a success and from camel-http's failure alike, travels in the
 * outcome, its reset capped at {@code maxRetryAfter} too.
 *
 * <p>Immutable and thread-safe.
 */
final class HttpStatusClassifier implements ExchangeClassifier {

    private static final boolean HTTP_BASE = present("org.apache.camel.http.base.HttpOperationFailedException");

    private final Set<Integer> rateLimitStatusCodes;
    private final Duration maxRetryAfter;
    private final Clock clock;
    private final boolean quotaHeaders;

    /**
     * @param rateLimitStatusCodes statuses read as rate limits
     * @param maxRetryAfter        cap on a parsed Retry-After and on an announced quota's reset
     * @param clock                the wall clock HTTP-date values are relative to
     * @param quotaHeaders         whether to read the quota the response announces
     */
    HttpStatusClassifier(Set<Integer> rateLimitStatusCodes, Duration maxRetryAfter, Clock clock, boolean quotaHeaders) {
        this.rateLimitStatusCodes = Set.copyOf(rateLimitStatusCodes);
        this.maxRetryAfter = maxRetryAfter;
        this.clock = clock;
        this.quotaHeaders = quotaHeaders;
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, HttpStatusClassifier.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** @return whether camel-http-base was found, so its exception is read */
    static boolean httpBasePresent() {
        return HTTP_BASE;
    }

    @Override
    public Outcome classify(Exchange attempt) {
        Exception error = attempt.getException();
        if (error != null) {
            return classifyError(error);
        }
        Message m = attempt.getMessage();
        // getHeaders() would create an empty map on a message that has none, which the
        // caller's message then copies: hasHeaders() reads without creating.
        if (!m.hasHeaders()) {
            return Outcome.SUCCESS;
        }
        // The answer the route got: not what the caller's message carried in from another call.
        Map<String, Object> headers = CarriedAnswer.fresh(attempt);
        Integer status = headers.get(Exchange.HTTP_RESPONSE_CODE) == null ? null
                : m.getHeader(Exchange.HTTP_RESPONSE_CODE, Integer.class);
        if (status != null) {
            Outcome o = rateLimited(new HttpAnswer(status, headers));
            if (o != null) {
                return o;
            }
        }
        return withQuota(Outcome.SUCCESS, headers);
    }

    /** @return {@code o} with the quota the headers announce, if they are read and announce one */
    private Outcome withQuota(Outcome o, Map<String, ?> headers) {
        if (!quotaHeaders || headers == null || headers.isEmpty()) {
            return o;
        }
        Optional<Quota> q = RateLimitHeaders.parse(name -> RetryAfterHeader.find(headers, name), clock, maxRetryAfter);
        return q.isPresent() ? o.withQuota(q.get()) : o;
    }

    private Outcome classifyError(Throwable error) {
        Outcome o = Causes.first(error, this::classifyLink);
        return o != null ? o : Outcome.DROPPED;
    }

    /** @return what one link of the cause chain says, or {@code null} if it says nothing */
    private Outcome classifyLink(Throwable t) {
        if (t instanceof RateLimitedException rl) {
            return Outcome.rateLimited(rl.retryAfter().map(this::cap).orElse(null));
        }
        HttpAnswer answer = HTTP_BASE ? HttpFailures.answer(t) : null;
        if (answer == null && t instanceof HttpResponseAware aware && aware.getHttpResponseCode() > 0) {
            answer = new HttpAnswer(aware.getHttpResponseCode(), null);
        }
        if (answer == null) {
            return null;
        }
        Outcome o = rateLimited(answer);
        return withQuota(o != null ? o : Outcome.DROPPED, answer.headers());
    }

    private Outcome rateLimited(HttpAnswer answer) {
        if (!rateLimitStatusCodes.contains(answer.status())) {
            return null;
        }
        Optional<Duration> wait = RetryAfter.parse(answer.retryAfter(), clock, maxRetryAfter);
        if (answer.status() == 429) {
            return withQuota(Outcome.rateLimited(wait.orElse(null)), answer.headers());
        }
        return wait.map(w -> withQuota(Outcome.rateLimited(w), answer.headers())).orElse(null);
    }

    private Duration cap(Duration d) {
        return d.compareTo(maxRetryAfter) > 0 ? maxRetryAfter : d;
    }
}
