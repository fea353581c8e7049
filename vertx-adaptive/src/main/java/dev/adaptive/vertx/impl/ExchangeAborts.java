package dev.adaptive.vertx.impl;

import dev.adaptive.Cancellation;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.impl.ClientPhase;
import io.vertx.ext.web.client.impl.HttpContext;
import io.vertx.ext.web.client.impl.WebClientInternal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Resets the HTTP exchange of an attempt whose cancellation fires (task timeout, limiter close,
 * pool stop), so that the connection it holds goes back to the client's pool at once.
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
    private final Map<HttpRequest<?>, Cancellation> watched = Collections.synchronizedMap(new IdentityHashMap<>());

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
     * @return forgets the request; call it when its exchange has ended
     */
    Runnable watch(HttpRequest<?> request, Cancellation cancellation) {
        if (this == NONE) {
            return () -> { };
        }
        watched.put(request, cancellation);
        return () -> watched.remove(request);
    }

    private void intercept(HttpContext<?> exchange) {
        Cancellation cancellation = exchange.phase() == ClientPhase.SEND_REQUEST
                ? watched.get(exchange.request()) : null;
        exchange.next();
        if (cancellation != null) {
            HttpClientRequest sent = exchange.clientRequest();
            // Runs at once if the attempt was cancelled while it waited for a connection.
            cancellation.onCancel(() -> sent.reset(0, cancellation.reason()));
        }
    }
}
