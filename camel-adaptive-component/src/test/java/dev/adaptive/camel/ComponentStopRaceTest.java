package dev.adaptive.camel;

import dev.adaptive.testing.Until;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.AsyncProducer;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The component's stop racing a pool's first exchange: the exchange builds the pool's engine
 * (fixing its options under the component's lock) while the stop closes the pools (holding
 * that lock): neither may wait for the other for ever, and no engine built meanwhile may keep
 * its meters after the stop.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ComponentStopRaceTest {

    private CamelContext camel;
    private boolean stuck;

    @AfterEach
    void close() throws Exception {
        if (camel != null && !stuck) {
            camel.close();
        }
    }

    /**
     * The component's stop holds the component's monitor while it closes pool after pool (and
     * runs the callbacks of the exchanges it fails: the callers' routes going on). A first
     * exchange to another pool meanwhile takes that pool's monitor in ExchangePool.engine() and
     * then wants the component's (freeze); the stop then wants that pool's (closeBinding).
     */
    @Test
    void aFirstExchangeArrivingWhileTheComponentStopsDoesNotDeadlockTheStop() throws Exception {
        camel = new DefaultCamelContext();
        camel.start();
        AdaptiveComponent adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
        AsyncProducer toA = camel.getEndpoint("adaptive:a?timeout=60s").createAsyncProducer();
        toA.start();
        AsyncProducer toB = camel.getEndpoint("adaptive:b?timeout=60s").createAsyncProducer();
        toB.start();

        // Pool a holds one exchange waiting for its consumer route; the stop fails it and calls
        // its caller back, on the stopping thread: here the caller's route takes a moment.
        CountDownLatch callbackInStop = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        toA.process(new DefaultExchange(camel), doneSync -> {
            callbackInStop.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread stopper = daemon("stopper", adaptive::stop);
        assertThat(callbackInStop.await(30, TimeUnit.SECONDS)).isTrue();

        // Meanwhile pool b takes its first exchange (a ProducerTemplate on a web thread, say).
        Thread sender = daemon("sender", () -> toB.process(new DefaultExchange(camel), doneSync -> { }));
        Until.met("the sender has returned or waits for the component's monitor", Duration.ofSeconds(30),
                () -> !sender.isAlive() || sender.getState() == Thread.State.BLOCKED);
        release.countDown();

        stopper.join(TimeUnit.SECONDS.toMillis(15));
        sender.join(TimeUnit.SECONDS.toMillis(1));
        stuck = stopper.isAlive();
        assertThat(stopper.isAlive()).as("the component's stop has ended; deadlocked threads:%n%s", deadlocked())
                .isFalse();
        assertThat(sender.isAlive()).as("the first exchange to pool b has returned").isFalse();
    }

    /**
     * The same race, both orders: an exchange that builds its pool's engine after the stop closed
     * the pool would bind meters nobody removes. Racy, so tried many times; before the fix a
     * round deadlocked within the first few dozen.
     */
    @Test
    void noMetersAreLeftBehindByAnExchangeThatArrivesDuringTheStop() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("meterRegistry", registry);
        camel.start();
        AdaptiveComponent adaptive = camel.getComponent("adaptive", AdaptiveComponent.class);
        for (int round = 0; round < 500; round++) {
            if (!adaptive.isStarted()) {
                adaptive.start();
            }
            AsyncProducer producer = camel.getEndpoint("adaptive:p" + round + "?timeout=0").createAsyncProducer();
            producer.start();
            CountDownLatch go = new CountDownLatch(1);
            Thread sender = daemon("sender-" + round, () -> {
                await(go);
                producer.process(new DefaultExchange(camel), doneSync -> { });
            });
            Thread stopper = daemon("stopper-" + round, () -> {
                await(go);
                adaptive.stop();
            });
            go.countDown();
            stopper.join(TimeUnit.SECONDS.toMillis(15));
            sender.join(TimeUnit.SECONDS.toMillis(15));
            stuck = stopper.isAlive() || sender.isAlive();
            assertThat(stuck).as("round %d: the stop or the exchange is stuck; deadlocked threads:%n%s", round,
                    deadlocked()).isFalse();
            int r = round;
            assertThat(registry.getMeters()).as("round %d: meters after the component stopped", r)
                    .noneMatch(m -> ("adaptive:p" + r).equals(m.getId().getTag("name")));
            producer.stop();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static Thread daemon(String name, Step step) {
        Thread t = new Thread(() -> {
            try {
                step.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String deadlocked() {
        long[] ids = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
        if (ids == null) {
            return "none";
        }
        ThreadInfo[] infos = ManagementFactory.getThreadMXBean().getThreadInfo(ids, true, true);
        return Arrays.stream(infos).map(i -> {
            StringBuilder sb = new StringBuilder("\"" + i.getThreadName() + "\" " + i.getThreadState() + " on "
                    + i.getLockName() + " held by \"" + i.getLockOwnerName() + "\"\n");
            for (StackTraceElement e : i.getStackTrace()) {
                if (e.getClassName().startsWith("dev.adaptive.camel") && !e.getClassName().contains("Test")) {
                    sb.append("    at ").append(e).append('\n');
                }
            }
            return sb.toString();
        }).collect(Collectors.joining());
    }
}
