package dev.adaptive.camel;

import dev.adaptive.testing.Until;
import org.apache.camel.AsyncProducer;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** No route consumes from the name: a clear error at once, or after waiting up to {@code timeout}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MissingConsumerTest extends CamelTestSupport {

    @Test
    void withTimeoutZeroTheExchangeFailsAtOnce() {
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:nobody?timeout=0", 1, i -> "x", Map.of());
        assertThat(batch.asyncReturns()).as("completed synchronously").isZero();
        Exchange e = batch.exchanges().get(0);
        assertThat(e.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class)
                .hasMessageContaining("No consumers available on endpoint: adaptive://nobody")
                .hasMessageContaining("timeout=0");
        batch.stop();
    }

    @Test
    void otherwiseItWaitsUpToTheTimeoutThenFails() throws Exception {
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:absent?timeout=300ms", 3, i -> i, Map.of());
        assertThat(batch.asyncReturns()).isEqualTo(3);
        assertThat(batch.await(30)).allSatisfy(e -> assertThat(e.getException())
                .isInstanceOf(AdaptiveConsumerNotAvailableException.class)
                .hasMessageContaining("none started within timeout=PT0.3S"));
        batch.stop();
    }

    @Test
    void anExchangeEndedByATimerHandsTheCallersRouteToAnotherThread() throws Exception {
        AsyncProducer producer = context.getEndpoint("adaptive:timer?timeout=100ms").createAsyncProducer();
        producer.start();
        Exchange e = context.getEndpoint("adaptive:timer?timeout=100ms").createExchange();
        CompletableFuture<String> thread = new CompletableFuture<>();
        producer.process(e, doneSync -> thread.complete(Thread.currentThread().getName()));

        assertThat(thread.get(30, TimeUnit.SECONDS)).contains("Adaptive[timer]").doesNotContain("AdaptiveScheduler");
        assertThat(e.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class);
        producer.stop();
    }

    @Test
    void aConsumerThatStartsWithinTheTimeoutServesTheWaitingExchanges() throws Exception {
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:soon?timeout=30s", 5, i -> i, Map.of());
        assertThat(batch.done()).noneMatch(f -> f.isDone());

        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:soon").transform(simple("served ${body}"));
            }
        });

        assertThat(batch.await(30)).allSatisfy(e -> {
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getBody(String.class)).startsWith("served ");
        });
        batch.stop();
    }

    /**
     * {@code synchronous=true} runs a first attempt on the caller's thread only from the
     * producer's {@code process}: an exchange that waited for the consumer goes to a worker when
     * the route starts, not to the thread that starts it (which would run every waiting
     * exchange's route in turn, holding the pool's lock, before its start returned).
     */
    @Test
    void aSynchronousExchangeWaitingForTheConsumerRunsOnAWorkerWhenTheRouteStarts() throws Exception {
        CountDownLatch inRoute = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        context.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:late").routeId("late").autoStartup(false).process(e -> {
                    ranOn.set(Thread.currentThread());
                    inRoute.countDown();
                    release.await(30, TimeUnit.SECONDS);
                    e.getMessage().setBody("done");
                });
            }
        });
        CompletableFuture<Object> reply = template.asyncRequestBody("adaptive:late?synchronous=true", "x");
        AdaptiveComponent adaptive = context.getComponent("adaptive", AdaptiveComponent.class);
        // Waiting for the consumer, not only accepted: an exchange counted as pending may still be
        // between submit()'s look for a consumer and its wait, and a start in that instant lets
        // the caller take it back and run it in place, as if the consumer had been there.
        Until.met("the exchange waits in pool late for its consumer", Duration.ofSeconds(30),
                () -> adaptive.stats("late").isPresent() && adaptive.pool("late").awaitingConsumer() == 1);
        AtomicReference<Thread> starter = new AtomicReference<>();
        CompletableFuture<Void> started = CompletableFuture.runAsync(() -> {
            starter.set(Thread.currentThread());
            try {
                context.getRouteController().startRoute("late");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(inRoute.await(30, TimeUnit.SECONDS)).as("the waiting exchange reached the route").isTrue();
            started.get(30, TimeUnit.SECONDS);
            assertThat(ranOn.get()).as("not on the thread that started the route").isNotSameAs(starter.get());
            assertThat(ranOn.get().getName()).contains("Adaptive[late]");
        } finally {
            release.countDown();
        }
        assertThat(reply.get(30, TimeUnit.SECONDS)).isEqualTo("done");
    }
}
