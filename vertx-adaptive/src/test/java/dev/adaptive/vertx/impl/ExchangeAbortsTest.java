package dev.adaptive.vertx.impl;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Cancellation;
import dev.adaptive.Limiter;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.spi.Execution;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.impl.WebClientInternal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The web client's internal interceptor API that {@link ExchangeAborts} hooks, held to the shape
 * it relies on, so that a Vert.x upgrade that changes it fails here rather than in production: a
 * stock {@link WebClient} is a {@link WebClientInternal} and takes the interceptor; the
 * interceptor sees the attempt's own request object in the {@code SEND_REQUEST} phase and, after
 * {@code next()}, the {@code HttpClientRequest} it resets; a client of another implementation is
 * left alone. (On the module path, without an {@code --add-exports} of the web client's impl
 * package, the hook stands down by design; this suite runs on the class path.)
 */
class ExchangeAbortsTest {

    private Vertx vertx;
    private HttpServer server;
    private Promise<Void> arrived;
    private Promise<Void> closed;

    @BeforeEach
    void startAServerThatNeverAnswers() throws Exception {
        vertx = Vertx.vertx();
        arrived = Promise.promise();
        closed = Promise.promise();
        server = vertx.createHttpServer().requestHandler(request -> {
            request.connection().closeHandler(v -> closed.tryComplete());
            arrived.tryComplete();
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aStockWebClientTakesTheInterceptorOncePerClient() {
        WebClient client = WebClient.create(vertx);
        assertThat(client).isInstanceOf(WebClientInternal.class);
        ExchangeAborts aborts = ExchangeAborts.of(client);
        assertThat(aborts.hooked()).as("the stock client's interceptor chain is reachable").isTrue();
        assertThat(ExchangeAborts.of(client)).isSameAs(aborts);
        assertThat(ExchangeAborts.of(WebClient.create(vertx))).isNotSameAs(aborts);
    }

    @Test
    void aCancelledAttemptResetsItsExchangeAndClosesItsConnection() throws Exception {
        WebClient client = WebClient.create(vertx);
        ExchangeAborts aborts = ExchangeAborts.of(client);
        HttpRequest<Buffer> request = client.get(server.actualPort(), "127.0.0.1", "/never").timeout(0);
        Running attempt = runningAttempt();
        ExchangeAborts.Watch watch = aborts.watch(request, attempt.cancellation());
        Future<HttpResponse<Buffer>> response = request.send();
        arrived.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);

        attempt.execution().cancel(new TaskTimeoutException(Duration.ofMillis(1)));
        // Only a reset through the interceptor's HttpClientRequest ends it: the request has no timeout.
        Throwable failure = response.toCompletionStage().toCompletableFuture()
                .handle((ok, error) -> error).get(30, TimeUnit.SECONDS);
        assertThat(failure).as("the exchange was reset").isNotNull();
        closed.future().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        watch.forget();
    }

    @Test
    void aClientOfAnotherImplementationIsLeftAlone() throws Exception {
        WebClient other = (WebClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{WebClient.class}, (proxy, method, args) -> {
                    throw new UnsupportedOperationException(method.getName());
                });
        ExchangeAborts aborts = ExchangeAborts.of(other);
        assertThat(aborts.hooked()).isFalse();
        aborts.watch(null, runningAttempt().cancellation()).forget();
    }


    /** An attempt running on the engine, held until cancelled, and its cancellation. */
    private record Running(Execution<Void> execution, Cancellation cancellation) {
    }

    /** The engine's own cancellation of an attempt: fired by {@link Execution#cancel}, as by a task timeout. */
    private static Running runningAttempt() throws Exception {
        AdaptiveExecutor executor = AdaptiveExecutor.builder(Limiter.builder().build()).build();
        CompletableFuture<Cancellation> started = new CompletableFuture<>();
        Execution<Void> execution = executor.start(0, ctx -> {
            started.complete(ctx.cancellation());
            return new CompletableFuture<Void>();
        }, null);
        return new Running(execution, started.get(30, TimeUnit.SECONDS));
    }
}
