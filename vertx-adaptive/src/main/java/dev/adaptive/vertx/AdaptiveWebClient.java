package dev.adaptive.vertx;

import dev.adaptive.TaskContext;
import dev.adaptive.vertx.impl.AdaptiveWebClientImpl;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

import java.time.Clock;
import java.util.function.BiFunction;

/**
 * A {@link WebClient} whose requests go through an {@link AdaptiveLimiter}: concurrency adapts
 * to the server's latency and errors, and a 429, or a 503 with {@code Retry-After}
 * (delta-seconds or HTTP-date), pauses every request of the limiter until the announced time
 * (at most the limiter's {@code maxRetryAfter} away), after which the request is sent again. Statuses are read as {@link AdaptiveWebClientOptions}
 * says.
 *
 * <pre>{@code
 * AdaptiveWebClient client = AdaptiveWebClient.create(WebClient.create(vertx),
 *     AdaptiveLimiter.create(vertx, new AdaptiveOptions().setMaxLimit(50)));
 * client.send(client.get(8080, "localhost", "/items/42"))
 *       .onSuccess(response -> ...);
 * }</pre>
 *
 * <p>Each attempt sends a {@linkplain HttpRequest#copy() copy} of the request, so one request
 * may be retried. Results: the response, for a success or an ignored 4xx; once the budgets run
 * out (the limiter's retry budget refusing a retry included), an {@link HttpRateLimitedException}
 * or {@link HttpStatusException} holding the last response, or the last connection failure; the
 * status and headers are read before the body codec runs, so a 429 whose body the codec cannot
 * decode still pauses, and an ignored 4xx whose body arrived whole but it cannot decode fails
 * with the codec's exception at once, with no sample and no retry (an answer cut halfway through
 * its body is a connection failure, retried). A streamed request body cannot be sent again: its retry fails at once
 * with an {@link IllegalStateException} instead of sending it empty, an attempt ignored by the
 * limit and not retried (no drop: nothing was sent, so it says nothing of the server); a streaming response codec
 * receives every attempt's body: use buffered bodies and a buffering codec. When an attempt's cancellation fires (task timeout, limiter close, pool
 * stop), its HTTP exchange is reset, so a server that never answers cannot keep the client's
 * connections (done for the stock {@link WebClient} implementation).
 *
 * <p>Thread-safe; completions are delivered on the caller's context.
 */
public interface AdaptiveWebClient {

    /**
     * @param client  the web client requests are sent with
     * @param limiter the limiter they go through
     * @return a client with the default {@link AdaptiveWebClientOptions}
     */
    static AdaptiveWebClient create(WebClient client, AdaptiveLimiter limiter) {
        return create(client, limiter, new AdaptiveWebClientOptions());
    }

    /**
     * @param client  the web client requests are sent with
     * @param limiter the limiter they go through
     * @param options how statuses are read, copied
     * @return a client
     */
    static AdaptiveWebClient create(WebClient client, AdaptiveLimiter limiter, AdaptiveWebClientOptions options) {
        return new AdaptiveWebClientImpl(client, limiter, options, Clock.systemUTC());
    }

    /**
     * @param client  the web client requests are sent with
     * @param limiter the limiter they go through
     * @param options how statuses are read, copied
     * @param clock   "now" for HTTP-dates in {@code Retry-After}
     * @return a client
     */
    static AdaptiveWebClient create(WebClient client, AdaptiveLimiter limiter, AdaptiveWebClientOptions options,
                                    Clock clock) {
        return new AdaptiveWebClientImpl(client, limiter, options, clock);
    }

    /**
     * @param method the method
     * @param port   the port
     * @param host   the host
     * @param uri    the request URI
     * @return a request of the wrapped client, to hand to one of the {@code send} methods
     */
    default HttpRequest<Buffer> request(HttpMethod method, int port, String host, String uri) {
        return webClient().request(method, port, host, uri);
    }

    /**
     * @param port the port
     * @param host the host
     * @param uri  the request URI
     * @return a GET request of the wrapped client
     */
    default HttpRequest<Buffer> get(int port, String host, String uri) {
        return webClient().get(port, host, uri);
    }

    /**
     * @param port the port
     * @param host the host
     * @param uri  the request URI
     * @return a POST request of the wrapped client
     */
    default HttpRequest<Buffer> post(int port, String host, String uri) {
        return webClient().post(port, host, uri);
    }

    /**
     * @param absoluteUri the URL
     * @return a GET request of the wrapped client
     */
    default HttpRequest<Buffer> getAbs(String absoluteUri) {
        return webClient().getAbs(absoluteUri);
    }

    /**
     * @param request the request
     * @param <T>     the body type
     * @return the response, or the last failure
     */
    default <T> Future<HttpResponse<T>> send(HttpRequest<T> request) {
        return send(request, (r, ctx) -> r.send());
    }

    /**
     * @param request the request
     * @param body    the body
     * @param <T>     the response body type
     * @return the response, or the last failure
     */
    default <T> Future<HttpResponse<T>> sendBuffer(HttpRequest<T> request, Buffer body) {
        return send(request, (r, ctx) -> r.sendBuffer(body));
    }

    /**
     * @param request the request
     * @param body    the JSON body
     * @param <T>     the response body type
     * @return the response, or the last failure
     */
    default <T> Future<HttpResponse<T>> sendJsonObject(HttpRequest<T> request, JsonObject body) {
        return send(request, (r, ctx) -> r.sendJsonObject(body));
    }

    /**
     * @param request the request
     * @param body    the body, encoded as JSON
     * @param <T>     the response body type
     * @return the response, or the last failure
     */
    default <T> Future<HttpResponse<T>> sendJson(HttpRequest<T> request, Object body) {
        return send(request, (r, ctx) -> r.sendJson(body));
    }

    /**
     * @param request the request
     * @param form    the form
     * @param <T>     the response body type
     * @return the response, or the last failure
     */
    default <T> Future<HttpResponse<T>> sendForm(HttpRequest<T> request, MultiMap form) {
        return send(request, (r, ctx) -> r.sendForm(form));
    }

    /**
     * The general form: {@code sender} is called once per attempt with a fresh copy of
     * {@code request} and the attempt's context (to add a header per attempt, say).
     *
     * @param request the request
     * @param sender  sends the copy
     * @param <T>     the response body type
     * @return the response, or the last failure
     */
    <T> Future<HttpResponse<T>> send(HttpRequest<T> request,
                                     BiFunction<HttpRequest<T>, TaskContext, Future<HttpResponse<T>>> sender);

    /** @return the wrapped client */
    WebClient webClient();

    /** @return the limiter */
    AdaptiveLimiter limiter();

    /** @return a copy of the options */
    AdaptiveWebClientOptions options();
}
