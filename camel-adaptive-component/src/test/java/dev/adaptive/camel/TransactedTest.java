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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A transacted exchange: its transaction is bound to the thread that sent it, so every attempt
 * (the first, retries after a failure or a Retry-After pause, an attempt that waited for a slot
 * or for the consumer route to start) runs on that thread, which waits meanwhile, and every
 * attempt's exchange is transacted. At the edges: no consumer within the timeout, a task
 * timeout, an interrupt or a stop while the thread waits or while a retry runs on it, a route
 * with a step before the pool, and attempts whose route sends to another pool. The
 * "transaction" here is what a transaction manager binds: a thread-local value of the sender.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransactedTest extends CamelTestSupport {

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch inSecond = new CountDownLatch(1);
    private final CountDownLatch inStuck = new CountDownLatch(1);

    @Override
    protected RouteBuilder createRouteBuilder() {
        return new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:flaky?retries=2&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get());
                    if (attempt < 3) {
                        throw new IllegalStateException("attempt " + attempt + " fails");
                    }
                });
                from("adaptive:limited?maxRateLimitRetries=1").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get());
                    if (attempt == 1) {
                        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
                        e.getMessage().setHeader("Retry-After", "1");
                    }
                });
                // A transacted route, as after transacted(): a step, then the pool.
                from("direct:inRoute").setHeader("step", constant("before the pool")).to("adaptive:plain");
                from("adaptive:plain").process(e -> seen.add(Thread.currentThread().getName() + ":"
                        + TransactedSender.TRANSACTION.get()));
                from("adaptive:outer?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":transacted=" + e.isTransacted());
                    if (attempt == 1) {
                        throw new IllegalStateException("attempt 1 fails");
                    }
                }).to("adaptive:inner").process(e -> seen.add("after inner:" + Thread.currentThread().getName()
                        + ":" + TransactedSender.TRANSACTION.get()));
                from("adaptive:inner").process(e -> seen.add("inner:" + Thread.currentThread().getName()
                        + ":" + TransactedSender.TRANSACTION.get()));
                from("adaptive:one?initialLimit=1&maxLimit=1&minLimit=1").routeId("one").process(e -> {
                    if ("flag".equals(e.getMessage().getBody(String.class))) {
                        seen.add("transacted=" + e.isTransacted());
                    } else if ("hold".equals(e.getMessage().getBody(String.class))) {
                        holding.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    } else {
                        seen.add(e.getProperty(AdaptiveConstants.ATTEMPT) + ":" + Thread.currentThread().getName()
                                + ":" + TransactedSender.TRANSACTION.get());
                    }
                });
                from("adaptive:late?timeout=30s").routeId("late").autoStartup(false).process(e ->
                        seen.add(e.getProperty(AdaptiveConstants.ATTEMPT) + ":" + Thread.currentThread().getName()
                                + ":" + TransactedSender.TRANSACTION.get() + ":" + e.isTransacted()));
                from("adaptive:none").routeId("none").autoStartup(false).log("never");
                from("adaptive:slow?retries=1&minDelay=10ms&jitter=0&taskTimeout=300ms").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get());
                    if (attempt == 1) {
                        throw new IllegalStateException("attempt 1 fails");
                    }
                    inSecond.countDown();
                    release.await(30, TimeUnit.SECONDS);
                });
                from("adaptive:slow2?retries=1&minDelay=10ms&jitter=0").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get());
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
                from("adaptive:stuck?retries=1&minDelay=10ms&jitter=0&taskTimeout=300ms").process(e -> {
                    int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
                    seen.add(attempt + ":" + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get());
                    if (attempt == 1) {
                        inStuck.countDown();
                        release.await(30, TimeUnit.SECONDS); // past its task timeout
                    }
                });
                // A clock of the engine's own timers: its exchange fails once its task timeout is over.
                from("adaptive:clock?taskTimeout=2s").process(e -> release.await(30, TimeUnit.SECONDS));
                from("adaptive:outer2").to("adaptive:inner").process(e -> seen.add("after inner:"
                        + Thread.currentThread().getName() + ":" + TransactedSender.TRANSACTION.get()));
            }
        };
    }

    @Test
    void retriesAfterFailuresRunOnTheSendersThreadInItsTransaction() throws Exception {
        everyAttemptRunsOnTheSender("adaptive:flaky", "tx-1", 3);
    }

    @Test
    void theAttemptAfterARetryAfterPauseRunsOnTheSendersThread() throws Exception {
        everyAttemptRunsOnTheSender("adaptive:limited", "tx-2", 2);
    }

    @Test
    void anExchangeThatWaitedForASlotRunsOnTheSendersThread() throws Exception {
        Future<Exchange> holder = holdTheOnlySlot();
        TransactedSender waiting = queuedBehindIt("x", "tx-3");

        release.countDown();

        Exchange e = waiting.exchange();
        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly("1:" + waiting.on());
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void aTransactedRouteWithAStepBeforeThePoolEnds() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "direct:inRoute", "x", "tx-7");
        // Camel ends the consumer route of a transacted exchange through the sending thread's
        // queue of routing work: the thread that waits for the exchange must run that queue.
        Exchange e = sender.exchange();

        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly(sender.on());
        assertThat(stats("plain").pending()).isZero();
        assertThat(stats("plain").inflight()).isZero();
    }

    @Test
    void aRetryIsTransactedSoAnAsynchronousStepInItsRouteStaysOnTheSendersThread() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:outer", "x", "tx-5");
        Exchange e = sender.exchange();

        assertThat(e.getException()).isNull();
        String on = sender.on();
        // The retry's route sends to another pool: not transacted, that send would hand the rest
        // of the route to the other pool's worker, out of the transaction.
        assertThat(seen).containsExactly("1:transacted=true", "2:transacted=true", "inner:" + on,
                "after inner:" + on);
    }

    @Test
    void anAttemptThatWaitedForASlotIsTransacted() throws Exception {
        Future<Exchange> holder = holdTheOnlySlot();
        TransactedSender waiting = queuedBehindIt("flag", "tx-6");

        release.countDown();

        assertThat(waiting.exchange().getException()).isNull();
        assertThat(seen).containsExactly("transacted=true");
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void anInterruptEndsTheWaitFailsTheExchangeAndStaysSetOnTheThread() throws Exception {
        Future<Exchange> holder = holdTheOnlySlot();
        TransactedSender sender = queuedBehindIt("x", "tx-8");

        sender.interrupt();

        Exchange e = sender.exchange();
        assertThat(e.getException()).isInstanceOf(InterruptedException.class);
        assertThat(sender.interruptedAfter()).as("the interrupt stays set").isTrue();
        assertThat(seen).as("never ran").isEmpty();
        assertThat(stats("one").waiting()).isZero();
        release.countDown();
        assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
    }

    @Test
    void stoppingThePoolsRouteEndsTheWaitOfATransactedExchange() throws Exception {
        Future<Exchange> holder = holdTheOnlySlot();
        TransactedSender waiting = queuedBehindIt("x", "tx-4");

        CompletableFuture<Void> stopped = stopContext();
        Exchange e = waiting.exchange();
        release.countDown();
        stopped.get(30, TimeUnit.SECONDS);

        assertThat(e.getException()).isNotNull();
        assertThat(seen).as("never ran").isEmpty();
        holder.get(30, TimeUnit.SECONDS);
    }

    /**
     * The slot is granted while the sender's thread runs routing work Camel queued on it: the
     * attempt waits for the thread, not yet begun. A forced shutdown (what the consumer does once
     * the shutdown strategy's timeout has run out) fails it at once as it fails a queued
     * exchange, and frees its slot; the attempt never begins.
     */
    @Test
    void aForcedShutdownFailsAnAttemptGrantedButNotYetBegunOnTheSendersThread() throws Exception {
        ExchangePool pool = context.getComponent("adaptive", AdaptiveComponent.class).pool("one");
        grantedButNotBegunWhenForced(() -> assertThat(pool.failQueued("the shutdown of its consumer route timed out"))
                .as("failed as queued").isEqualTo(1), "the shutdown of its consumer route timed out");
    }

    /**
     * The same through Camel: a stop of the consumer route alone whose timeout runs out while
     * the granted attempt waits for the sender's thread. The strategy stops the consumer, which
     * fails the exchange as queued; the attempt never begins on the stopped route.
     */
    @Test
    void aForcedStopOfTheConsumerRouteFailsAnAttemptGrantedButNotYetBegunOnTheSendersThread() throws Exception {
        grantedButNotBegunWhenForced(() -> {
            context.getRouteController().stopRoute("one", 1, TimeUnit.SECONDS);
            assertThat(context.getShutdownStrategy().isTimeoutOccurred()).as("the route stop timed out").isTrue();
        }, "its consumer route stopped before the exchange completed");
    }

    /** What forces the stop in {@link #grantedButNotBegunWhenForced}. */
    private interface ForcedStop {
        void run() throws Exception;
    }

    private void grantedButNotBegunWhenForced(ForcedStop forcedStop, String why) throws Exception {
        Future<Exchange> holder = holdTheOnlySlot();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch free = new CountDownLatch(1);
        TransactedSender sender = TransactedSender.send(template, "adaptive:one", "x", "tx-busy",
                () -> context.getCamelContextExtension().getReactiveExecutor().scheduleQueue(() -> {
                    busy.countDown();
                    try {
                        free.await(50, TimeUnit.SECONDS); // past the waits below
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
        try {
            assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(stats("one").waiting()).as("queued for the slot, its thread busy").isEqualTo(1);
            release.countDown();
            assertThat(holder.get(30, TimeUnit.SECONDS).getException()).isNull();
            Until.met("the slot is granted", Duration.ofSeconds(30),
                    () -> stats("one").waiting() == 0 && stats("one").inflight() == 1);

            forcedStop.run();
            Until.met("the exchange ended, its slot free", Duration.ofSeconds(30),
                    () -> stats("one").pending() == 0 && stats("one").inflight() == 0);
        } finally {
            free.countDown();
        }
        Exchange e = sender.exchange();
        assertThat(e.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessage("adaptive pool 'one' refused the exchange: " + why);
        assertThat(seen).as("never began").isEmpty();
        assertThat(stats("one").failed()).isEqualTo(1);
    }

    @Test
    void aConsumerThatStartsLateRunsTheAttemptOnTheSender() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:late", "x", "tx-late");
        Until.met("waits for the consumer", Duration.ofSeconds(30),
                () -> context.getComponent("adaptive", AdaptiveComponent.class).stats("late").isPresent()
                        && stats("late").pending() == 1);
        context.getRouteController().startRoute("late");
        Exchange e = sender.exchange();
        assertThat(e.getException()).isNull();
        assertThat(seen).containsExactly("1:" + sender.on() + ":true");
        assertThat(stats("late").pending()).isZero();
    }

    @Test
    void noConsumerWithinTheTimeoutFailsAndReturns() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:none?timeout=200ms", "x", "tx-none");
        Exchange e = sender.exchange();
        assertThat(e.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class);
        assertThat(stats("none").pending()).isZero();
        assertThat(stats("none").inflight()).isZero();
    }

    @Test
    void aTaskTimeoutOnARetryOnTheSenderEndsOnceTheRouteReturns() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:slow", "x", "tx-slow");
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        Until.met("the retry timed out", Duration.ofSeconds(30), () -> stats("slow").failed() == 1);
        assertThat(stats("slow").inflight()).isZero();
        release.countDown();
        Exchange e = sender.exchange();
        assertThat(e.getException()).isInstanceOf(TaskTimeoutException.class);
        String on = sender.on();
        assertThat(seen).containsExactly("1:" + on, "2:" + on);
        assertThat(stats("slow").pending()).isZero();
    }

    @Test
    void aRetryAfterATaskTimeoutRunsOnceTheTimedOutRouteHasReturned() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:stuck", "x", "tx-stuck");
        assertThat(inStuck.await(30, TimeUnit.SECONDS)).isTrue();
        // The first attempt's route holds the sending thread well past its own task timeout and
        // past the one a retry would have, had the retry taken a slot while it could not run.
        template.asyncSend("adaptive:clock", x -> x.getMessage().setBody("tick"));
        Until.met("the clock's task timeout is over", Duration.ofSeconds(30),
                () -> context.getComponent("adaptive", AdaptiveComponent.class).stats("clock").isPresent()
                        && stats("clock").failed() == 1);
        release.countDown();

        Exchange e = sender.exchange();
        assertThat(e.getException()).as("%s, attempts %s", e.getException(), seen).isNull();
        String on = sender.on();
        assertThat(seen).containsExactly("1:" + on, "2:" + on);
        assertThat(stats("stuck").inflight()).isZero();
    }

    @Test
    void anInterruptWhileARetryRunsOnTheSender() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:slow2", "x", "tx-int");
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        sender.interrupt();
        Exchange e = sender.exchange();
        // The route kept the interrupt and failed; no retry is left, so the exchange ends with it.
        assertThat(e.getException()).isInstanceOf(InterruptedException.class);
        assertThat(sender.interruptedAfter()).as("the interrupt stays set").isTrue();
        Until.met("no slot held", Duration.ofSeconds(30), () -> stats("slow2").inflight() == 0);
        assertThat(stats("slow2").pending()).isZero();
    }

    @Test
    void aStopWhileARetryRunsOnTheSender() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:slow2", "x", "tx-stop");
        assertThat(inSecond.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stopped = stopContext();
        stopped.get(30, TimeUnit.SECONDS);
        release.countDown();
        Exchange e = sender.exchange();
        assertThat(e.getException()).isInstanceOf(AdaptivePoolStoppedException.class);
        assertThat(seen).containsExactly("1:" + sender.on(), "2:" + sender.on());
    }

    @Test
    void aFirstAttemptInPlaceThatSendsToAnotherPool() throws Exception {
        TransactedSender sender = TransactedSender.send(template, "adaptive:outer2", "x", "tx-n2");
        Exchange e = sender.exchange();
        assertThat(e.getException()).isNull();
        String on = sender.on();
        assertThat(seen).containsExactly("inner:" + on, "after inner:" + on);
    }

    /**
     * Sends a transacted exchange to {@code uri} and checks that it succeeded after
     * {@code attempts} attempts, each on the sending thread, in its transaction.
     */
    private void everyAttemptRunsOnTheSender(String uri, String transaction, int attempts) throws Exception {
        TransactedSender sender = TransactedSender.send(template, uri, "x", transaction);
        Exchange e = sender.exchange();

        assertThat(e.getException()).isNull();
        assertThat(e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class)).isEqualTo(attempts);
        assertThat(seen).containsExactlyElementsOf(java.util.stream.IntStream.rangeClosed(1, attempts)
                .mapToObj(n -> n + ":" + sender.on()).toList());
    }

    /** @return the exchange that holds pool "one"'s only slot, its route waiting for {@link #release} */
    private Future<Exchange> holdTheOnlySlot() throws InterruptedException {
        Future<Exchange> holder = template.asyncSend("adaptive:one", x -> x.getMessage().setBody("hold"));
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    /** Sends a transacted exchange to pool "one" and returns once it waits for the slot. */
    private TransactedSender queuedBehindIt(String body, String transaction) {
        TransactedSender sender = TransactedSender.send(template, "adaptive:one", body, transaction);
        Until.met("the transacted exchange waits for the slot", Duration.ofSeconds(30),
                () -> stats("one").waiting() == 1);
        return sender;
    }

    /**
     * Stops the context on another thread. A held attempt keeps its route busy: a graceful stop
     * gives it 1 s, then forces.
     */
    private CompletableFuture<Void> stopContext() {
        context.getShutdownStrategy().setTimeout(1);
        return CompletableFuture.runAsync(() -> {
            try {
                context.stop();
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        });
    }

    private AdaptiveStats stats(String pool) {
        return context.getComponent("adaptive", AdaptiveComponent.class).stats(pool).orElseThrow();
    }
}
