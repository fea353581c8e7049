package dev.adaptive.hazelcast;

import dev.adaptive.fleet.FleetEvent;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.testing.FlakyHttpServerExtension;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.testing.Until;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fleet of three processes, each on its own member of a real three-member Hazelcast cluster
 * on 127.0.0.1, calling one loopback HTTP server that holds each request 20 ms. Every limiter
 * has a fixed local limit of 6, so the fleet's ceiling is 6 and each of three nodes gets 2.
 * In order: the ceiling holds under load, a 429 met by one node pauses all three, a member
 * killed mid-run (terminated, no leave) gives its share back once its report's TTL has passed,
 * and the member started again rejoins with a new incarnation.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HazelcastFleetTest {

    private static final int CEILING = 6;
    private static final String KEY = "backend";

    @RegisterExtension
    static final FlakyHttpServerExtension server = FlakyHttpServerExtension.of(FlakyModel.holding(20));

    private static TestCluster cluster;
    private static HttpClient http;
    private static final List<FleetNode> nodes = new ArrayList<>();
    private static FleetNode killed;

    @BeforeAll
    static void start() throws Exception {
        http = FleetLoad.client();
        cluster = TestCluster.start(3);
        for (int i = 0; i < 3; i++) {
            nodes.add(new FleetNode(cluster.member(i), KEY, "node-" + i, CEILING));
        }
        awaitNodes(nodes, n -> n.settled(3, CEILING), "three nodes, each with a share of the ceiling of 6");
    }

    @AfterAll
    static void stop() {
        nodes.forEach(FleetNode::close);
        if (killed != null) {
            killed.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void awaitNodes(List<FleetNode> which, Predicate<FleetNode> condition, String what) {
        Until.met(what + ": " + which, Duration.ofSeconds(30), () -> which.stream().allMatch(condition));
    }

    /** Runs {@code callers} loops on each node until the server has served {@code requests} more. */
    private static void load(List<FleetNode> which, int callers, long requests) {
        long target = server.get().served() + requests;
        List<FleetLoad> loads = which.stream()
                .map(n -> new FleetLoad(n.limiter, http, server.port(), "/" + n.member.nodeId()).start(callers))
                .toList();
        Until.met("server served " + requests, Duration.ofSeconds(30), () -> server.get().served() >= target);
        loads.forEach(l -> l.stop().orTimeout(20, TimeUnit.SECONDS).join());
        loads.forEach(l -> assertThat(l.failed()).as("failed calls").isZero());
    }

    @Test
    @Order(1)
    void theFleetInFlightAtTheServerNeverExceedsTheSharedCeiling() {
        server.get().resetMax();
        load(nodes, 8, 900);
        System.out.println("ceiling phase: server max in flight " + server.get().maxInflight() + "; " + nodes);
        assertThat(server.get().maxInflight()).as("fleet in flight at the server").isLessThanOrEqualTo(CEILING);
        assertThat(server.get().maxInflight()).as("the fleet used its ceiling").isGreaterThanOrEqualTo(CEILING - 1);
        nodes.forEach(n -> assertThat(n.member.stats().globalCeiling()).isEqualTo(CEILING));
    }

    @Test
    @Order(2)
    void aRateLimitMetByOneNodePausesAllThree() {
        server.get().rateLimitNext();
        List<FleetLoad> loads = nodes.stream()
                .map(n -> new FleetLoad(n.limiter, http, server.port(), "/" + n.member.nodeId()).start(4))
                .toList();
        Until.met("every node received the fleet's pause: " + nodes, Duration.ofSeconds(20),
                () -> nodes.stream().allMatch(n -> n.pausesReceived() > 0));
        loads.forEach(l -> l.stop().orTimeout(20, TimeUnit.SECONDS).join());
        List<FleetEvent.PausePublished> published = nodes.stream().flatMap(n -> n.events.stream())
                .filter(e -> e instanceof FleetEvent.PausePublished).map(e -> (FleetEvent.PausePublished) e).toList();
        assertThat(published).as("one node met the 429 and published it").hasSize(1);
        FleetPause pause = published.get(0).pause();
        for (FleetNode n : nodes) {
            assertThat(n.events).as(n.member.nodeId() + " received the pause").anySatisfy(e ->
                    assertThat(e).isInstanceOfSatisfying(FleetEvent.PauseReceived.class,
                            r -> assertThat(r.pause()).isEqualTo(pause)));
        }
        assertThat(loads.stream().mapToLong(FleetLoad::rateLimited).sum()).isEqualTo(1);
    }

    @Test
    @Order(3)
    void aKilledMembersReportExpiresAndTheOthersSharesGrow() {
        List<FleetNode> survivors = List.copyOf(nodes.subList(0, 2));
        List<FleetLoad> loads = new ArrayList<>();
        nodes.forEach(n -> loads.add(new FleetLoad(n.limiter, http, server.port(), "/" + n.member.nodeId()).start(6)));
        Until.met("load flowing", Duration.ofSeconds(10), () -> loads.stream().allMatch(l -> l.ok() > 20));
        server.get().resetMax();
        long killedAt = System.nanoTime();
        cluster.terminate(2);
        killed = nodes.remove(2);
        killed.limiter.abort(); // the process is gone: its callers with it
        awaitNodes(survivors, n -> n.settled(2, CEILING), "survivors, each with a share of the ceiling of 6");
        long grownMillis = (System.nanoTime() - killedAt) / 1_000_000;
        long servedBefore = server.get().served();
        Until.met("survivors served 300 more", Duration.ofSeconds(30), () -> server.get().served() >= servedBefore + 300);
        loads.subList(0, 2).forEach(l -> l.stop().orTimeout(20, TimeUnit.SECONDS).join());
        System.out.printf("kill: survivors' shares grew %d ms after the kill (ttl %d ms); server max in flight %d%n",
                grownMillis, FleetNode.TTL.toMillis(), server.get().maxInflight());
        assertThat(grownMillis).as("the killed node's report lived its TTL first")
                .isGreaterThanOrEqualTo(FleetNode.TTL.toMillis() - FleetNode.HEARTBEAT.toMillis());
        assertThat(server.get().maxInflight()).isLessThanOrEqualTo(CEILING);
        survivors.forEach(n -> assertThat(n.member.stats().globalCeiling()).isEqualTo(CEILING));
    }

    @Test
    @Order(4)
    void aRestartedMemberRejoinsWithANewIncarnation() {
        String before = killed.member.incarnation();
        killed.close(); // the dead process's member: its heartbeats have been failing since the kill
        cluster.restart(2);
        FleetNode again = new FleetNode(cluster.member(2), KEY, "node-2", CEILING);
        nodes.add(again);
        awaitNodes(nodes, n -> n.settled(3, CEILING), "three nodes again");
        assertThat(again.member.incarnation()).isNotEqualTo(before);
        server.get().resetMax();
        load(nodes, 6, 600);
        System.out.println("restart: server max in flight " + server.get().maxInflight() + "; " + nodes);
        assertThat(server.get().maxInflight()).isLessThanOrEqualTo(CEILING);
        nodes.forEach(n -> assertThat(n.sawDuplicateId()).as(n.member.nodeId() + " saw a duplicate id").isFalse());
    }
}
