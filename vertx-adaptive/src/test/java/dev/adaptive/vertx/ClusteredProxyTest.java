package dev.adaptive.vertx;

import dev.adaptive.testing.Until;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy on a clustered event bus, where a request's body arrives as bytes and is decoded
 * when the proxy reads it. Two real clustered Vert.x nodes on 127.0.0.1: callers on one, the
 * proxy and its target on the other.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusteredProxyTest {

    private static ClusterNodes cluster;
    private static Vertx caller;
    private static Vertx proxyNode;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterNodes.start(2);
        caller = cluster.nodes.get(0);
        proxyNode = cluster.nodes.get(1);
        for (Vertx v : cluster.nodes) {
            v.eventBus().registerDefaultCodec(Parcel.class, Parcel.unreadableCodec("brittle"));
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    /**
     * A request whose body the proxy's node cannot decode is answered at once with
     * {@link AdaptiveProxyVerticle#ERROR} naming the codec's failure, and never reaches the
     * target or the limiter. Before, the codec's exception was thrown from the proxy's handler
     * when it read the body, went to the context's exception handler, and the caller waited for
     * its own send timeout (30 s by default).
     */
    @Test
    void aRequestBodyTheProxysNodeCannotDecodeIsAnsweredAtOnce() {
        AtomicInteger arrivals = new AtomicInteger();
        Await.result(proxyNode.eventBus().localConsumer("brittle.backend", m -> {
            arrivals.incrementAndGet();
            m.reply("ok");
        }).completion());
        AdaptiveProxyVerticle proxy = new AdaptiveProxyVerticle(new AdaptiveProxyOptions().setAddress("brittle")
                .setTargetAddress("brittle.backend").setOptions(new AdaptiveOptions().setStatsAddress(null)));
        Await.result(proxyNode.deployVerticle(proxy));
        // The proxy's registration reaches the caller's node asynchronously.
        Until.met("the proxy reachable from the caller's node", Duration.ofSeconds(60), () -> {
            try {
                return "ok".equals(Await.result(caller.eventBus().<String>request("brittle", "ping")).body());
            } catch (AssertionError notYet) {
                return false;
            }
        });
        arrivals.set(0);
        // Far longer than Await waits: only the proxy's answer can end the request in time.
        DeliveryOptions patient = new DeliveryOptions().setSendTimeout(Duration.ofMinutes(5).toMillis());
        assertThat(Await.failure(caller.eventBus().request("brittle", new Parcel("x"), patient)))
                .isInstanceOfSatisfying(ReplyException.class, re -> {
                    assertThat(re.failureType()).isEqualTo(ReplyFailure.RECIPIENT_FAILURE);
                    assertThat(re.failureCode()).isEqualTo(AdaptiveProxyVerticle.ERROR);
                    assertThat(re.getMessage()).startsWith("adaptive-proxy 'brittle': ")
                            .contains("brittle: unreadable on this node");
                });
        assertThat(arrivals).hasValue(0);
        assertThat(proxy.limiter().limiter().stats().congestionEvents()).isZero();
        assertThat(proxy.limiter().limiter().inflight()).isZero();
    }
}
