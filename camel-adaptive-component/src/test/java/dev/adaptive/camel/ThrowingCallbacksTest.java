package dev.adaptive.camel;

import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.time.VirtualTime;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The pool's user callbacks (a classifier bean, a fleet coordinator) may throw an
 * {@code Error}: the documented fallback applies as for an exception. A classifier falls back
 * to the default reading (so a 429 header still pauses the pool) and is counted; a coordinator
 * that cannot be joined refuses the exchange, and the next one tries again.
 */
class ThrowingCallbacksTest {

    private final VirtualTime time = new VirtualTime();
    private final CamelContext camel = new DefaultCamelContext();

    @AfterEach
    void noTaskFailed() {
        assertThat(time.uncaught()).isEmpty();
    }

    private ExchangePool pool(PoolConfig config) {
        ExchangePool pool = new ExchangePool("p", () -> config, time, time, Runnable::run, Clock.systemUTC());
        pool.attach(this, AsyncProcessorConverterHelper.convert(e -> {
            e.getMessage().setHeader(Exchange.HTTP_RESPONSE_CODE, 429);
            e.getMessage().setHeader("Retry-After", "5");
        }));
        return pool;
    }

    private Exchange submit(ExchangePool pool) {
        Exchange e = new DefaultExchange(camel);
        pool.submit(e, doneSync -> { }, Duration.ofSeconds(30), false);
        return e;
    }

    @Test
    void aClassifierBeanThrowingAnErrorFallsBackToTheHttpReading() {
        ExchangeClassifier broken = e -> {
            throw new AssertionError("classifier bug");
        };
        ExchangePool pool = pool(PoolConfig.builder().set("jitter", 0).set("retries", 0).set("maxRateLimitRetries", 0)
                .set("classifier", broken).build());
        Exchange e = submit(pool);
        assertThat(e.getException()).isInstanceOf(dev.adaptive.RateLimitedException.class);
        assertThat(pool.stats().rateLimitEvents()).as("the 429 header still read").isEqualTo(1);
        assertThat(pool.stats().ratePaused()).isTrue();
        assertThat(pool.classifierFailures()).isEqualTo(1);
        assertThat(pool.stats().inflight()).isZero();
    }

    @Test
    void aCoordinatorThatThrowsAnErrorOnJoinRefusesTheExchangeAndTheNextOneTriesAgain() {
        InMemoryCoordinator store = new InMemoryCoordinator(time);
        AtomicBoolean broken = new AtomicBoolean(true);
        Coordinator flaky = new Coordinator() {
            @Override
            public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
                return store.heartbeat(key, report, ttl);
            }

            @Override
            public CompletionStage<Void> leave(String key, String nodeId) {
                return store.leave(key, nodeId);
            }

            @Override
            public CompletionStage<Void> publishPause(String key, FleetPause pause) {
                return store.publishPause(key, pause);
            }

            @Override
            public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
                if (broken.get()) {
                    throw new AssertionError("coordinator bug");
                }
                return store.subscribePauses(key, listener);
            }
        };
        PoolConfig config = PoolConfig.builder().set("algorithm", "fixed").set("maxLimit", 2).set("coordinator", flaky).set("fleetNodeId", "n1")
                .build();
        ExchangePool pool = new ExchangePool("p", () -> config, time, time, Runnable::run, Clock.systemUTC());
        AtomicInteger routed = new AtomicInteger();
        pool.attach(this, AsyncProcessorConverterHelper.convert(e -> routed.incrementAndGet()));
        Exchange first = new DefaultExchange(camel);
        AtomicInteger done = new AtomicInteger();
        assertThatCode(() -> assertThat(pool.submit(first, doneSync -> done.incrementAndGet(), Duration.ofSeconds(1),
                false)).isTrue()).doesNotThrowAnyException();
        // Camel wraps a Throwable that is not an Exception when it is set on an exchange.
        assertThat(first.getException()).hasCauseInstanceOf(AssertionError.class);
        assertThat(done).hasValue(1);
        broken.set(false);
        Exchange second = new DefaultExchange(camel);
        pool.submit(second, doneSync -> done.incrementAndGet(), Duration.ofSeconds(1), false);
        time.advance(Duration.ofSeconds(1)); // the fleet's heartbeat never lets the clock go idle
        assertThat(second.getException()).isNull();
        assertThat(routed).hasValue(1);
        pool.close();
    }
}
