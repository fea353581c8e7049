package dev.adaptive.camel;

import dev.adaptive.AcquireTimeoutException;
import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.RejectedException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.time.VirtualTime;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pool's behaviour in virtual time: attempts run on the calling thread (or are held, to
 * model a route that hangs), so every wait is a scheduled task and nothing depends on the
 * machine's speed.
 */
class ExchangePoolTest {

    private final VirtualTime time = new VirtualTime();
    private final CamelContext camel = new DefaultCamelContext();
    private final List<Exchange> ended = new ArrayList<>();

    @AfterEach
    void noTaskFailed() {
        assertThat(time.uncaught()).isEmpty();
    }

    private ExchangePool pool(UnaryOperator<PoolConfig.Builder> options, Executor workers, Processor route) {
        PoolConfig config = options.apply(PoolConfig.builder().set("jitter", 0)).build();
        ExchangePool pool = new ExchangePool("p", () -> config, time, time, workers, Clock.systemUTC());
        if (route != null) {
            pool.attach(this, AsyncProcessorConverterHelper.convert(route));
        }
        return pool;
    }

    private Exchange submit(ExchangePool pool, Object body) {
        return submit(pool, body, Duration.ofSeconds(30));
    }

    private Exchange submit(ExchangePool pool, Object body, Duration consumerTimeout) {
        Exchange e = new DefaultExchange(camel);
        e.getIn().setBody(body);
        pool.submit(e, doneSync -> ended.add(e), consumerTimeout, false);
        return e;
    }

    private static int attempts(Exchange e) {
        return e.getMessage().getHeader(AdaptiveConstants.ATTEMPTS, Integer.class);
    }

