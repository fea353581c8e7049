package dev.adaptive.camel;

import dev.adaptive.TaskTimeoutException;
import org.apache.camel.AsyncProducer;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code synchronous=true}, and transacted exchanges: the first attempt of an exchange admitted at
 * once runs on the caller's thread, like {@code direct:}; everything that waits still runs on
 * the pool's workers, and the caller's thread is never interrupted.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SynchronousTest extends CamelTestSupport {

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean routeSawInterrupt = new AtomicBoolean();

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:where").setBody(e -> Thread.currentThread().getName());
                from("adaptive:flaky?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    if (e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class) == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    e.getMessage().setBody(Thread.currentThread().getName());
                });
                from("adaptive:slow?taskTimeout=200ms&retries=0").process(e -> {
                    try {
                        assertThat(release.await(30, TimeUnit.SECONDS)).as("ended by the timeout").isTrue();
                    } catch (InterruptedException ex) {
                        routeSawInterrupt.set(true);
                    }
                });
            }
        };
    }

    @Test
    void byDefaultTheAttemptRunsOnAWorkerThread() {
        String thread = template.requestBody("adaptive:where", "x", String.class);
        assertThat(thread).isNotEqualTo(Thread.currentThread().getName()).contains("Adaptive[where]");
    }

    @Test
    void synchronousRunsTheFirstAttemptOnTheCallersThread() {
        String thread = template.requestBody("adaptive:where?synchronous=true", "x", String.class);
        assertThat(thread).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void aTransactedExchangeStaysOnItsThreadWithoutTheOption() {
        Exchange e = template.request("adaptive:where", x -> x.getExchangeExtension().setTransacted(true));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo(Thread.currentThread().getName());
    }

    @Test
    void aRetryRunsOnAWorkerThreadEvenWhenSynchronous() {
        Exchange e = template.request("adaptive:flaky?synchronous=true", x -> x.getMessage().setBody("x"));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        assertThat(e.getMessage().getBody(String.class)).isNotEqualTo(Thread.currentThread().getName())
                .contains("Adaptive[flaky]");
    }

    @Test
    void exchangesThatWaitForASlotRunOnWorkersAndAllComplete() throws Exception {
        AsyncSends.Batch batch = AsyncSends.send(context, "adaptive:where?synchronous=true&maxLimit=2&initialLimit=2", 40,
                i -> "x" + i, Map.of());
        assertThat(batch.await(30)).hasSize(40).allSatisfy(e -> assertThat(e.getException()).isNull());
        batch.stop();
    }

    @Test
    void aTaskTimeoutFailsTheExchangeButDoesNotInterruptTheCallersThread() throws Exception {
        AsyncProducer producer = context.getEndpoint("adaptive:slow?synchronous=true").createAsyncProducer();
        producer.start();
        Exchange e = context.getEndpoint("adaptive:slow?synchronous=true").createExchange();
        e.getMessage().setBody("x");
        // The route runs on this thread and waits until the exchange has ended: only the timeout
        // can end it, from a timer, while this thread is still inside the route.
        producer.process(e, doneSync -> release.countDown());
        assertThat(routeSawInterrupt.get()).as("the route's thread was interrupted").isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(e.getException()).isInstanceOf(TaskTimeoutException.class);
        producer.stop();
    }
}
