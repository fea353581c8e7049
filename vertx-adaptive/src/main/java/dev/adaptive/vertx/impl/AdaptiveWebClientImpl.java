package dev.adaptive.vertx.impl;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.limit.Outcome;
import dev.adaptive.TaskContext;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RateLimitHeaders;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveWebClient;
import dev.adaptive.vertx.AdaptiveWebClientOptions;
import dev.adaptive.vertx.HttpRateLimitedException;
import dev.adaptive.vertx.HttpStatusException;
import io.vertx.core.Future;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The {@link AdaptiveWebClient}. It reads statuses itself: rate limits and errors fail the
 * attempt with an exception that keeps the response (so the engine's default classification
 * applies), and ignored 4xx answers and the refusal to send a streamed body again (the
 * client's own, which says nothing of the server) are marked by a classifier of its own
 * executor on the shared limiter. With the limiter's {@code quotaHeaders} on, that classifier also reads the
 * quota the response announces ({@link RateLimitHeaders}), of a success and a failure alike,
 * into the outcome, its reset capped at {@code maxRetryAfter}. An attempt whose cancellation
 * fires has its HTTP exchange reset ({@link ExchangeAborts}). Internal; thread-safe.
 */
public final class AdaptiveWebClientImpl implements AdaptiveWebClient {

    private final WebClient client;
    private final AdaptiveLimiterImpl limiter;
    private final AdaptiveWebClientOptions options;
    private final Set<Integer> rateLimit;
    private final Set<Integer> retryAfter;
    private final Set<Integer> errors;
    private final Clock clock;
    private final AdaptiveExecutor executor;
    private final ExchangeAborts aborts;
    /**
     * The limiter's cap on a Retry-After and on an announced quota's reset, which headers are
     * parsed with: the core's 10-minute default would cut a longer wait that a raised
     * {@code maxRetryAfter} lets through.
     */
    private final Duration maxRetryAfter;

    /**
     * @param client  the web client
     * @param limiter the limiter, from {@link AdaptiveLimiter#create}
     * @param options how statuses are read
     * @param clock   "now" for HTTP-dates
     */
    public AdaptiveWebClientImpl(WebClient client, AdaptiveLimiter limiter, AdaptiveWebClientOptions options,
                                 Clock clock) {
        this.client = Objects.requireNonNull(client, "client");
        if (!(Objects.requireNonNull(limiter, "limiter") instanceof AdaptiveLimiterImpl impl)) {
            throw new IllegalArgumentException("limiter must come from AdaptiveLimiter.create: " + limiter);
        }
        this.limiter = impl;
        this.options = new AdaptiveWebClientOptions(Objects.requireNonNull(options, "options"));
        this.rateLimit = this.options.getRateLimitStatuses();
        this.retryAfter = this.options.getRetryAfterStatuses();
        this.errors = this.options.getErrorStatuses();
        this.clock = Objects.requireNonNull(clock, "clock");
        boolean ignore = this.options.isIgnoreClientErrors();
        this.aborts = ExchangeAborts.of(client);
        this.maxRetryAfter = Duration.ofMillis(impl.options().getMaxRetryAfter());
        // Ignored, no sample: a 4xx when asked. One whose body the codec could not read, and the
        // refusal to send a streamed body again, are IgnoredFailures: no sample and no retry.
        this.executor = impl.executor((result, error) ->
                ignore && result instanceof HttpResponse<?> r && r.statusCode() >= 400 && r.statusCode() < 500
                ? Outcome.IGNORED : null,
                impl.options().isQuotaHeaders() ? (result, error) -> quota(result, error) : null);
    }

    /** @return the quota the attempt's response announced, or {@code null} */
    private Quota quota(Object result, Throwable error) {
        HttpResponse<?> response = result instanceof HttpResponse<?> r ? r
                : error instanceof HttpRateLimitedException rl ? rl.response()
                : error instanceof HttpStatusException se ? se.response()
                : error instanceof UnreadClientError u ? u.head : null;
        return response == null ? null : RateLimitHeaders.parse(response::getHeader, clock, maxRetryAfter).orElse(null);
    }

    @Override
    public <T> Future<HttpResponse<T>> send(HttpRequest<T> request,
                                            BiFunction<HttpRequest<T>, TaskContext, Future<HttpResponse<T>>> sender) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(sender, "sender");
        String what = request.method() + " " + (request.host() == null ? "" : request.host() + ":" + request.port())
                + request.uri();
        return limiter.execute(executor, ctx -> {
            HttpRequest<T> copy = request.copy();
            ExchangeAborts.Watch watch = aborts.watch(copy, ctx.cancellation(), ctx.attempt());
            Future<HttpResponse<T>> sent;
            try {
                sent = sender.apply(copy, ctx);
            } catch (RuntimeException | Error e) {
                watch.forget();
                throw e;
            }
            if (sent == null) {
                watch.forget();
                throw new NullPointerException("sender returned a null Future");
            }
            sent.onComplete(done -> watch.forget());
            return sent.transform(done -> done.succeeded() ? read(what, done.result())
                    : readHead(what, watch.head(), watch.bodyReceived(), done.cause()));
        }).recover(error -> {
            Throwable last = LastFailure.of(error);
            return Future.failedFuture(IgnoredFailure.unwrap(last));
        });
    }

    /**
     * An attempt that failed after its answer's head arrived (its body codec failed on a 429's
     * text, say): the status and headers are read as for a whole answer, so a rate limit still
     * pauses and an error status is still one; an ignored client error whose body arrived whole
     * is the codec's failure, ignored and not retried; anything else keeps the attempt's own
     * failure (a 4xx cut halfway through its body is a connection failure, a drop retried).
     */
    private <T> Future<HttpResponse<T>> readHead(String what, HttpResponse<T> head, boolean bodyReceived,
                                                 Throwable failure) {
        if (head != null) {
            Future<HttpResponse<T>> read = read(what, head);
            if (read.failed()) {
                return read;
            }
            if (bodyReceived && options.isIgnoreClientErrors() && head.statusCode() >= 400 && head.statusCode() < 500) {
                // An ignored client error (a gateway's HTML 404 to a JSON client, say): as a 4xx
                // whose body decodes is returned, no sample and no retry; sent again it gets the
                // same answer. Before, the codec's failure was a drop, retried on the error budget.
                // Only once the body arrived whole: a 4xx whose connection closed halfway through
                // its body left the codec nothing to read, and that failure is the connection's.
                return Future.failedFuture(new UnreadClientError(head, failure));
            }
        }
        return Future.failedFuture(failure);
    }

    /**
     * An ignored client error whose body the codec could not read: ends the call at once with
     * no sample. The caller gets the codec's failure itself, its cause; its head keeps the
     * quota the answer announced.
     */
    private static final class UnreadClientError extends IgnoredFailure {
        private static final long serialVersionUID = 1L;
        private final transient HttpResponse<?> head;

        UnreadClientError(HttpResponse<?> head, Throwable codecFailure) {
            super("status " + head.statusCode() + ", body unread: " + codecFailure, codecFailure);
            this.head = head;
        }
    }

    private <T> Future<HttpResponse<T>> read(String what, HttpResponse<T> response) {
        int status = response.statusCode();
        if (rateLimit.contains(status)) {
            return Future.failedFuture(new HttpRateLimitedException(what, response, clock, maxRetryAfter));
        }
        if (retryAfter.contains(status)) {
            // One parse: the wait that makes this status a rate limit is the wait the limiter is
            // told of (a date read twice could be ahead at the first read and past at the second).
            HttpRateLimitedException limited = new HttpRateLimitedException(what, response, clock, maxRetryAfter);
            if (limited.retryAfter().isPresent()) {
                return Future.failedFuture(limited);
            }
        }
        if (errors.contains(status)) {
            return Future.failedFuture(new HttpStatusException(what, response));
        }
        return Future.succeededFuture(response);
    }

    @Override
    public WebClient webClient() {
        return client;
    }

    @Override
    public AdaptiveLimiter limiter() {
        return limiter;
    }

    @Override
    public AdaptiveWebClientOptions options() {
        return new AdaptiveWebClientOptions(options);
    }
}
