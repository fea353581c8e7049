package dev.adaptive.vertx;

import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.fleet.FleetStats;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three Vert.x nodes clustered by Hazelcast on loopback (one cluster for the class).
 *
 * <p>First {@link SharedDataCoordinator} itself: one store of reports with TTLs, and pauses
 * relayed to every node. Then the fleet: each node's {@link AdaptiveLimiter} is made a
 * {@link FleetMember} through the coordinator, all calling one HTTP server: their summed
 * in-flight never exceeds the shared ceiling, a 429 seen by one node pauses all three, and a
 * node that stops gives its share back after its TTL. Every limiter has a fixed local limit of
 * 6, so the fleet's ceiling is 6 (the upper median of the local limits) and each of three nodes
 * gets 2. The last test stops a node.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusteredFleetTest {

    private static final List<SharedDataCoordinator> coordinators = new ArrayList<>();

    private static final int CEILING = 6;
    private static final String PAUSES_SEEN = "x-fleet-pauses-seen";

    private static ClusterNodes cluster;
    private static Vertx serverVertx;
    private static int port;
    private static final List<FleetMember> members = new ArrayList<>();
    private static final List<AdaptiveWebClient> clients = new ArrayList<>();
    private static final List<PauseWatch> watches = new ArrayList<>();

    // The server's view, touched on its one event loop.
    private static int inflight;
    private static int maxInflight;
    private static final AtomicBoolean rateLimitNext = new AtomicBoolean();
    private static final List<long[]> windows = new ArrayList<>();
    private static final List<long[]> arrivals = new ArrayList<>(); // {time, pauses the node had seen}
    private static final AtomicInteger arrivalCount = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        serverVertx = Vertx.vertx();
        HttpServer server = Await.result(serverVertx.createHttpServer(
                        new HttpServerOptions().setHost("127.0.0.1").setPort(0))
                .requestHandler(req -> {
                    long now = System.nanoTime();
                    arrivalCount.incrementAndGet();
                    synchronized (ClusteredFleetTest.class) {
                        arrivals.add(new long[] {now, Long.parseLong(req.getHeader(PAUSES_SEEN))});
                        maxInflight = Math.max(maxInflight, ++inflight);
                    }
                    if (rateLimitNext.compareAndSet(true, false)) {
                        synchronized (ClusteredFleetTest.class) {
                            windows.add(new long[] {now, now + Duration.ofSeconds(1).toNanos()});
                            inflight--;
                        }
                        req.response().setStatusCode(429).putHeader("Retry-After", "1").end();
                        return;
                    }
                    serverVertx.setTimer(20, id -> {
                        synchronized (ClusteredFleetTest.class) {
                            inflight--;
                        }
                        req.response().end("ok");
                    });
                }).listen());
        port = server.actualPort();
        cluster = ClusterNodes.start(3);
        cluster.nodes.forEach(v -> coordinators.add(SharedDataCoordinator.create(v)));
        for (int i = 0; i < 3; i++) {
            Vertx node = cluster.nodes.get(i);
            PauseWatch watch = new PauseWatch();
            AdaptiveLimiter limiter = AdaptiveLimiter.builder(node, new AdaptiveOptions().setName("node-" + i)
                            .setAlgorithm("fixed").setMaxLimit(CEILING).setStatsAddress(null))
                    .traceListener(watch).build();
            watches.add(watch);
            clients.add(AdaptiveWebClient.create(
                    WebClient.create(node, new WebClientOptions(), new PoolOptions().setHttp1MaxSize(16)), limiter));
            members.add(FleetMember.builder(limiter.limiter(), SharedDataCoordinator.create(node))
                    .key("backend").nodeId("node-" + i)
                    .heartbeat(Duration.ofMillis(500)).ttl(Duration.ofSeconds(3))
                    .join());
        }
        // Every member sees the three and the whole ceiling; idle, each holds one slot (shares follow demand).
        awaitMembers(members, s -> s.liveNodes() == 3 && s.globalCeiling() == CEILING && s.share() >= 1);
    }

    @AfterAll
    static void stop() {
        for (FleetMember m : members) {
            try {
                m.close();
            } catch (RuntimeException stoppedWithItsNode) {
                // node-2's member went down with its Vert.x in the last test
            }
        }
        if (cluster != null) {
            cluster.close();
        }
        if (serverVertx != null) {
            Await.result(serverVertx.close());
        }
    }

    private static void awaitMembers(List<FleetMember> which, Predicate<FleetStats> condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!which.stream().allMatch(m -> condition.test(m.stats()))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fleet did not settle: " + which.stream().map(FleetMember::stats).toList());
            }
            Await.result(serverVertx.timer(50));
        }
    }

    private static synchronized void resetServerView() {
        maxInflight = inflight;
        arrivals.clear();
        windows.clear();
    }

    /** Sends {@code perNode} requests from each of the given nodes at once and waits for all. */
    private static void load(int nodes, int perNode) {
        List<Future<HttpResponse<Buffer>>> calls = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
            AdaptiveWebClient client = clients.get(n);
            PauseWatch watch = watches.get(n);
            for (int i = 0; i < perNode; i++) {
                calls.add(client.send(client.get(port, "127.0.0.1", "/n" + n + "/" + i), (copy, ctx) ->
                        copy.putHeader(PAUSES_SEEN, String.valueOf(watch.pausesBeforeThisAttempt())).send()));
            }
        }
        for (Future<HttpResponse<Buffer>> c : calls) {
            assertThat(Await.result(c).statusCode()).isEqualTo(200);
        }
    }


    private static <T> T await(CompletionStage<T> stage) {
        return Await.result(Future.fromCompletionStage(stage));
    }

    private static NodeReport report(int node, int limit) {
        return new NodeReport("node-" + node, "inc-" + node, limit, 0, Instant.now());
    }

    @Test
    @Order(1)
    void everyNodeSeesEveryNodesReport() {
        for (int i = 0; i < 3; i++) {
            await(coordinators.get(i).heartbeat("shared", report(i, 10 + i), Duration.ofSeconds(30)));
        }
        for (int i = 0; i < 3; i++) {
            assertThat(await(coordinators.get(i).heartbeat("shared", report(i, 10 + i), Duration.ofSeconds(30))))
                    .extracting(NodeReport::nodeId, NodeReport::localLimit)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("node-0", 10),
                            org.assertj.core.groups.Tuple.tuple("node-1", 11),
                            org.assertj.core.groups.Tuple.tuple("node-2", 12));
        }
    }

    @Test
    @Order(2)
    void aPausePublishedOnOneNodeReachesAllThree() {
        List<Promise<FleetPause>> heard = new ArrayList<>();
        List<AutoCloseable> subs = new ArrayList<>();
        for (SharedDataCoordinator c : coordinators) {
            Promise<FleetPause> p = Promise.promise();
            heard.add(p);
            subs.add(c.subscribePauses("paused", p::tryComplete));
        }
        FleetPause pause = new FleetPause("node-1", Instant.now().plusSeconds(20));
        await(coordinators.get(1).publishPause("paused", pause));
        for (Promise<FleetPause> p : heard) {
            // Heard live, or, for a node whose subscription registered after the publish, from the store.
            assertThat(Await.result(p.future())).isEqualTo(pause);
        }
        subs.forEach(s -> {
            try {
                s.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    @Order(3)
    void theSummedInFlightOfThreeNodesNeverExceedsTheSharedCeiling() {
        resetServerView();
        load(3, 150);
        members.forEach(m -> System.out.println("fleet member after the ceiling phase: " + m.stats()));
        members.forEach(m -> assertThat(m.stats().globalCeiling()).isEqualTo(CEILING));
        synchronized (ClusteredFleetTest.class) {
            assertThat(maxInflight).as("fleet in flight at the server").isLessThanOrEqualTo(CEILING);
        }
    }

    @Test
    @Order(4)
    void aRateLimitSeenByOneNodePausesAllThree() {
        resetServerView();
        rateLimitNext.set(true); // the next arrival, whichever node sent it, gets 429 with Retry-After: 1
        load(3, 100);
        synchronized (ClusteredFleetTest.class) {
            assertThat(windows).hasSize(1);
            long[] w = windows.get(0);
            int announced = 0;
            int raw = 0;
            for (long[] a : arrivals) {
                if (a[0] > w[0] && a[0] < w[1]) {
                    raw++;
                    if (a[1] >= 1) {
                        announced++;
                    }
                }
            }
            System.out.printf("fleet pause: arrivals inside the window from nodes that knew of it %d, raw %d%n",
                    announced, raw);
            assertThat(announced).as("arrivals inside the window from nodes told of it").isZero();
        }
        for (int i = 0; i < 3; i++) {
            assertThat(watches.get(i).pauses()).as("node-" + i + " paused").isPositive();
            assertThat(watches.get(i).dispatchesInsidePauses()).as("node-" + i + " dispatched while paused").isZero();
            assertThat(members.get(i).stats().pausesReceived()).isPositive();
        }
        assertThat(members.stream().mapToLong(m -> m.stats().pausesPublished()).sum()).isEqualTo(1);
    }

    @Test
    @Order(5)
    void aNodeThatLeavesIsGoneAtOnceAndOneThatStopsGivesItsShareBackAfterItsTtl() {
        Duration ttl = Duration.ofSeconds(1);
        for (int i = 0; i < 3; i++) {
            await(coordinators.get(i).heartbeat("ttl", report(i, 5), ttl));
        }
        await(coordinators.get(1).leave("ttl", "node-1"));
        assertThat(await(coordinators.get(0).heartbeat("ttl", report(0, 5), ttl)))
                .extracting(NodeReport::nodeId).containsExactly("node-0", "node-2");
        cluster.stop(2); // node-2 and its fleet member just stop: no leave is sent
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        List<NodeReport> live;
        do {
            Await.result(serverVertx.timer(200));
            live = await(coordinators.get(0).heartbeat("ttl", report(0, 5), ttl));
        } while (live.size() > 1 && System.nanoTime() < deadline);
        assertThat(live).extracting(NodeReport::nodeId).containsExactly("node-0");
        List<FleetMember> survivors = members.subList(0, 2);
        awaitMembers(survivors, s -> s.liveNodes() == 2 && s.globalCeiling() == CEILING && s.share() >= 1);
        resetServerView();
        load(2, 150);
        synchronized (ClusteredFleetTest.class) {
            assertThat(maxInflight).isLessThanOrEqualTo(CEILING);
        }
    }
}
