package dev.adaptive.vertx.impl;

import dev.adaptive.Cancellation;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.streams.Pipe;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import io.vertx.ext.web.client.impl.HttpResponseImpl;
import io.vertx.ext.web.client.impl.WebClientInternal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Resets the HTTP exchange of an attempt whose cancellation fires (task timeout, limiter close,
 * pool stop), so that the connection it holds goes back to the client's pool at once; and keeps
 * the status line and headers of its answer as they arrive, before the request's body codec
 * runs ({@link Watch#head()}).
 *
 * <p>Why the head: a JSON API called with {@code BodyCodec.jsonObject()} often gets its 429 as
 * text or HTML from a gateway; the codec then fails on the body, and the attempt would end as
 * an error with no status to read, so its {@code Retry-After} would pause nothing and the retry
 * would go out inside the window the server announced.
 *
 * <p>Why: a task timeout frees the limiter's slot, but a request the server never answers
 * keeps its HTTP/1 connection; a slow-loris downstream would so take every connection of the
 * client's pool, and later attempts would wait for a connection until their own timeout,
 * never reaching the server, even after it recovered. The public {@code WebClient} API has no
 * way to abort a sent request, so this hooks the client's interceptor chain (the
 * {@code impl} API the web client's own session and OAuth2 wrappers use) to learn each
 * attempt's {@link HttpClientRequest}. A client that is not the stock implementation is left
 * alone: its requests then end only as the server or the client's own timeouts end them; so is
 * every client where that package is not readable (the module path without an
 * {@code --add-exports}).
 *
 * <p>One interceptor per {@link WebClient}, however many adaptive clients wrap it. Thread-safe.
 */
final class ExchangeAborts {

    private static final ExchangeAborts NONE = new ExchangeAborts();
    private static final Map<WebClient, ExchangeAborts> BY_CLIENT = Collections.synchronizedMap(new WeakHashMap<>());

    /** The attempts' request copies, by identity, while their exchange runs. */
    private final Map<HttpRequest<?>, Watch> watched = Collections.synchronizedMap(new IdentityHashMap<>());

    private ExchangeAborts() {
    }

    /**
     * Whether the web client's {@code impl} package is readable from here. On the class path it
     * always is; on the module path the web client does not export it, and touching its types
     * would fail with {@link IllegalAccessError}, unless the application opens it with
     * {@code --add-exports io.vertx.web.client/io.vertx.ext.web.client.impl=dev.adaptive.vertx}.
     */
    private static final boolean IMPL_READABLE = WebClient.class.getModule()
            .isExported("io.vertx.ext.web.client.impl", ExchangeAborts.class.getModule());

    /** @return the aborts of {@code client}, its interceptor added on first use */
    static ExchangeAborts of(WebClient client) {
        if (!IMPL_READABLE || !(client instanceof WebClientInternal internal)) {
            return NONE;
        }
        return BY_CLIENT.computeIfAbsent(client, c -> {
            ExchangeAborts aborts = new ExchangeAborts();
            internal.addInterceptor(aborts::intercept);
            return aborts;
        });
    }

    /** @return whether this client's exchanges are hooked (a stock client, its impl package readable) */
    boolean hooked() {
        return this != NONE;
    }

    /**
     * @param request      the copy one attempt sends
     * @param cancellation the attempt's cancellation
     * @return the attempt's watch; {@link Watch#forget()} it when its exchange has ended
     */
    Watch watch(HttpRequest<?> request, Cancellation cancellation) {
        return watch(request, cancellation, 1);
    }

    /**
     * @param request      the copy one attempt sends
     * @param cancellation the attempt's cancellation
     * @param attempt      the attempt's number, 1 for the first
     * @return the attempt's watch; {@link Watch#forget()} it when its exchange has ended
     */
    Watch watch(HttpRequest<?> request, Cancellation cancellation, int attempt) {
        Watch w = new Watch(this, request, cancellation, attempt);
        if (this != NONE) {
            watched.put(request, w);
        }
        return w;
    }

    private void intercept(HttpContext<?> exchange) {
        Watch w = watched.get(exchange.request());
        ClientPhase phase = exchange.phase();
        if (w != null && w.attempt > 1 && phase == ClientPhase.PREPARE_REQUEST && streamed(exchange.body())) {
            // The first attempt read the stream: sent again it would go empty, and a server that
            // takes an empty body would make the call a success with the body lost.
            exchange.fail(new IgnoredFailure(new IllegalStateException("an adaptive web client cannot send a streamed"
                    + " request body again (attempt " + w.attempt + "): the first attempt read it; send a buffered"
                    + " body to have it retried")));
            return;
        }
        if (w != null && phase == ClientPhase.RECEIVE_RESPONSE) {
            w.answer = exchange.clientResponse();
        }
        exchange.next();
        if (w != null && phase == ClientPhase.SEND_REQUEST) {
            HttpClientRequest sent = exchange.clientRequest();
            // Runs at once if the attempt was cancelled while it waited for a connection.
            w.cancellation.onCancel(() -> sent.reset(0, w.cancellation.reason()));
        }
    }

    /** @return whether a request body is a stream, which the web client holds as a {@link Pipe} from it */
    private static boolean streamed(Object body) {
        return body instanceof Pipe<?> || body instanceof ReadStream<?>;
    }

    /** One attempt's exchange, while it runs. */
    static final class Watch {
        private final ExchangeAborts owner;
        private final HttpRequest<?> request;
        private final Cancellation cancellation;
        private final int attempt;
        private volatile HttpClientResponse answer;

        private Watch(ExchangeAborts owner, HttpRequest<?> request, Cancellation cancellation, int attempt) {
            this.owner = owner;
            this.request = request;
            this.cancellation = cancellation;
            this.attempt = attempt;
        }

        /** Stops watching: call it when the exchange has ended. */
        void forget() {
            if (owner != NONE) {
                owner.watched.remove(request);
            }
        }

        /**
         * @param <T> the response type
         * @return the answer's status line and headers without a body, or {@code null} if none
         *         arrived (or the client is not hooked)
         */
        <T> HttpResponse<T> head() {
            HttpClientResponse r = answer;
            return r == null ? null : new HttpResponseImpl<>(r.version(), r.statusCode(), r.statusMessage(), r.headers(),
                    MultiMap.caseInsensitiveMultiMap(), r.cookies(), null, List.of());
        }

        /**
         * @return whether the answer's body arrived to its end, so that a failure after the
         *         head is the body codec's own; {@code false} while it is still coming or when it
         *         was cut (the connection closed or the stream reset halfway), a transport failure
         */
        boolean bodyReceived() {
            HttpClientResponse r = answer;
            if (r == null) {
                return false;
            }
            try {
                // The response refuses end() once its end has arrived (it then holds its
                // trailers); before that it only hands out the future of its end.
                r.end();
                return false;
            } catch (IllegalStateException ended) {
                return true;
            }
        }
    }
}
