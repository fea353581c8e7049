package dev.adaptive.camel;

import dev.adaptive.TaskTimeoutException;
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
 * Transacted exchanges at the edges: a consumer route that starts late or not at all, a task
 * timeout, an interrupt or a stop while a retry runs on the sender's thread, and a first attempt
 * whose route sends to another pool.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactedEdgesTest extends CamelTestSupport {

    private static final ThreadLocal<String> TRANSACTION = new ThreadLocal<>();

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch inSecond = new CountDownLatch(1);

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:late?timeout=30s").routeId("late").autoStartup(false).process(e ->
                        seen.add(e.getProperty(AdaptiveConstants.ATTEMPT) + ":" + Thread.currentThread().getName()
                                + ":" + TRANSACTION.get() + ":" + e.isTransacted()));
                from("adaptive:none").routeId("none").autoStartup(false).log("never");
                from("adaptive:slow?retries=1&minDelay=10ms&jitter=0&taskTimeout=300ms").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TRANSACTION.get());
                    if (attempt == 1) {
                        throw new IllegalStateException("attempt 1 fails");
                    }
                    inSecond.countDown();
                    release.await(30, TimeUnit.SECONDS);
                });
                from("adaptive:slow2?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TRANSACTION.get());
                    if (attempt == 1) {
                        throw new IllegalStateException("attempt 1 fails");
                    }
                    inSecond.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException ie) {
                        seen.add("route interrupted");
                        Thread.currentThread().interrupt();
                        throw ie;
                    }
                });
                from("adaptive:outer2").to("adaptive:inner").process(e -> seen.add("after inner:"
                        + Thread.currentThread().getName() + ":" + TRANSACTION.get()));
                from("adaptive:inner").process(e -> seen.add("inner:" + Thread.currentThread().getName()
                        + ":" + TRANSACTION.get()));
            }
        };
    }

    private Future<Exchange> sendTransacted(String uri, String tx, AtomicReference<Thread> sender,
                                            AtomicBoolean interruptedAfter) {
        CompletableFuture<Exchange> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            TRANSACTION.set(tx);
            try {
                Exchange x = template.request(uri, m -> {
                    m.getExchangeExtension().setTransacted(true);
                    m.getMessage().setBody("x");
                });
                if (interruptedAfter != null) {
                    interruptedAfter.set(Thread.interrupted());
                }
                result.complete(x);
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

    private AdaptiveStats stats(String pool) {
        return context.getComponent("adaptive", AdaptiveComponent.class).stats(pool).orElseThrow();
    }

    @Test
    void aConsumerThatStartsLateRunsTheAttemptOnTheSender() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> f = sendTransacted("adaptive:late", "tx-late", sender, null);
        Until.met("waits for the consumer", Duration.ofSeconds(30),
                () -> context.getComponent("adaptive", AdaptiveComponent.class).stats("late").isPresent()
                        && stats("late").pending() == 1);
        context.getRouteController().startRoute("late");
        Exchange e = f.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly("1:" + sender.get().getName() + ":tx-late:true");
        assertThat(stats("late").pending()).isZero();
    }

    @Test
    void noConsumerWithinTheTimeoutFailsAndReturns() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> f = sendTransacted("adaptive:none?timeout=200ms", "tx-none", sender, null);
        Exchange e = f.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class);
        assertThat(stats("none").pending()).isZero();
        assertThat(stats("none").inflight()).isZero();
    }

    @Test
    void aTaskTimeoutOnARetryOnTheSenderEndsOnceTheRouteReturns() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> f = sendTransacted("adaptive:slow", "tx-slow", sender, null);
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        Until.met("the retry timed out", Duration.ofSeconds(30), () -> stats("slow").failed() == 1);
        assertThat(stats("slow").inflight()).isZero();
        release.countDown();
        Exchange e = f.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isInstanceOf(TaskTimeoutException.class);
        String on = sender.get().getName() + ":tx-slow";
        assertThat(seen).containsExactly("1:" + on, "2:" + on);
        assertThat(stats("slow").pending()).isZero();
    }

    @Test
    void anInterruptWhileARetryRunsOnTheSender() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        AtomicBoolean kept = new AtomicBoolean();
        Future<Exchange> f = sendTransacted("adaptive:slow2", "tx-int", sender, kept);
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        sender.get().interrupt();
        Exchange e = f.get(30, TimeUnit.SECONDS);
        // The route kept the interrupt and failed; no retry is left, so the exchange ends with it.
        assertThat(e.getException()).isInstanceOf(InterruptedException.class);
        assertThat(kept).isTrue();
        Until.met("no slot held", Duration.ofSeconds(30), () -> stats("slow2").inflight() == 0);
        assertThat(stats("slow2").pending()).isZero();
    }

    @Test
    void aStopWhileARetryRunsOnTheSender() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Future<Exchange> f = sendTransacted("adaptive:slow2", "tx-stop", sender, null);
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        context.getShutdownStrategy().setTimeout(1);
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> {
            try {
                context.stop();
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
        stopped.get(30, TimeUnit.SECONDS);
        release.countDown();
        Exchange e = f.get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isInstanceOf(AdaptivePoolStoppedException.class);
        assertThat(seen).containsExactly("1:sender-tx-stop:tx-stop", "2:sender-tx-stop:tx-stop");
    }

    @Test
    void aFirstAttemptInPlaceThatSendsToAnotherPool() throws Exception {
        AtomicReference<Thread> sender = new AtomicReference<>();
        Exchange e = sendTransacted("adaptive:outer2", "tx-n2", sender, null).get(30, TimeUnit.SECONDS);
        assertThat(e.getException()).isNull();
        String on = sender.get().getName() + ":tx-n2";
        assertThat(seen).containsExactly("inner:" + on, "after inner:" + on);
    }
}
