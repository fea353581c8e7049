package dev.adaptive.vertx;

import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Thousands of calls through every piece of the module with a tight
 * {@code maxEventLoopExecuteTime}: Vert.x's blocked-thread checker must report nothing that the
 * module caused, and every callback must run on an event loop. A control case blocks on purpose
 * to prove the watch can fail.
 */
class EventLoopNeverBlockedTest {

    private static final long LIMIT_MS = 100;

    private Vertx vertx;
    private BlockedThreadWatch watch;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx(new VertxOptions()
                .setMaxEventLoopExecuteTime(LIMIT_MS).setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS)
                .setBlockedThreadCheckInterval(20).setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS));
        watch = new BlockedThreadWatch(vertx, LIMIT_MS);
    }

    @AfterEach
    void stop() {
        watch.close();
        Await.result(vertx.close());
    }

    @Test
    void thousandsOfCallsThroughEveryPieceNeverBlockTheEventLoop() {
        AtomicInteger offLoop = new AtomicInteger();
        AtomicInteger callbacks = new AtomicInteger();
        Runnable onLoop = () -> {
            callbacks.incrementAndGet();
            if (!Context.isOnEventLoopThread()) {
                offLoop.incrementAndGet();
            }
        };
        // An HTTP backend: short timer latencies, an occasional 429 without a wait.
        AtomicInteger httpArrivals = new AtomicInteger();
        int port = Await.result(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(req -> {
                    int n = httpArrivals.incrementAndGet();
                    vertx.setTimer(1 + n % 3, id -> {
                        if (n % 97 == 0) {
                            req.response().setStatusCode(429).end();
                        } else {
                            req.response().end("ok");
                        }
                    });
                }).listen()).actualPort();
        // An event-bus backend behind the proxy: rate-limits now and then with a short wait.
        AtomicInteger busArrivals = new AtomicInteger();
        Await.result(vertx.eventBus().consumer("backend", m -> {
            if (busArrivals.incrementAndGet() % 101 == 0) {
                RateLimitReply.fail(m, Duration.ofMillis(15));
            } else {
                vertx.setTimer(1, id -> m.reply("echo:" + m.body()));
            }
        }).completion());
        Await.result(vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions().setConfig(new JsonObject()
                .put("address", "front").put("targetAddress", "backend")
                .put("options", new JsonObject().put("maxLimit", 32).put("minDelay", 1).put("maxDelay", 10)
                        .put("statsAddress", "stats.front").put("statsInterval", 10)))));
        AtomicInteger statsSeen = new AtomicInteger();
        Await.result(vertx.eventBus().consumer("stats.front", m -> statsSeen.incrementAndGet()).completion());

        AdaptiveOptions options = new AdaptiveOptions().setMaxLimit(64).setMinDelay(1).setMaxDelay(10)
                .setStatsAddress("stats.client").setStatsInterval(10);
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, options);
        AdaptiveWebClient web = AdaptiveWebClient.create(
                WebClient.create(vertx, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(64)), limiter);
        AdaptiveEventBus bus = AdaptiveEventBus.create(AdaptiveLimiter.create(vertx, options.setName("bus")));
        AdaptivePool pool = AdaptivePool.create(vertx, options.setName("pool"));

        // Warm-up: class loading and the JIT's first compilations are the JVM's, not the module's.
        awaitAll(submit(web, port, bus, pool, 200, 2_000, () -> { }));
        watch.reset();
        int callbacksBefore = callbacks.get();
        awaitAll(submit(web, port, bus, pool, 2_000, 20_000, onLoop));
        List<BlockedThreadWatch.Report> reports = watch.reports();
        System.out.printf("event loop run: %d callbacks, %d HTTP and %d event-bus arrivals, %d stats messages, "
                        + "%d blocked-thread reports (%d blocking, the rest a starved runnable thread): %s%n",
                callbacks.get(), httpArrivals.get(), busArrivals.get(), statsSeen.get(), reports.size(),
                watch.blocking().size(), reports);
        assertThat(callbacks.get() - callbacksBefore).isEqualTo(2_000 + 2_000 + 20_000 + 2_000);
        assertThat(offLoop).as("callbacks off the event loop").hasValue(0);
        assertThat(statsSeen.get()).isPositive();
        assertThat(watch.blocking()).as("blocked-thread reports the module caused").isEmpty();
    }

    /**
     * Starts {@code calls} web and event-bus requests, a streamed pool run of {@code instant}
     * already-completed items and a collected one of 2,000 timer items, from an event loop, a
     * few dozen per event-loop turn as traffic would arrive.
     */
    private List<Future<?>> submit(AdaptiveWebClient web, int port, AdaptiveEventBus bus, AdaptivePool pool,
                                   int calls, int instant, Runnable onLoop) {
        List<Future<?>> fs = new ArrayList<>();
        Context caller = vertx.getOrCreateContext();
        Promise<Void> submitted = Promise.promise();
        caller.runOnContext(v -> {
            synchronized (fs) {
                fs.add(pool.<Integer, Integer>stream(() -> IntStream.range(0, instant).iterator(),
                        (item, ctx) -> Future.succeededFuture(item), r -> onLoop.run()));
                fs.add(pool.<Integer, Integer>process(IntStream.range(0, 2_000).boxed().toList(), (item, ctx) -> {
                    Promise<Integer> p = Promise.promise();
                    vertx.setTimer(1 + item % 2, id -> p.complete(item));
                    return p.future().onComplete(ar -> onLoop.run());
                }));
            }
            submitChunk(caller, 0, calls, fs, web, port, bus, onLoop, submitted);
        });
        Await.result(submitted.future());
        synchronized (fs) {
            return List.copyOf(fs);
        }
    }

    private void submitChunk(Context caller, int from, int calls, List<Future<?>> fs, AdaptiveWebClient web, int port,
                             AdaptiveEventBus bus, Runnable onLoop, Promise<Void> submitted) {
        synchronized (fs) {
            for (int i = from; i < Math.min(calls, from + 50); i++) {
                fs.add(web.send(web.get(port, "127.0.0.1", "/" + i)).onComplete(ar -> onLoop.run()));
                fs.add(bus.request("front", i, new DeliveryOptions()).onComplete(ar -> onLoop.run()));
            }
        }
        if (from + 50 >= calls) {
            submitted.complete();
        } else {
            caller.runOnContext(v -> submitChunk(caller, from + 50, calls, fs, web, port, bus, onLoop, submitted));
        }
    }

    private static void awaitAll(List<Future<?>> futures) {
        for (Future<?> f : futures) {
            Await.result(f);
        }
    }

    @Test
    void theWatchSeesATaskThatBlocksTheEventLoop() throws Exception {
        Promise<Void> done = Promise.promise();
        vertx.runOnContext(v -> {
            try {
                // The deliberate fault this test exists for: an event-loop task that waits.
                new CountDownLatch(1).await(4 * LIMIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.complete();
        });
        Await.result(done.future());
        assertThat(watch.blocking()).isNotEmpty().allSatisfy(r -> {
            assertThat(r.state()).isEqualTo(Thread.State.TIMED_WAITING);
            assertThat(r.durationMs()).isGreaterThanOrEqualTo(LIMIT_MS);
        });
    }
}
