package dev.adaptive.camel;

import dev.adaptive.TaskTimeoutException;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.AsyncProducer;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.SafeCopyProperty;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code synchronous=true}, and transacted exchanges: the first attempt of an exchange admitted at
 * once runs on the caller's thread and on the caller's exchange itself, like {@code direct:};
 * everything that waits still runs on the pool's workers, the caller's thread is never
 * interrupted, and neither a retry nor the caller sees what a failed first attempt wrote.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SynchronousTest extends CamelTestSupport {

    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean routeSawInterrupt = new AtomicBoolean();
    private final AtomicBoolean slotFreedWhileInRoute = new AtomicBoolean();
    private final AtomicBoolean calledBackWhileInRoute = new AtomicBoolean();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    /** Counted down when the slow pool's attempt releases its slot. */
    private final CountDownLatch slotFreed = new CountDownLatch(1);

    @Override
    protected void bindToRegistry(org.apache.camel.spi.Registry registry) {
        registry.bind("slowEnds", (TraceListener) event -> {
            if (event instanceof TraceEvent.TaskEnd) {
                slotFreed.countDown();
            }
        });
    }

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
                from("adaptive:dirty?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    Integer attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + e.getMessage().getBody(String.class) + ":"
                            + e.getMessage().getHeader("left") + ":" + e.getProperty("left") + ":"
                            + e.getVariable("left") + ":" + e.getProperty(ExchangePropertyKey.CHARSET_NAME));
                    if (attempt == 1) {
                        e.getMessage().setBody("half done");
                        e.getMessage().setHeader("left", "by attempt 1");
                        e.setProperty("left", "by attempt 1");
                        e.setVariable("left", "by attempt 1");
                        e.setProperty(ExchangePropertyKey.CHARSET_NAME, "ISO-8859-1");
                        e.setRollbackOnlyLast(true);
                        throw new IllegalStateException("first attempt fails");
                    }
                    e.getMessage().setBody("done by " + attempt);
                });
                from("adaptive:carry?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    Integer attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    Context c = e.getExchangeExtension().getSafeCopyProperty(Context.KEY, Context.class);
                    seen.add(attempt + ":" + (c == null ? "none" : c.name));
                    if (attempt == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                });
                from("adaptive:always?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    e.getMessage().setHeader("left", "by attempt " + e.getProperty(AdaptiveConstants.ATTEMPT));
                    throw new IllegalStateException("attempt fails");
                });
                from("adaptive:slow?taskTimeout=200ms&retries=0&traceListener=#slowEnds").process(e -> {
                    e.getMessage().setBody("written after the timeout");
                    // The timeout frees the slot while this route still runs on the caller's
                    // exchange; the exchange's end waits for the route to return.
                    try {
                        slotFreedWhileInRoute.set(slotFreed.await(30, TimeUnit.SECONDS));
                        // Time enough for an end that did not wait to call the caller back.
                        calledBackWhileInRoute.set(release.await(1, TimeUnit.SECONDS));
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
    void synchronousRunsTheFirstAttemptOnTheCallersExchangeItself() {
        Exchange sent = template.request("adaptive:where?synchronous=true", x -> x.getMessage().setBody("x"));
        Exchange byDefault = template.request("adaptive:where", x -> x.getMessage().setBody("x"));
        assertThat(sent.getProperty(AdaptiveConstants.ATTEMPT, Integer.class)).isEqualTo(1);
        assertThat(sent.getProperty(ExchangePropertyKey.CORRELATION_ID)).as("no copy correlated to it").isNull();
        assertThat(byDefault.getProperty(ExchangePropertyKey.CORRELATION_ID)).as("the attempt's copy")
                .isEqualTo(byDefault.getExchangeId());
    }

    @Test
    void aRetryAndTheCallerSeeNothingOfAFailedFirstAttemptOnTheCallersExchange() {
        Exchange e = template.request("adaptive:dirty?synchronous=true", x -> {
            x.getMessage().setBody("x");
            x.setProperty(ExchangePropertyKey.CHARSET_NAME, "UTF-8");
        });
        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly("1:x:null:null:null:UTF-8", "2:x:null:null:null:UTF-8");
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("done by 2");
        assertThat(e.getMessage().getHeader("left")).isNull();
        assertThat(e.getProperty("left")).isNull();
        assertThat(e.getVariable("left")).isNull();
        assertThat(e.getProperty(ExchangePropertyKey.CHARSET_NAME)).isEqualTo("UTF-8");
        assertThat(e.isRollbackOnlyLast()).isFalse();
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        // The retry is correlated to the caller's exchange, as every attempt's copy is.
        assertThat(e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class)).isEqualTo(2);
        assertThat(e.getProperty(ExchangePropertyKey.CORRELATION_ID)).isEqualTo(e.getExchangeId());
    }

    /** A safe-copy property (a tracer's or a session's context): copied into each attempt's exchange. */
    private record Context(String name) implements SafeCopyProperty {
        static final String KEY = "test.context";

        @Override
        public SafeCopyProperty safeCopy() {
            return new Context(name + "'");
        }
    }

    @Test
    void aRetryGetsTheCallersSafeCopyPropertiesAsWithoutTheOption() {
        for (String uri : List.of("adaptive:carry", "adaptive:carry?synchronous=true")) {
            seen.clear();
            Exchange e = template.request(uri, x -> x.getExchangeExtension().setSafeCopyProperty(Context.KEY, new Context("sent")));
            assertThat(e.getException()).as(uri).isNull();
            if (uri.endsWith("true")) {
                // The first attempt runs on the caller's exchange itself; the retry on a copy.
                assertThat(seen).as(uri).containsExactly("1:sent", "2:sent'");
            } else {
                assertThat(seen).as(uri).containsExactly("1:sent'", "2:sent'");
            }
        }
    }

    @Test
    void whenEveryAttemptFailsTheCallerGetsTheLastOnesResult() {
        Exchange e = template.request("adaptive:always?synchronous=true", x -> x.getMessage().setBody("x"));
        assertThat(e.getException()).isInstanceOf(IllegalStateException.class);
        assertThat(e.getMessage().getHeader("left")).isEqualTo("by attempt 2");
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
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

    /**
     * An exchange whose first attempt ran on the caller's thread and whose route was synchronous
     * has ended when the producer returns: it says so to Camel, which then goes on as after
     * {@code direct:} instead of parking the thread on a latch it will find already open. One
     * that ends on another thread (a retry on a worker) says it is asynchronous. Either way the
     * callback comes once and says what {@code process} returned, as Camel requires.
     */
    @Test
    void anExchangeThatEndsOnTheCallersThreadIsDoneSynchronously() throws Exception {
        assertThat(sendWithProducer("adaptive:where?synchronous=true")).as("synchronous, ended on this thread")
                .containsExactly("returned true", "done true");
        // By default the attempt runs on a worker, which may end it before process() returns
        // (then as synchronous) or after: either way the callback says what process() returned.
        assertThat(sendWithProducer("adaptive:where")).as("by default, on a worker")
                .isIn(List.of("returned false", "done false"), List.of("returned true", "done true"));
        assertThat(sendWithProducer("adaptive:flaky?synchronous=true")).as("synchronous, retried on a worker")
                .containsExactly("returned false", "done false");
    }

    /**
     * An exchange that ends in its start is never in the pool's live set; one that goes on
     * elsewhere is, until it ends, even when it ends on another thread before the add: none is
     * left behind.
     */
    @Test
    void noExchangeIsLeftInThePoolsLiveSet() throws Exception {
        for (int i = 0; i < 50; i++) {
            template.requestBody("adaptive:where?synchronous=true", "x");
            template.requestBody("adaptive:where", "x");
        }
        // Many at once, so that some end on a worker before their sender has added them; and
        // retries (few: the retry budget refuses a storm of them), which go on on workers.
        Map<String, Integer> batches = Map.of("adaptive:where", 300, "adaptive:flaky?synchronous=true", 20);
        for (Map.Entry<String, Integer> b : batches.entrySet()) {
            AsyncSends.Batch batch = AsyncSends.send(context, b.getKey(), b.getValue(), j -> "x" + j, Map.of());
            assertThat(batch.await(30)).hasSize(b.getValue()).allSatisfy(e -> assertThat(e.getException()).isNull());
            batch.stop();
        }
        AdaptiveComponent component = context.getComponent("adaptive", AdaptiveComponent.class);
        for (String name : List.of("where", "flaky")) {
            assertThat(component.pool(name).live()).as(name).isZero();
            assertThat(component.pool(name).pending()).as(name).isZero();
        }
    }

    /** @return what process() returned and what its callback heard, in order of return, then callback */
    private List<String> sendWithProducer(String uri) throws Exception {
        AsyncProducer producer = context.getEndpoint(uri).createAsyncProducer();
        producer.start();
        try {
            Exchange e = context.getEndpoint(uri).createExchange();
            e.getMessage().setBody("x");
            List<Boolean> heard = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(1);
            boolean returned = producer.process(e, doneSync -> {
                heard.add(doneSync);
                done.countDown();
            });
            assertThat(done.await(30, TimeUnit.SECONDS)).as("called back").isTrue();
            assertThat(e.getException()).isNull();
            assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isPositive();
            List<String> seenHere = new java.util.ArrayList<>();
            seenHere.add("returned " + returned);
            heard.forEach(d -> seenHere.add("done " + d));
            return seenHere;
        } finally {
            producer.stop();
        }
    }

    @Test
    void aTaskTimeoutFailsTheExchangeButDoesNotInterruptTheCallersThread() throws Exception {
        AsyncProducer producer = context.getEndpoint("adaptive:slow?synchronous=true").createAsyncProducer();
        producer.start();
        Exchange e = context.getEndpoint("adaptive:slow?synchronous=true").createExchange();
        e.getMessage().setBody("x");
        // The route runs on this thread and on this exchange, and stays in until the timeout has
        // freed its slot: the exchange ends only once the route has returned.
        producer.process(e, doneSync -> release.countDown());
        assertThat(routeSawInterrupt.get()).as("the route's thread was interrupted").isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(slotFreedWhileInRoute.get()).as("the timeout freed the slot while the route ran").isTrue();
        assertThat(calledBackWhileInRoute.get()).as("the exchange ended while the route still wrote it").isFalse();
        assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(e.getException()).isInstanceOf(TaskTimeoutException.class);
        assertThat(e.getMessage().getBody(String.class)).as("the caller's exchange as sent").isEqualTo("x");
        producer.stop();
    }
}
