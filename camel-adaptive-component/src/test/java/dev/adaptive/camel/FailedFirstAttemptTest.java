package dev.adaptive.camel;

import dev.adaptive.testing.Until;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.support.processor.idempotent.MemoryIdempotentRepository;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a failed first attempt leaves for its retry and for the caller, in both modes: its
 * on-completions are told of its failure when it fails (with synchronous=true it ran in the
 * caller's unit of work, not one of its own), so an idempotent consumer lets the retry through;
 * a stream body sent straight to the endpoint is read whole by the retry too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailedFirstAttemptTest extends CamelTestSupport {

    private final List<String> done = new CopyOnWriteArrayList<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();
    private final AtomicInteger callerDone = new AtomicInteger();
    private final CountDownLatch firstSlowAttemptTimedOut = new CountDownLatch(1);

    @Override
    protected void bindToRegistry(org.apache.camel.spi.Registry registry) {
        registry.bind("slowEnds", (TraceListener) event -> {
            if (event instanceof TraceEvent.TaskEnd end && end.attempt() == 1) {
                firstSlowAttemptTimedOut.countDown();
            }
        });
    }

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("direct:sync").to("adaptive:uow?synchronous=true");
                from("direct:default").to("adaptive:uow");
                // A consumer route whose work registers an on-completion (as a file, JMS or
                // idempotent consumer does); its first attempt fails and is retried.
                from("adaptive:uow?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    e.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                        @Override
                        public void onComplete(Exchange x) {
                            done.add(attempt + ":complete");
                        }

                        @Override
                        public void onFailure(Exchange x) {
                            done.add(attempt + ":failure");
                        }
                    });
                    if (attempt == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    e.getMessage().setBody("done by " + attempt);
                });

                from("direct:idemSync").to("adaptive:idem?synchronous=true");
                from("direct:idemDefault").to("adaptive:idem");
                from("adaptive:idem?retries=1&minDelay=10ms&jitter=0")
                        .idempotentConsumer(header("orderId"), MemoryIdempotentRepository.memoryIdempotentRepository())
                        .process(e -> {
                            runs.incrementAndGet();
                            int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                            if (attempt == 1) {
                                throw new IllegalStateException("first attempt fails");
                            }
                            e.getMessage().setBody("charged by attempt " + attempt);
                        });

                from("direct:streamSync").to("adaptive:stream?synchronous=true");
                from("direct:streamDefault").to("adaptive:stream");
                from("adaptive:stream?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    String body = e.getMessage().getBody(String.class);
                    seen.add(attempt + ":" + body);
                    if (attempt == 1) {
                        throw new IllegalStateException("first attempt fails");
                    }
                    e.getMessage().setBody("got " + body);
                });

                from("direct:slowSync").onCompletion().process(e -> callerDone.incrementAndGet()).end()
                        .to("adaptive:slow?synchronous=true");
                from("adaptive:slow?retries=1&taskTimeout=300ms&minDelay=10ms&jitter=0&traceListener=#slowEnds")
                        .process(e -> {
                            int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                            if (attempt == 1) {
                                // Writes only once the engine has ended the attempt (timed out) and
                                // the retry is under way: the late writes of a stray attempt.
                                firstSlowAttemptTimedOut.await(30, TimeUnit.SECONDS);
                                e.getMessage().setHeader("late", "attempt 1");
                                e.setProperty("late", "attempt 1");
                                e.setVariable("late", "attempt 1");
                                e.getMessage().setBody("late body");
                                return;
                            }
                            e.getMessage().setBody("done by " + attempt);
                        });
            }
        };
    }

    /** Default mode: each attempt's on-completion runs once, with that attempt's outcome. */
    @Test
    void byDefaultAFailedAttemptsOnCompletionSeesItsFailure() throws Exception {
        Exchange e = template.request("direct:default", x -> x.getMessage().setBody("x"));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("done by 2");
        awaitDone(2);
        assertThat(done).containsExactlyInAnyOrder("1:failure", "2:complete");
    }

    /**
     * synchronous=true: the failed first attempt's on-completion should likewise hear of its
     * failure, not of the caller's later success.
     */
    @Test
    void synchronousAFailedAttemptsOnCompletionSeesItsFailure() throws Exception {
        Exchange e = template.request("direct:sync", x -> x.getMessage().setBody("x"));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("done by 2");
        awaitDone(2);
        assertThat(done).containsExactlyInAnyOrder("1:failure", "2:complete");
    }

    /** Default mode: the idempotent consumer forgets the key of the failed attempt, so the retry runs. */
    @Test
    void byDefaultAnIdempotentConsumerLetsTheRetryThrough() {
        Exchange e = template.request("direct:idemDefault", x -> {
            x.getMessage().setBody("order");
            x.getMessage().setHeader("orderId", "42");
        });
        assertThat(e.getException()).isNull();
        assertThat(runs.get()).isEqualTo(2);
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("charged by attempt 2");
    }

    /** synchronous=true: the same route, the same retry, should run the work again. */
    @Test
    void synchronousAnIdempotentConsumerLetsTheRetryThrough() {
        Exchange e = template.request("direct:idemSync", x -> {
            x.getMessage().setBody("order");
            x.getMessage().setHeader("orderId", "43");
        });
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("charged by attempt 2");
        assertThat(runs.get()).as("the route's work ran for the retry").isEqualTo(2);
    }

    @Test
    void anInputStreamBodyIsReadWholeByTheRetry() {
        SoftAssertions soft = new SoftAssertions();
        for (String uri : List.of("direct:streamDefault", "direct:streamSync", "adaptive:stream",
                "adaptive:stream?synchronous=true")) {
            seen.clear();
            // Not a ByteArrayInputStream (which Camel can reset): a stream read once, as a socket's.
            Exchange e = template.request(uri, x -> x.getMessage().setBody(new SequenceInputStream(
                    new ByteArrayInputStream("payload".getBytes(StandardCharsets.UTF_8)), InputStream.nullInputStream())));
            soft.assertThat(e.getException()).as(uri).isNull();
            soft.assertThat(List.copyOf(seen)).as(uri).containsExactly("1:payload", "2:payload");
            soft.assertThat(e.getMessage().getBody(String.class)).as(uri).isEqualTo("got payload");
        }
        soft.assertAll();
    }

    @Test
    void aTimedOutFirstAttemptInPlaceLeavesNothingAndTheCallersOnCompletionRunsOnce() throws Exception {
        Exchange e = template.request("direct:slowSync", x -> x.getMessage().setBody("x"));
        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getBody(String.class)).isEqualTo("done by 2");
        assertThat(e.getMessage().getHeader("late")).isNull();
        assertThat(e.getProperty("late")).isNull();
        assertThat(e.getVariable("late")).isNull();
        Until.met("the caller's on-completion ran and nothing is in flight", Duration.ofSeconds(30),
                () -> callerDone.get() >= 1 && context.getInflightRepository().size() == 0);
        assertThat(callerDone.get()).isEqualTo(1);
    }

    /**
     * Waits for {@code n} on-completions and for no exchange in flight: a unit of work runs its
     * on-completions before it leaves the inflight repository, so an extra one would have run.
     */
    private void awaitDone(int n) {
        Until.met(n + " on-completions and nothing in flight", Duration.ofSeconds(30),
                () -> done.size() >= n && context.getInflightRepository().size() == 0);
    }
}
