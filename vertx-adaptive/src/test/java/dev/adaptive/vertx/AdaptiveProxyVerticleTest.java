package dev.adaptive.vertx;

import dev.adaptive.limit.Outcome;
import dev.adaptive.trace.TraceEvent;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(VertxExtension.class)
class AdaptiveProxyVerticleTest {

    private static JsonObject config(String address, String target, JsonObject options) {
        return new JsonObject().put("address", address).put("targetAddress", target).put("options", options);
    }

    @Test
    void deployedFromJsonConfigItForwardsThroughTheLimiterAndHonoursTheTargetsRateLimits(Vertx vertx) {
        CappedConsumer target = new CappedConsumer(vertx, "orders.backend", 3, 15, Duration.ofMillis(200));
        PauseWatch watch = new PauseWatch();
        AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle(null, b -> b.traceListener(watch));
        JsonObject config = config("orders", "orders.backend", new JsonObject()
                .put("initialLimit", 8).put("maxLimit", 20).put("statsAddress", "orders.stats"));
        Await.result(vertx.deployVerticle(proxy, new DeploymentOptions().setConfig(config)));
        assertThat(proxy.limiter().name()).as("named after its address").isEqualTo("orders");
        List<Future<Message<String>>> replies = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            replies.add(vertx.eventBus().request("orders", "o" + i, new DeliveryOptions().addHeader("x-id", "" + i)));
        }
        for (int i = 0; i < 60; i++) {
            Message<String> reply = Await.result(replies.get(i));
            assertThat(reply.body()).isEqualTo("echo:o" + i);
            assertThat(reply.headers().get("x-id")).as("request headers forwarded, reply headers returned")
                    .isEqualTo("" + i);
            assertThat(reply.headers().get("served-by")).isEqualTo("capped");
        }
        assertThat(target.rateLimited()).isPositive();
        assertThat(proxy.limiter().limiter().stats().rateLimitEvents()).isEqualTo(target.rateLimited());
        assertThat(target.arrivals()).as("each 429 costs one extra arrival").isEqualTo(60 + target.rateLimited());
        assertThat(target.maxInflight()).isLessThanOrEqualTo(3);
        assertThat(watch.pauses()).isPositive();
        assertThat(watch.dispatchesInsidePauses()).isZero();
    }

    @Test
    void deployedByClassNameFromConfigToo(Vertx vertx) {
        Await.result(vertx.eventBus().consumer("echo", m -> m.reply("pong")).completion());
        String id = Await.result(vertx.deployVerticle(AdaptiveProxyVerticle.class,
                new DeploymentOptions().setConfig(config("ping", "echo", new JsonObject().put("statsAddress", null)))));
        assertThat(Await.result(vertx.eventBus().<String>request("ping", "x")).body()).isEqualTo("pong");
        Await.result(vertx.undeploy(id));
    }

    @Test
    void aLastRateLimitIsForwardedToTheCallerAsTheTargetSentIt(Vertx vertx) {
        Await.result(vertx.eventBus().consumer("busy", m -> RateLimitReply.fail(m, Duration.ofMillis(20))).completion());
        Await.result(vertx.deployVerticle(new AdaptiveProxyVerticle(new AdaptiveProxyOptions().setAddress("front")
                .setTargetAddress("busy").setOptions(new AdaptiveOptions().setMaxRateLimitRetries(1)
                        .setStatsAddress(null)))));
        Throwable t = Await.failure(vertx.eventBus().request("front", "x"));
        assertThat(t).isInstanceOfSatisfying(ReplyException.class, re -> {
            assertThat(re.failureCode()).isEqualTo(429);
            assertThat(re.getMessage()).isEqualTo("retry-after-ms=20");
        });
    }

    @Test
    void aRateLimitWhoseRetryTheBudgetRefusedIsForwardedAsTheTargetSentItToo(Vertx vertx) {
        // The defaults alone (the retry budget on: a fifth of first attempts and 10 a second over
        // 10 s): 30 callers against a target that keeps refusing spend it within a few retries.
        Await.result(vertx.eventBus().consumer("busy-all", m -> RateLimitReply.fail(m, Duration.ofMillis(5))).completion());
        Await.result(vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions()
                .setConfig(config("front-all", "busy-all", new JsonObject().put("statsAddress", (String) null)))));
        List<Future<Message<Object>>> replies = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            replies.add(vertx.eventBus().request("front-all", "x" + i));
        }
        for (Future<Message<Object>> reply : replies) {
            assertThat(Await.failure(reply)).isInstanceOfSatisfying(ReplyException.class, re -> {
                assertThat(re.failureCode()).as("the target's 429, so the caller backs off too").isEqualTo(429);
                assertThat(re.getMessage()).isEqualTo("retry-after-ms=5");
            });
        }
    }

    @Test
    void undeployingFailsEveryPendingRequestAtOnceWithAClearError(Vertx vertx) {
        AtomicInteger held = new AtomicInteger();
        // A target that never answers: without the proxy failing them, callers would hang until their own timeout.
        Await.result(vertx.eventBus().consumer("black-hole", m -> held.incrementAndGet()).completion());
        AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle();
        String id = Await.result(vertx.deployVerticle(proxy, new DeploymentOptions().setConfig(config("pending",
                "black-hole", new JsonObject().put("algorithm", "fixed").put("maxLimit", 2)
                        .put("statsAddress", null)))));
        List<Future<Message<Object>>> requests = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            requests.add(vertx.eventBus().request("pending", i, new DeliveryOptions().setSendTimeout(60_000)));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(Await.TIMEOUT_SECONDS).toNanos();
        while (held.get() < 2 || proxy.limiter().limiter().waiting() < 8) {
            assertThat(System.nanoTime()).as("requests reached the proxy").isLessThan(deadline);
            Await.result(vertx.timer(5));
        }
        Await.result(vertx.undeploy(id));
        for (Future<Message<Object>> r : requests) {
            assertThat(Await.failure(r)).isInstanceOfSatisfying(ReplyException.class, re -> {
                assertThat(re.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
                assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.UNAVAILABLE);
                assertThat(re.getMessage()).isEqualTo("adaptive-proxy 'pending' was undeployed before the request completed");
            });
        }
        assertThat(held).as("only the limit reached the target").hasValue(2);
        assertThat(Await.failure(vertx.eventBus().request("pending", "late")))
                .isInstanceOfSatisfying(ReplyException.class, re -> assertThat(re.failureType()).isEqualTo(ReplyFailure.NO_HANDLERS));
    }

    @Test
    void aMissingTargetOrATimeoutIsReportedWithItsOwnCode(Vertx vertx) {
        Await.result(vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions().setConfig(
                config("to-nowhere", "nowhere", new JsonObject().put("retries", 1).put("minDelay", 1)
                        .put("maxDelay", 2).put("statsAddress", null)))));
        assertThat(Await.failure(vertx.eventBus().request("to-nowhere", "x"))).isInstanceOfSatisfying(ReplyException.class,
                re -> assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.NO_TARGET));
        Await.result(vertx.eventBus().consumer("silent", m -> { }).completion());
        Await.result(vertx.deployVerticle(new AdaptiveProxyVerticle(), new DeploymentOptions().setConfig(
                config("to-silent", "silent", new JsonObject().put("retries", 0).put("statsAddress", null))
                        .put("requestTimeout", 50))));
        assertThat(Await.failure(vertx.eventBus().request("to-silent", "x"))).isInstanceOfSatisfying(ReplyException.class,
                re -> {
                    assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.TIMEOUT);
                    assertThat(re.getMessage()).contains("50 ms");
                });
    }

    /**
     * A reply the proxy cannot pass on (its body of a codec registered by name only, which the
     * proxy does not know) is answered at once with {@value AdaptiveProxyVerticle#ERROR}, not
     * left to the caller's own timeout.
     */
    @Test
    void aReplyThatCannotBePassedOnIsAnsweredAtOnceNotLeftToTheCallersTimeout(Vertx vertx) {
        vertx.eventBus().registerCodec(Parcel.codec("parcel"));
        Await.result(vertx.eventBus().consumer("parcels.backend", m -> m.reply(new Parcel("reply"),
                new DeliveryOptions().setCodecName("parcel"))).completion());
        AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle(new AdaptiveProxyOptions().setAddress("parcels")
                .setTargetAddress("parcels.backend").setOptions(new AdaptiveOptions().setStatsAddress(null)));
        Await.result(vertx.deployVerticle(proxy));
        // Far longer than Await waits: only the proxy's answer can end the request in time.
        DeliveryOptions patient = new DeliveryOptions().setSendTimeout(Duration.ofMinutes(5).toMillis());
        assertThat(Await.failure(vertx.eventBus().request("parcels", "x", patient)))
                .isInstanceOfSatisfying(ReplyException.class, re -> {
                    assertThat(re.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
                    assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.ERROR);
                    assertThat(re.getMessage()).startsWith("adaptive-proxy 'parcels': ").contains("codec");
                });
        assertThat(proxy.limiter().limiter().inflight()).isZero();
    }

    /**
     * A request whose body the event bus cannot send on (a codec registered by name only, which
     * the proxy does not know): the event bus refuses it before anything is sent, so the target
     * and the limit learn nothing from it. The caller gets {@link AdaptiveProxyVerticle#ERROR}
     * naming the refusal at once, after one attempt, with no sample. Before, the refusal was a
     * drop like a failing target's: the request was tried four times with the default options,
     * each lowering the limit, and answered only after the backoffs.
     */
    @Test
    void aRequestBodyTheEventBusCannotSendOnIsAnsweredAtOnceWithoutADrop(Vertx vertx) {
        vertx.eventBus().registerCodec(Parcel.codec("parcel"));
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(vertx.eventBus().consumer("unsendable.backend", m -> {
            arrivals.incrementAndGet();
            m.reply("ok");
        }).completion());
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle(new AdaptiveProxyOptions().setAddress("unsendable")
                .setTargetAddress("unsendable.backend").setOptions(new AdaptiveOptions().setStatsAddress(null)),
                b -> b.traceListener(e -> {
                    if (e instanceof TraceEvent.TaskEnd end) {
                        outcomes.add(end.outcome());
                    }
                }));
        Await.result(vertx.deployVerticle(proxy));
        DeliveryOptions named = new DeliveryOptions().setCodecName("parcel");
        assertThat(Await.failure(vertx.eventBus().request("unsendable", new Parcel("x"), named)))
                .isInstanceOfSatisfying(ReplyException.class, re -> {
                    assertThat(re.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
                    assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.ERROR);
                    assertThat(re.getMessage()).startsWith("adaptive-proxy 'unsendable': ")
                            .contains("No message codec");
                });
        assertThat(outcomes).as("one attempt, no sample").containsExactly(Outcome.IGNORED);
        assertThat(proxy.limiter().limiter().stats().congestionEvents()).isZero();
        assertThat(proxy.limiter().limiter().inflight()).isZero();
        assertThat(arrivals).hasValue(0);
        // A body the event bus sends still goes through the same proxy.
        assertThat(Await.result(vertx.eventBus().<String>request("unsendable", "y")).body()).isEqualTo("ok");
    }

    @Test
    void aBadConfigFailsTheDeploymentNamingTheOption(Vertx vertx) {
        assertThat(Await.failure(vertx.deployVerticle(new AdaptiveProxyVerticle(),
                new DeploymentOptions().setConfig(new JsonObject().put("address", "a")))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetAddress");
        assertThat(Await.failure(vertx.deployVerticle(new AdaptiveProxyVerticle(),
                new DeploymentOptions().setConfig(config("a", "b", new JsonObject().put("maxLimit", 0))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxLimit must be >= 1: 0");
        assertThat(Await.failure(vertx.deployVerticle(new AdaptiveProxyVerticle(),
                new DeploymentOptions().setConfig(config("a", "b", new JsonObject()).put("timeout", 5)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'timeout'");
        assertThat(Await.failure(vertx.deployVerticle(new AdaptiveProxyVerticle(),
                new DeploymentOptions().setConfig(config("a", "a", new JsonObject())))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("targetAddress must differ");
    }

    @Test
    void proxyOptionsRoundTripThroughJson() {
        AdaptiveProxyOptions o = new AdaptiveProxyOptions().setAddress("a").setTargetAddress("b")
                .setRequestTimeout(1234).setLocalConsumer(true).setOptions(new AdaptiveOptions().setMaxLimit(9));
        assertThat(new AdaptiveProxyOptions(o.toJson())).isEqualTo(o);
        assertThat(new AdaptiveProxyOptions(o)).isEqualTo(o);
        assertThat(o.toJson().getJsonObject("options").getInteger("maxLimit")).isEqualTo(9);
    }
}