    @Test
    void aRateLimitPausesTheWholePoolUntilItsRetryAfter() {
        List<String> log = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 2), Runnable::run, e -> {
            log.add(e.getIn().getBody(String.class) + "@" + time.elapsed().toMillis());
            if (calls.getAndIncrement() == 0) {
                throw new RateLimitedException(Duration.ofSeconds(5));
            }
        });

        Exchange a = submit(pool, "a");
        Exchange b = submit(pool, "b");
        Exchange c = submit(pool, "c");
        time.advance(Duration.ofMillis(4_999));
        assertThat(log).as("nothing dispatched inside the pause").containsExactly("a@0");
        assertThat(pool.stats().ratePaused()).isTrue();

        time.advance(Duration.ofMillis(1));
        time.runDue();
        assertThat(log).containsExactlyInAnyOrder("a@0", "b@5000", "c@5000", "a@5000");
        assertThat(ended).containsExactlyInAnyOrder(a, b, c);
        assertThat(attempts(a)).isEqualTo(2);
        assertThat(attempts(b)).isEqualTo(1);
        assertThat(a.getException()).isNull();
        assertThat(pool.stats().rateLimitEvents()).isEqualTo(1);
        assertThat(pool.stats().retries()).isEqualTo(1);
    }

    @Test
    void failedAttemptsAreRetriedAfterTheBackoffEachOnAFreshCopy() {
        List<String> seen = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("retries", 3).set("minDelay", Duration.ofMillis(100)), Runnable::run, e -> {
            int attempt = e.getProperty(AdaptiveConstants.ATTEMPT, Integer.class);
            seen.add(e.getIn().getBody(String.class) + "/" + e.getIn().getHeader("touched") + "@"
                    + time.elapsed().toMillis());
            // Half-done work that a retry must not see.
            e.getIn().setHeader("touched", attempt);
            e.getIn().setBody("changed by attempt " + attempt);
            if (attempt < 3) {
                throw new IllegalStateException("attempt " + attempt + " failed");
            }
        });

        Exchange x = submit(pool, "x");
        time.runUntilIdle();

        assertThat(seen).containsExactly("x/null@0", "x/null@100", "x/null@300");
        assertThat(x.getException()).isNull();
        assertThat(x.getMessage().getBody()).isEqualTo("changed by attempt 3");
        assertThat(x.getMessage().getHeader("touched")).isEqualTo(3);
        assertThat(attempts(x)).isEqualTo(3);
        assertThat(x.getMessage().getHeader(AdaptiveConstants.CONCURRENCY, Integer.class)).isPositive();
    }

    @Test
    void theCallerGetsTheRoutesHeadersAndThePoolsAndKeepsThemToItself() {
        List<Exchange> attempts = new ArrayList<>();
        ExchangePool pool = pool(o -> o, Runnable::run, e -> {
            attempts.add(e);
            e.getIn().setHeader("fromRoute", "r");
        });
        Exchange x = new DefaultExchange(camel);
        x.getIn().setHeader("sent", "s");
        pool.submit(x, doneSync -> ended.add(x), Duration.ofSeconds(30), false);

        assertThat(ended).containsExactly(x);
        assertThat(x.getMessage().getHeaders()).containsEntry("sent", "s").containsEntry("fromRoute", "r")
                .containsEntry(AdaptiveConstants.ATTEMPTS, 1).containsKey(AdaptiveConstants.CONCURRENCY);
        // The caller's headers may share storage with the finished attempt's until one side
        // writes: a write on either side stays on that side.
        x.getMessage().setHeader("afterwards", "a");
        attempts.get(0).getIn().setHeader("lateAttemptWrite", "w");
        assertThat(attempts.get(0).getIn().getHeaders()).doesNotContainKey("afterwards");
        assertThat(x.getMessage().getHeaders()).doesNotContainKey("lateAttemptWrite").containsEntry("afterwards", "a");
    }

    @Test
    void whenRetriesRunOutTheCallerGetsTheLastAttemptsExceptionItself() {
        List<Exception> thrown = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("retries", 1).set("minDelay", Duration.ofMillis(10)), Runnable::run, e -> {
            IllegalStateException failure = new IllegalStateException("boom " + thrown.size());
            thrown.add(failure);
            throw failure;
        });

        Exchange x = submit(pool, "x");
        time.runUntilIdle();

        assertThat(x.getException()).isSameAs(thrown.get(1));
        assertThat(attempts(x)).isEqualTo(2);
        assertThat(pool.stats().failed()).isEqualTo(1);
        assertThat(pool.stats().congestionEvents()).isEqualTo(2);
    }

    /** At once (a retry without a backoff asks the budget when planned) and after a backoff. */
    @ParameterizedTest
    @ValueSource(longs = {0, 50})
    void whenTheRetryBudgetRefusesARetryTheCallerGetsTheLastAttemptsResultAndExceptionAsTheCause(long minDelay) {
        List<Exception> thrown = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("retries", 1).set("minDelay", Duration.ofMillis(minDelay))
                .set("retryBudgetRatio", 0.0).set("retryBudgetMinPerSecond", 0.0), Runnable::run, e -> {
                    e.getMessage().setBody("response of attempt " + (thrown.size() + 1));
                    e.getMessage().setHeader("fromRoute", "yes");
                    IllegalStateException failure = new IllegalStateException("downstream 500");
                    thrown.add(failure);
                    throw failure;
                });

        Exchange x = submit(pool, "request");
        time.runUntilIdle();

        assertThat(ended).containsExactly(x);
        assertThat(x.getException()).isInstanceOf(dev.adaptive.RetryBudgetExhaustedException.class)
                .hasMessageContaining("retry budget exhausted");
        assertThat(x.getException().getCause()).as("the route's own exception, not the engine's carrier of it")
                .isSameAs(thrown.get(thrown.size() - 1));
        assertThat(x.getMessage().getBody()).isEqualTo("response of attempt " + thrown.size());
        assertThat(x.getMessage().getHeader("fromRoute")).isEqualTo("yes");
        assertThat(attempts(x)).isEqualTo(thrown.size());
    }

    @Test
    void whenTheRetryBudgetRefusesTheRetryOfARateLimitedAnswerTheCallerGetsThatAnswer() {
        ExchangePool pool = pool(o -> o.set("maxRateLimitRetries", 3)
                .set("retryBudgetRatio", 0.0).set("retryBudgetMinPerSecond", 0.0), Runnable::run, e -> {
                    e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
                    e.getMessage().setHeader("Retry-After", "1");
                    e.getMessage().setBody("slow down");
                });

        Exchange x = submit(pool, "request");
        time.runUntilIdle();

        assertThat(x.getException()).isInstanceOf(dev.adaptive.RetryBudgetExhaustedException.class)
                .hasCauseInstanceOf(dev.adaptive.RateLimitedException.class);
        assertThat(x.getMessage().getBody()).isEqualTo("slow down");
        assertThat(x.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).isEqualTo(429);
    }

    @Test
    void anAttemptPastItsTaskTimeoutIsAbandonedItsThreadInterruptedAndRetried() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("retries", 1).set("minDelay", Duration.ZERO).set("taskTimeout", Duration.ofSeconds(1)),
                held::add, e -> { });

        Exchange x = submit(pool, "x");
        assertThat(held).hasSize(1);
        time.advance(Duration.ofSeconds(1));
        time.runDue();
        assertThat(held).as("the retry was dispatched").hasSize(2);
        assertThat(((Future<?>) held.get(0)).isCancelled()).as("first attempt cancelled").isTrue();

        time.advance(Duration.ofSeconds(1));
        time.runDue();
        assertThat(x.getException()).isInstanceOf(TaskTimeoutException.class);
        assertThat(attempts(x)).isEqualTo(2);
        assertThat(pool.stats().congestionEvents()).isEqualTo(2);
        assertThat(pool.stats().inflight()).isZero();
        assertThat(pool.limiter().stats().classifierFailures()).as("a timeout is no classifier's failure").isZero();
    }

    @Test
    void aFullQueueRefusesAtOnceWithAClearException() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1).set("maxQueueSize", 2), held::add, e -> { });

        submit(pool, "running");
        submit(pool, "queued-1");
        submit(pool, "queued-2");
        Exchange refused = new DefaultExchange(camel);
        boolean sync = pool.submit(refused, doneSync -> ended.add(refused), Duration.ofSeconds(30), false);

        assertThat(sync).isTrue();
        assertThat(ended).containsExactly(refused);
        assertThat(refused.getException()).isInstanceOf(RejectedException.class)
                .hasMessageContaining("maxQueueSize=2").hasMessageContaining("'p'");
        assertThat(pool.stats().rejected()).isEqualTo(1);
        assertThat(pool.stats().waiting()).isEqualTo(2);
    }

    @Test
    void anExchangeThatWaitsLongerThanWaitTimeoutForASlotFailsWithAcquireTimeoutException() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1).set("waitTimeout", "100ms"),
                held::add, e -> { });
        submit(pool, "running");
        Exchange queued = submit(pool, "queued");
        time.advance(Duration.ofMillis(99));
        assertThat(ended).doesNotContain(queued);
        time.advance(Duration.ofMillis(1));
        assertThat(ended).contains(queued);
        assertThat(queued.getException()).isInstanceOf(AcquireTimeoutException.class);
    }

    @Test
    void closingFailsEveryExchangeStillOnItsWayExactlyOnce() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1), held::add, e -> { });
        Exchange running = submit(pool, "running");
        Exchange queued = submit(pool, "queued");

        pool.close();
        held.forEach(Runnable::run); // the interrupted route returns late: ignored

        assertThat(ended).containsExactlyInAnyOrder(running, queued);
        assertThat(running.getException()).isInstanceOf(AdaptivePoolStoppedException.class);
        assertThat(queued.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool 'p'");
        assertThat(pool.pending()).isZero();
        Exchange late = submit(pool, "late");
        assertThat(late.getException()).isInstanceOf(AdaptivePoolStoppedException.class);
    }

    @Test
    void aTimedOutShutdownFailsQueuedExchangesButLetsRunningAttemptsFinish() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1), held::add, e -> e.getIn().setBody("done"));
        Exchange running = submit(pool, "running");
        Exchange queued = submit(pool, "queued");

        assertThat(pool.failQueued("test shutdown")).isEqualTo(1);
        assertThat(queued.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("test shutdown");
        held.get(0).run();

        assertThat(running.getException()).isNull();
        assertThat(running.getMessage().getBody()).isEqualTo("done");
        assertThat(ended).containsExactlyInAnyOrder(queued, running);
    }

    @Test
    void anAttemptThatFailsWhileThePoolStopsEndsItsExchangeWithTheStopAndTheAttemptsCause() {
        // Found by ContextStopTest: camel-http stopping first failed a running attempt with
        // "Connection pool shut down", which reached the caller as if the downstream had failed.
        List<Runnable> held = new ArrayList<>();
        IllegalStateException closedUnderIt = new IllegalStateException("Connection pool shut down");
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1).set("retries", 0), held::add, e -> {
            throw closedUnderIt;
        });
        Exchange running = submit(pool, "running");

        pool.failQueued("test shutdown");
        held.get(0).run();

        assertThat(running.getException()).isInstanceOf(AdaptivePoolStoppedException.class)
                .hasMessageContaining("adaptive pool 'p' stopped while the exchange's attempt was running (test shutdown)")
                .hasCause(closedUnderIt);

        // A consumer route started again after the forced stop: failures are the route's own again.
        pool.attach(this, AsyncProcessorConverterHelper.convert(e -> {
            throw closedUnderIt;
        }));
        Exchange later = submit(pool, "later");
        held.get(1).run();
        assertThat(later.getException()).isSameAs(closedUnderIt);
    }

    @Test
    void withoutAConsumerAnExchangeWaitsUpToItsTimeoutHoldingNoThread() {
        ExchangePool pool = pool(o -> o, Runnable::run, null);
        Exchange gaveUp = submit(pool, "a", Duration.ofSeconds(2));
        time.advance(Duration.ofSeconds(2));
        time.runDue();
        assertThat(gaveUp.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class)
                .hasMessageContaining("No consumers available on endpoint: adaptive://p");

        Exchange served = submit(pool, "b", Duration.ofSeconds(2));
        time.advance(Duration.ofSeconds(1));
        pool.attach(this, AsyncProcessorConverterHelper.convert(e -> e.getIn().setBody("served")));
        assertThat(served.getException()).isNull();
        assertThat(served.getMessage().getBody()).isEqualTo("served");
        time.runUntilIdle();
        assertThat(ended).containsExactly(gaveUp, served);

        Exchange atOnce = new DefaultExchange(camel);
        pool.detach(this);
        assertThat(pool.submit(atOnce, doneSync -> { }, Duration.ZERO, false)).isTrue();
        assertThat(atOnce.getException()).isInstanceOf(AdaptiveConsumerNotAvailableException.class);
    }

    /**
     * The consumer attaches in the instant between submit()'s check for it and the wait it arms:
     * the exchange is still in the caller's process(), so a synchronous caller's first attempt
     * runs there and then, on the caller's own exchange, as if the consumer had been there.
     */
    @Test
    void aSynchronousExchangeWhoseConsumerArrivesWhileItIsBeingQueuedStillRunsInPlace() {
        PoolConfig config = PoolConfig.builder().set("jitter", 0).build();
        ExchangePool[] pool = new ExchangePool[1];
        List<Thread> ranOn = new ArrayList<>();
        dev.adaptive.time.Scheduler attachingFirst = (task, delayNanos) -> {
            if (pool[0].target() == null) {
                pool[0].attach(this, AsyncProcessorConverterHelper.convert(e -> {
                    ranOn.add(Thread.currentThread());
                    e.getMessage().setBody("done");
                }));
            }
            return time.schedule(task, delayNanos);
        };
        pool[0] = new ExchangePool("p", () -> config, time, attachingFirst, r -> {
            throw new AssertionError("handed to a worker");
        }, Clock.systemUTC());
        Exchange x = new DefaultExchange(camel);
        x.getIn().setBody("x");

        boolean endedInProcess = pool[0].submit(x, doneSync -> ended.add(x), Duration.ofSeconds(30), true);

        assertThat(ranOn).containsExactly(Thread.currentThread());
        assertThat(endedInProcess).as("ended before process() returned").isTrue();
        assertThat(x.getMessage().getBody()).isEqualTo("done");
        assertThat(ended).containsExactly(x);
    }

    /** The caller's message carries another API's answer: a 429 with a long Retry-After and a spent quota. */
    private Exchange carryingAnotherApisAnswer(Object body) {
        Exchange e = new DefaultExchange(camel);
        e.getIn().setBody(body);
        e.getIn().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
        e.getIn().setHeader("Retry-After", "30");
        e.getIn().setHeader("X-RateLimit-Remaining", "0");
        e.getIn().setHeader("X-RateLimit-Reset", "60");
        return e;
    }

    @ParameterizedTest(name = "synchronous={0}")
    @ValueSource(booleans = {false, true})
    void anotherApisAnswerTheCallerCarriesInIsNotReadAsThisPoolsAndStaysOnTheMessage(boolean synchronous) {
        List<String> log = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 4), Runnable::run, e -> {
            log.add(e.getIn().getBody(String.class) + "@" + time.elapsed().toMillis());
            e.getMessage().setBody("fallback ok"); // no HTTP call of its own
        });
        Exchange x = carryingAnotherApisAnswer("x");
        pool.submit(x, doneSync -> ended.add(x), Duration.ofSeconds(30), synchronous);
        Exchange y = carryingAnotherApisAnswer("y");
        pool.submit(y, doneSync -> ended.add(y), Duration.ofSeconds(30), synchronous);
        time.advance(Duration.ofSeconds(1));
        time.runDue();

        assertThat(log).as("attempts, body@ms: nothing held by the other API's pause or quota")
                .containsExactly("x@0", "y@0");
        assertThat(ended).containsExactly(x, y);
        assertThat(pool.stats().rateLimitEvents()).isZero();
        assertThat(x.getException()).isNull();
        assertThat(attempts(x)).isEqualTo(1);
        assertThat(x.getMessage().getHeader(Exchange.HTTP_RESPONSE_CODE)).as("left as it came").isEqualTo(429);
        assertThat(x.getProperties()).doesNotContainKey(CarriedAnswer.PROPERTY);
    }

    @Test
    void aRouteThatGetsItsOwn429IsReadAsRateLimitedWhateverTheCallerCarriedIn() {
        List<String> log = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 4).set("maxRateLimitRetries", 1),
                Runnable::run, e -> {
                    log.add(e.getIn().getBody(String.class) + "@" + time.elapsed().toMillis());
                    if (log.size() == 1) {
                        // A fresh answer: camel-http sets new values for each response it reads.
                        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, Integer.valueOf(429));
                        e.getMessage().setHeader("Retry-After", new String("2"));
                    } else {
                        e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, Integer.valueOf(200));
                    }
                });
        Exchange x = carryingAnotherApisAnswer("x");
        pool.submit(x, doneSync -> ended.add(x), Duration.ofSeconds(30), false);
        time.runUntilIdle();

        assertThat(log).containsExactly("x@0", "x@2000");
        assertThat(pool.stats().rateLimitEvents()).isEqualTo(1);
        assertThat(x.getException()).isNull();
        assertThat(attempts(x)).isEqualTo(2);
    }

    @Test
    void aClassifierBeanOverridesTheDefaultReadingAndFallsBackWhenItThrows() {
        AtomicInteger calls = new AtomicInteger();
        ExchangeClassifier custom = e -> {
            if (e.getException() instanceof UnsupportedOperationException) {
                throw new IllegalStateException("broken classifier");
            }
            return e.getException() != null ? Outcome.IGNORED : null;
        };
        ExchangePool pool = pool(o -> o.set("classifier", custom).set("retries", 0), Runnable::run, e -> {
            if (calls.getAndIncrement() == 0) {
                throw new IllegalArgumentException("not about capacity");
            }
            throw new UnsupportedOperationException("classifier throws on this one");
        });

        Exchange ignored = submit(pool, "a");
        assertThat(ignored.getException()).isInstanceOf(IllegalArgumentException.class);
        assertThat(pool.stats().congestionEvents()).as("IGNORED feeds no sample").isZero();

        Exchange dropped = submit(pool, "b");
        assertThat(dropped.getException()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(pool.stats().congestionEvents()).as("the default reading: a drop").isEqualTo(1);
        assertThat(pool.classifierFailures()).isEqualTo(1);
    }

    @Test
    void aSuspendedConsumerPausesDispatchUntilResumed() {
        List<String> log = new ArrayList<>();
        ExchangePool pool = pool(o -> o, Runnable::run, e -> log.add(e.getIn().getBody(String.class)));
        pool.pause();
        Exchange x = submit(pool, "x");
        time.runUntilIdle();
        assertThat(log).isEmpty();
        assertThat(pool.stats().waiting()).isEqualTo(1);

        pool.resume();
        assertThat(log).containsExactly("x");
        assertThat(ended).containsExactly(x);
    }

    /**
     * Camel's shutdown waits for everything the pool holds while it dispatches, but only for
     * the running attempts while it is paused: what is queued then cannot end before a resume.
     */
    @Test
    void whilePausedAShutdownIsToWaitOnlyForTheAttemptsRunning() {
        List<Runnable> held = new ArrayList<>();
        ExchangePool pool = pool(o -> o.set("algorithm", "fixed").set("maxLimit", 1), held::add,
                e -> e.getIn().setBody("done"));
        Exchange running = submit(pool, "running");
        Exchange queued = submit(pool, "queued");
        assertThat(pool.pendingForShutdown()).as("dispatching: everything held").isEqualTo(2);

        pool.pause();
        assertThat(pool.pendingForShutdown()).as("paused: the running attempt alone").isEqualTo(1);
        held.get(0).run();
        assertThat(ended).containsExactly(running);
        assertThat(pool.pendingForShutdown()).as("paused: the queued exchange cannot run").isZero();
        assertThat(pool.pending()).as("still held").isEqualTo(1);

        pool.resume();
        assertThat(pool.pendingForShutdown()).as("resumed: the queued exchange runs").isEqualTo(1);
        held.get(1).run();
        assertThat(ended).containsExactly(running, queued);
        assertThat(queued.getMessage().getBody()).isEqualTo("done");
        assertThat(pool.pendingForShutdown()).isZero();
    }
}
