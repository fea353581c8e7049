package dev.adaptive.micrometer;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Binds that overlap in time. A registry's meter filter holds the first bind inside the
 * registration of its {@code limit} gauge (after the check for a limiter of the same name, before
 * the gauge is in the registry) while a second bind runs: before, the second bind found the
 * registry empty too, and both went through.
 */
class ConcurrentBindTest {

    private final VirtualTime time = new VirtualTime();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CountDownLatch firstInside = new CountDownLatch(1);
    private final CountDownLatch letFirstOn = new CountDownLatch(1);
    private final ExecutorService binder = Executors.newSingleThreadExecutor();

    ConcurrentBindTest() {
        AtomicBoolean first = new AtomicBoolean(true);
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                // Micrometer maps an id before it takes its own lock: the other bind is not held up here.
                if (id.getName().equals("adaptive.limiter.limit") && first.compareAndSet(true, false)) {
                    firstInside.countDown();
                    await(letFirstOn);
                }
                return id;
            }
        });
    }

    @AfterEach
    void stopBinder() {
        letFirstOn.countDown();
        binder.shutdownNow();
    }

    @Test
    void aSecondLimiterOfTheNameBindingWhileTheFirstStillBindsIsRefusedAndTheFirstKeepsItsMeters() {
        Limiter first = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        Limiter second = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(20)).build();
        LimiterMetrics firstMetrics = LimiterMetrics.builder(first).build();
        LimiterMetrics secondMetrics = LimiterMetrics.builder(second).build();
        CompletableFuture<Void> firstBind = CompletableFuture.runAsync(() -> firstMetrics.bindTo(registry), binder);
        await(firstInside);

        assertThatThrownBy(() -> secondMetrics.bindTo(registry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("limiter named 'orders'").hasMessageContaining("two limiters share that name");
        letFirstOn.countDown();
        firstBind.join();

        assertThat(registry.find("adaptive.limiter.limit").tag("name", "orders").gauge().value()).isEqualTo(10.0);
        secondMetrics.close(); // bound nothing: removes nothing
        assertThat(registry.find("adaptive.limiter.limit").tag("name", "orders").gauge().value()).isEqualTo(10.0);
        firstMetrics.close();
        assertThat(registry.getMeters()).isEmpty();
        // The name is free again.
        try (LimiterMetrics again = LimiterMetrics.bind(second, registry)) {
            assertThat(registry.find("adaptive.limiter.limit").tag("name", "orders").gauge().value()).isEqualTo(20.0);
        }
    }

    @Test
    void oneBindingBoundToOneRegistryFromTwoThreadsAtOnceRegistersOnceAndCountsEachAttemptOnce() throws Exception {
        Limiter limiter = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        CompletableFuture<Void> firstBind = CompletableFuture.runAsync(() -> metrics.bindTo(registry), binder);
        await(firstInside);

        Thread second = new Thread(() -> metrics.bindTo(registry), "second-bind");
        second.start();
        // The second bind either finishes now or waits for the first: let the first on once it
        // has done one or the other (no time is waited for: the state is reached either way).
        while (second.isAlive() && second.getState() != Thread.State.BLOCKED
                && second.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        letFirstOn.countDown();
        firstBind.join();
        second.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(second.isAlive()).isFalse();

        AdaptiveExecutor.builder(limiter).build().execute(ctx -> CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(registry.find("adaptive.limiter.attempt.rtt").tag("outcome", "success").timer().count())
                .as("attempts timed (one attempt ran)").isEqualTo(1);
        metrics.close();
        assertThat(registry.getMeters()).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch reached").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
