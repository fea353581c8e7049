package dev.adaptive.camel;

import dev.adaptive.testing.Until;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.test.junit5.CamelTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transacted exchange: its transaction is bound to the thread that sent it, so every attempt
 * (the first, retries after a failure or a Retry-After pause, an attempt that waited for a slot)
 * runs on that thread, which waits meanwhile; a stop or an interrupt ends the wait. The
 * "transaction" here is what a transaction manager binds: a thread-local value of the sender.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactedTest extends CamelTestSupport {

    /** What a transaction manager binds to the sending thread. */
    private static final ThreadLocal<String> TRANSACTION = new ThreadLocal<>();

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch holding = new CountDownLatch(1);

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:flaky?retries=2&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TRANSACTION.get());
                    if (attempt < 3) {
                        throw new IllegalStateException("attempt " + attempt + " fails");
                    }
                });
                from("adaptive:limited?maxRateLimitRetries=1").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TRANSACTION.get());
                    if (attempt == 1) {
                        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
                        e.getMessage().setHeader("Retry-After", "1");
                    }
                });
                // A transacted route, as after transacted(): a step, then the pool.
                from("direct:inRoute").setHeader("step", constant("before the pool")).to("adaptive:plain");
                from("adaptive:plain").process(e -> seen.add(Thread.currentThread().getName() + ":"
                        + TRANSACTION.get()));
                from("adaptive:outer?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":transacted=" + e.isTransacted());
                    if (attempt == 1) {
                        throw new IllegalStateException("attempt 1 fails");
                    }
                }).to("adaptive:inner").process(e -> seen.add("after inner:" + Thread.currentThread().getName()
                        + ":" + TRANSACTION.get()));
                from("adaptive:inner").process(e -> seen.add("inner:" + Thread.currentThread().getName()
                        + ":" + TRANSACTION.get()));
                from("adaptive:one?initialLimit=1&maxLimit=1&minLimit=1").process(e -> {
                    if ("flag".equals(e.getMessage().getBody(String.class))) {
                        seen.add("transacted=" + e.isTransacted());
                    } else if ("hold".equals(e.getMessage().getBody(String.class))) {
                        holding.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    } else {
                        seen.add(e.getProperty(AdaptiveConstants.ATTEMPT) + ":" + Thread.currentThread().getName()
                                + ":" + TRANSACTION.get());
                    }
                });
            }
        };
    }

    /** Sends a transacted exchange from a thread of its own, in "transaction" {@code tx}. */
    private Future<Exchange> sendTransacted(String uri, String body, String tx, AtomicReference<Thread> sender) {
        CompletableFuture<Exchange> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            TRANSACTION.set(tx);
            try {
                result.complete(template.request(uri, x -> {
                    x.getExchangeExtension().setTransacted(true);
                    x.getMessage().setBody(body);
                }));
            } catch (Throwable e) {
                result.completeExceptionally(e);
            } finally {
                TRANSACTION.remove();
            }
        }, "sender-" + tx);
        sender.set(t);
        t.start();
        return result;
    }

    private String thread(AtomicReference<Thread> sender) {
        return sender.get().getName();
    }

    @Test
    void retriesAfterFailuresRunOnTheSendersThreadInItsTransaction() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Exchange e = sendTransacted("adaptive:flaky", "x", "tx-1", sender).get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(3);
        String on = thread(sender) + ":tx-1";
        assertThat(seen).containsExactly("1:" + on, "2:" + on, "3:" + on);
    }

    @Test
    void theAttemptAfterARetryAfterPauseRunsOnTheSendersThread() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Exchange e = sendTransacted("adaptive:limited", "x", "tx-2", sender).get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(2);
        String on = thread(sender) + ":tx-2";
        assertThat(seen).containsExactly("1:" + on, "2:" + on);
    }

    @Test
    void anExchangeThatWaitedForASlotRunsOnTheSendersThread() throws Exception {
        Future<Exchange> holder = template.asyncSend("adaptive:one", x -> x.getMessage().setBody("hold"));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> waiting = sendTransacted("adaptive:one", "x", "tx-3", sender);
        Until.met("the transacted exchange waits for the slot", Duration.ofSeconds(30),
                () -> stats("one").waiting() == 1);

        release.countDown();

        Exchange e = waiting.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly("1:" + thread(sender) + ":tx-3");
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void aTransactedRouteWithAStepBeforeThePoolEnds() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        // Camel ends the consumer route of a transacted exchange through the sending thread's
        // queue of routing work: the thread that waits for the exchange must run that queue.
        Exchange e = sendTransacted("direct:inRoute", "x", "tx-7", sender).get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly(thread(sender) + ":tx-7");
        assertThat(stats("plain").pending()).isZero();
        assertThat(stats("plain").inflight()).isZero();
    }

    @Test
    void aRetryIsTransactedSoAnAsynchronousStepInItsRouteStaysOnTheSendersThread() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Exchange e = sendTransacted("adaptive:outer", "x", "tx-5", sender).get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNull();
        String on = thread(sender) + ":tx-5";
        // The retry's route sends to another pool: not transacted, that send would hand the rest
        // of the route to the other pool's worker, out of the transaction.
        assertThat(seen).containsExactly("1:transacted=true", "2:transacted=true", "inner:" + on,
                "after inner:" + on);
    }

    @Test
    void anAttemptThatWaitedForASlotIsTransacted() throws Exception {
        Future<Exchange> holder = template.asyncSend("adaptive:one", x -> x.getMessage().setBody("hold"));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> waiting = sendTransacted("adaptive:one", "flag", "tx-6", sender);
        Until.met("the transacted exchange waits for the slot", Duration.ofSeconds(30),
                () -> stats("one").waiting() == 1);

        release.countDown();

        assertThat(waiting.get(30, TimeUnit.SECONDS).getException()).isNull();
        assertThat(seen).containsExactly("transacted=true");
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void anInterruptEndsTheWaitFailsTheExchangeAndStaysSetOnTheThread() throws Exception {
        Future<Exchange> holder = template.asyncSend("adaptive:one", x -> x.getMessage().setBody("hold"));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Thread> sender = new AtomicReference<>();
        AtomicBoolean interruptKept = new AtomicBoolean();
        CompletableFuture<Exchange> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            Exchange x = template.request("adaptive:one", m -> {
                m.getExchangeExtension().setTransacted(true);
                m.getMessage().setBody("x");
            });
            interruptKept.set(Thread.currentThread().isInterrupted());
            result.complete(x);
        }, "sender-interrupted");
        sender.set(t);
        t.start();
        Until.met("the transacted exchange waits for the slot", Duration.ofSeconds(30),
                () -> stats("one").waiting() == 1);

        t.interrupt();

        Exchange e = result.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isInstanceOf(InterruptedException.class);
        assertThat(interruptKept).isTrue();
        assertThat(seen).as("never ran").isEmpty();
        assertThat(stats("one").waiting()).isZero();
        release.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void stoppingThePoolsRouteEndsTheWaitOfATransactedExchange() throws Exception {
        Future<Exchange> holder = template.asyncSend("adaptive:one", x -> x.getMessage().setBody("hold"));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> waiting = sendTransacted("adaptive:one", "x", "tx-4", sender);
        Until.met("the transacted exchange waits for the slot", Duration.ofSeconds(30),
                () -> stats("one").waiting() == 1);

        // The held attempt keeps its route busy: a graceful stop gives it 1 s, then forces.
        context.getShutdownStrategy().setTimeout(1);
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
            try {
                context.stop();
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        Exchange e = waiting.get(30, TimeUnit.SECONDS);
        release.countDown();
        stopped.get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNotNull();
        assertThat(seen).as("never ran").isEmpty();
        holder.get(30, TimeUnit.SECONDS);
    }

    private AdaptiveStats stats(String pool) {
        return context.getComponent("adaptive", AdaptiveComponent.class).stats(pool).orElseThrow();
    }
}
