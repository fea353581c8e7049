package dev.adaptive.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.testing.LoopbackPorts;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * What a Hazelcast deployment can throw at the coordinator besides a healthy cluster: a client
 * that has shut down (its pause subscriptions are given up, as a stopped member's are, instead
 * of being tried again every second), and a node id that UTF-8 cannot hold as it is (a lone
 * surrogate, an emoji cut in half), which must come back from the store as it went in.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HazelcastEdgesTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2030-01-01T00:00:00Z"), ZoneOffset.UTC);

    /**
     * Registrations run on the calling thread and retries on virtual time, so "never tried
     * again" is checked by running every retry a minute could hold instead of by waiting.
     */
    private static HazelcastCoordinator coordinator(HazelcastInstance instance, VirtualTime time) {
        return HazelcastCoordinator.builder(instance).clock(CLOCK).scheduler(time).executor(Runnable::run).build();
    }

    @Test
    void aSubscriptionOnAClientThatHasShutDownIsNotRetriedForever() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastInstance member = cluster.member(0);
            HazelcastInstance client = cluster.newClient(cc -> { });
            VirtualTime time = new VirtualTime();
            HazelcastCoordinator onClient = coordinator(client, time);
            HazelcastCoordinator onMember = coordinator(member, time);

            client.shutdown();
            AutoCloseable clientSub = onClient.subscribePauses("api", p -> { });
            assertThat(onClient.subscriptionFailures()).as("the client registration failure counted").isEqualTo(1);

            cluster.terminate(0);
            AutoCloseable memberSub = onMember.subscribePauses("api", p -> { });
            assertThat(onMember.subscriptionFailures()).as("the member registration failure counted").isEqualTo(1);

            assertThat(time.pendingTasks()).as("no registration is scheduled to be tried again").isZero();
            time.advance(Duration.ofMinutes(1));
            clientSub.close();
            memberSub.close();
            assertThat(onMember.subscriptionFailures()).as("a stopped member: given up at once").isEqualTo(1);
            assertThat(onClient.subscriptionFailures()).as("a shut-down client: given up at once, not tried every second")
                    .isEqualTo(1);
        }
    }

    @Test
    void aNodeIdRoundTripsThroughTheStoreAndIsReplacedNotDuplicated() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastCoordinator c = HazelcastCoordinator.builder(cluster.member(0)).clock(CLOCK).build();
            String nodeId = "orders-\ud83d\ude80".substring(0, 8); // "orders-" + the high half of 🚀
            List<NodeReport> last = null;
            for (int i = 0; i < 3; i++) {
                last = c.heartbeat("api", new NodeReport(nodeId, "i1", 5, 0, CLOCK.instant()), Duration.ofSeconds(60))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            assertThat(last).extracting(NodeReport::nodeId).containsExactly(nodeId);
        }
    }

    /**
     * A fleet key is a map key, which Hazelcast stores as UTF-8: a lone surrogate would be kept
     * as '?', and the key would share its entry (reports, pauses) with another key's fleet. Such
     * a key is refused, naming it, where a node joins (the subscription to its pauses) and at
     * every operation; a key with a whole emoji is stored as it is, and its nodes meet.
     */
    @Test
    void aFleetKeyWithALoneSurrogateIsRefusedNotFoldedIntoAnotherKey() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastCoordinator c = HazelcastCoordinator.builder(cluster.member(0)).clock(CLOCK).build();
            String cut = "orders-\ud83d\ude80".substring(0, 8); // "orders-" + the high half of the rocket
            String message = "fleet key holds a lone UTF-16 surrogate (\\ud83d at index 7)";
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            NodeReport b = new NodeReport("b", "i1", 5, 0, CLOCK.instant());
            org.assertj.core.api.SoftAssertions.assertSoftly(soft -> {
                soft.assertThatThrownBy(() -> c.subscribePauses(cut, p -> { }))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
                soft.assertThatThrownBy(() -> c.heartbeat(cut, a, Duration.ofSeconds(60)))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
                soft.assertThatThrownBy(() -> c.leave(cut, "a"))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
                soft.assertThatThrownBy(() -> c.publishPause(cut,
                                new dev.adaptive.fleet.FleetPause("a", CLOCK.instant().plusSeconds(5))))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
            });
            // Another key, "orders-?", keeps a fleet of its own.
            List<NodeReport> other = c.heartbeat("orders-?", b, Duration.ofSeconds(60)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            assertThat(other).extracting(NodeReport::nodeId).containsExactly("b");
            String whole = "orders-\ud83d\ude80";
            c.heartbeat(whole, a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            List<NodeReport> both = c.heartbeat(whole, b, Duration.ofSeconds(60)).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            assertThat(both).extracting(NodeReport::nodeId).containsExactlyInAnyOrder("a", "b");
        }
    }
    /**
     * Eviction or max-idle on the coordinator's maps (a cache's default map configuration, say)
     * lets Hazelcast drop a key's reports while its nodes live; each node would then find itself
     * alone and take the whole ceiling. A member refuses such a configuration when the coordinator
     * is built, naming the map, the map configuration that matched and the setting.
     */
    @Test
    void aMemberRefusesMapsThatHazelcastMayEvictOrExpireByIdleness() throws Exception {
        try (TestCluster cluster = TestCluster.start(1, c -> {
            c.addMapConfig(new MapConfig("default").setMaxIdleSeconds(60));
            c.addMapConfig(new MapConfig("cache.*").setEvictionConfig(new EvictionConfig()
                    .setEvictionPolicy(EvictionPolicy.LRU).setMaxSizePolicy(MaxSizePolicy.PER_NODE).setSize(1_000)));
            c.addMapConfig(new MapConfig("fleet.*"));
        })) {
            HazelcastInstance member = cluster.member(0);
            assertThatThrownBy(() -> HazelcastCoordinator.create(member))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'adaptive.fleet.reports' is configured with max-idle-seconds=60 (map config 'default')");
            assertThatThrownBy(() -> HazelcastCoordinator.builder(member).prefix("cache.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'cache.reports' is configured with eviction-policy=LRU (map config 'cache.*')");
            HazelcastCoordinator own = HazelcastCoordinator.builder(member).prefix("fleet.").clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            assertThat(own.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .extracting(NodeReport::nodeId).containsExactly("a");
        }
    }
    /**
     * An eviction policy only acts once the map reaches its max size; with none set (Hazelcast
     * reads a missing or 0 size as Integer.MAX_VALUE per node) it never does. Such a map
     * configuration (here the default one's, as XML would give it) keeps every entry until the
     * coordinator removes it, and a member builds a coordinator on it; a reachable size is
     * still refused, and so is a free-heap bound, which with no size set always evicts.
     */
    @Test
    void anEvictionPolicyWithNoMaxSizeNeverEvictsAndIsAccepted() throws Exception {
        try (TestCluster cluster = TestCluster.start(1, c -> {
            c.addMapConfig(new MapConfig("default").setEvictionConfig(new EvictionConfig()
                    .setEvictionPolicy(EvictionPolicy.LRU).setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                    .setSize(MapConfig.DEFAULT_MAX_SIZE)));
            c.addMapConfig(new MapConfig("free.*").setEvictionConfig(new EvictionConfig()
                    .setEvictionPolicy(EvictionPolicy.LRU).setMaxSizePolicy(MaxSizePolicy.FREE_HEAP_PERCENTAGE)
                    .setSize(MapConfig.DEFAULT_MAX_SIZE)));
        })) {
            HazelcastInstance member = cluster.member(0);
            HazelcastCoordinator coordinator = HazelcastCoordinator.builder(member).clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            NodeReport b = new NodeReport("b", "i1", 5, 0, CLOCK.instant());
            coordinator.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(coordinator.heartbeat("api", b, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .extracting(NodeReport::nodeId).containsExactly("a", "b");
            assertThatThrownBy(() -> HazelcastCoordinator.builder(member).prefix("free.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'free.reports' is configured with eviction-policy=LRU (map config 'free.*')");
        }
    }

    /**
     * A client's own configuration cannot read the cluster's map configuration, so a client asks
     * each data member for the configuration its map runs with there, and is refused as a member
     * would be: settings every member has, settings of one member only (that member named), and
     * a configuration added at run time from the client. A unisocket client asks the member it is
     * connected to, and names that one.
     */
    @Test
    void aClientRefusesMapsThatADataMemberMayEvictOrExpireByIdleness() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, (c, member) -> {
            c.addMapConfig(new MapConfig("idle.*").setMaxIdleSeconds(60));
            if (member == 1) {
                c.addMapConfig(new MapConfig("cache.*").setEvictionConfig(new EvictionConfig()
                        .setEvictionPolicy(EvictionPolicy.LRU).setMaxSizePolicy(MaxSizePolicy.PER_NODE).setSize(1_000)));
            }
        })) {
            HazelcastInstance client = cluster.newClient(cc -> { });
            assertThatThrownBy(() -> HazelcastCoordinator.builder(client).prefix("idle.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'idle.reports' is configured with max-idle-seconds=60 (member [127.0.0.1]:");
            assertThatThrownBy(() -> HazelcastCoordinator.builder(client).prefix("cache.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'cache.reports' is configured with eviction-policy=LRU (member "
                            + cluster.addressOf(1) + "'s configuration)");

            client.getConfig().addMapConfig(new MapConfig("added.*").setEvictionConfig(new EvictionConfig()
                    .setEvictionPolicy(EvictionPolicy.LFU).setMaxSizePolicy(MaxSizePolicy.FREE_HEAP_PERCENTAGE)
                    .setSize(MapConfig.DEFAULT_MAX_SIZE)));
            assertThatThrownBy(() -> HazelcastCoordinator.builder(client).prefix("added.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'added.reports' is configured with eviction-policy=LFU (member [127.0.0.1]:");

            HazelcastCoordinator own = HazelcastCoordinator.builder(client).prefix("fleet.").clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            assertThat(own.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .extracting(NodeReport::nodeId).containsExactly("a");

            HazelcastInstance unisocket = cluster.newClient(cc -> cc.getNetworkConfig().setSmartRouting(false), 1);
            assertThatThrownBy(() -> HazelcastCoordinator.builder(unisocket).prefix("cache.").build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'cache.reports' is configured with eviction-policy=LRU (member "
                            + cluster.addressOf(1) + "'s configuration)");
        }
    }

    /**
     * A member that refuses a client the read of its map configuration (here: its Management
     * Center trusted interfaces leave the client's address out) leaves the maps unchecked; the
     * coordinator is not built, and the error says which member refused and how to allow it.
     */
    @Test
    void aClientThatCannotReadTheMapConfigurationBuildsNoCoordinator() throws Exception {
        try (TestCluster cluster = TestCluster.start(1,
                c -> c.getManagementCenterConfig().addTrustedInterface("192.0.2.1"))) {
            HazelcastInstance client = cluster.newClient(cc -> { });
            assertThatThrownBy(() -> HazelcastCoordinator.create(client))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot check the Hazelcast map 'adaptive.fleet.reports'")
                    .hasMessageContaining("from member " + cluster.addressOf(0) + " failed")
                    .hasMessageContaining("is not allowed for management task")
                    .hasMessageContaining("trusted-interfaces")
                    .hasMessageContaining("checkMapConfiguration(false)");

            // Where the check cannot run, the user who made sure of the maps' configuration builds
            // without it, and the coordinator works.
            HazelcastCoordinator unchecked = HazelcastCoordinator.builder(client).checkMapConfiguration(false)
                    .clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            assertThat(unchecked.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .extracting(NodeReport::nodeId).containsExactly("a");
        }
    }

    /**
     * A client that reaches no data member when it builds (here: its one member is gone and it
     * is still trying to reconnect, the maps' proxies already got) has no configuration to read:
     * the maps are unchecked, and the coordinator is not built. A smart client still knows the
     * member and its read times out; a unisocket client has no connection to send one on.
     */
    @Test
    void aClientThatReachesNoDataMemberBuildsNoCoordinator() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastInstance smart = cluster.newClient(cc -> { });
            HazelcastInstance unisocket = cluster.newClient(cc -> cc.getNetworkConfig().setSmartRouting(false));
            CountDownLatch disconnected = new CountDownLatch(2);
            for (HazelcastInstance client : List.of(smart, unisocket)) {
                // Built once while connected: the maps' proxies exist, as in an application
                // that builds a second coordinator or used the maps before.
                HazelcastCoordinator.builder(client).clock(CLOCK).build();
                client.getLifecycleService().addLifecycleListener(event -> {
                    if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
                        disconnected.countDown();
                    }
                });
            }
            cluster.terminate(0);
            assertThat(disconnected.await(60, TimeUnit.SECONDS)).isTrue();

            assertThatThrownBy(() -> HazelcastCoordinator.builder(smart).operationTimeout(Duration.ofSeconds(1))
                    .clock(CLOCK).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot check the Hazelcast map 'adaptive.fleet.reports'")
                    .hasMessageContaining("not answered within PT1S")
                    .hasMessageContaining("checkMapConfiguration(false)");
            assertThatThrownBy(() -> HazelcastCoordinator.builder(unisocket).operationTimeout(Duration.ofSeconds(1))
                    .clock(CLOCK).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot check the Hazelcast map 'adaptive.fleet.reports'")
                    .hasMessageContaining("this client has no member to read its configuration from (it is connected"
                            + " to no member)")
                    .hasMessageContaining("checkMapConfiguration(false)");
        }
    }

    /**
     * A client whose cluster has gone (its one member killed, nothing listening on its port since)
     * and that keeps trying to reconnect (here for 30 s, its cluster-connect timeout; by default
     * for good), building a coordinator on maps it has not got yet. {@code getMap} on a client
     * waits for the cluster to answer, which the operation timeout did not bound: {@code build()}
     * hung until the client gave up. Now it waits at most about one operation timeout and names
     * the coordinator and what went unanswered; the build given up on leaves nothing behind that
     * the client's shutdown would trip on.
     */
    @Test
    void aClientThatLostItsClusterFailsToBuildWithinTheOperationTimeout() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastInstance client = cluster.newClient(cc -> cc.getConnectionStrategyConfig().getConnectionRetryConfig()
                    .setClusterConnectTimeoutMillis(30_000).setInitialBackoffMillis(200).setMaxBackoffMillis(1_000));
            CountDownLatch disconnected = new CountDownLatch(1);
            client.getLifecycleService().addLifecycleListener(event -> {
                if (event.getState() == LifecycleEvent.LifecycleState.CLIENT_DISCONNECTED) {
                    disconnected.countDown();
                }
            });
            String gone = cluster.addressOf(0);
            cluster.terminate(0);
            assertThat(disconnected.await(60, TimeUnit.SECONDS)).isTrue();

            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> HazelcastCoordinator
                    .builder(client).operationTimeout(Duration.ofSeconds(1)).clock(CLOCK).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("HazelcastCoordinator[instance=" + client.getName()
                            + ", prefix=adaptive.fleet.] not built: cannot check the Hazelcast map 'adaptive.fleet.reports'")
                    .hasMessageContaining("reading its configuration from member " + gone + " failed")
                    .hasMessageContaining("not answered within PT1S")
                    .hasMessageContaining("Is the client connected to its cluster?")
                    .hasCauseInstanceOf(TimeoutException.class));
            assertThatCode(() -> client.getLifecycleService().terminate()).doesNotThrowAnyException();
            assertThat(client.getLifecycleService().isRunning()).isFalse();
        }
    }

    /**
     * A client started asynchronously against an address where no member listens (a loopback
     * port with nothing on it) is not connected, and Hazelcast refuses its calls at once:
     * {@code build()} threw Hazelcast's {@code HazelcastClientOfflineException}, which names
     * neither the coordinator nor the map. Now the coordinator is not built and the error says
     * so and why. With the check off it is built at once, and its operations fail (their stages,
     * not the call) until the client connects.
     */
    @Test
    void anAsyncStartedClientThatIsNotConnectedFailsToBuildNamingTheCoordinator() throws Exception {
        int nobody = LoopbackPorts.free(1).get(0);
        ClientConfig cc = new ClientConfig();
        cc.setClusterName("adaptive-hz-nobody-" + nobody);
        cc.setProperty("hazelcast.logging.type", "jdk");
        cc.setProperty("hazelcast.phone.home.enabled", "false");
        cc.getNetworkConfig().addAddress("127.0.0.1:" + nobody);
        cc.getConnectionStrategyConfig().setAsyncStart(true).getConnectionRetryConfig()
                .setClusterConnectTimeoutMillis(30_000).setInitialBackoffMillis(200).setMaxBackoffMillis(1_000);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(cc);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
                assertThatThrownBy(() -> HazelcastCoordinator.builder(client).clock(CLOCK).build())
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("HazelcastCoordinator[instance=" + client.getName()
                                + ", prefix=adaptive.fleet.] not built: cannot check the Hazelcast map 'adaptive.fleet.reports'")
                        .hasMessageContaining("this client has no member to read its configuration from")
                        .hasMessageContaining("once the client is connected");
                HazelcastCoordinator unchecked = HazelcastCoordinator.builder(client).checkMapConfiguration(false)
                        .operationTimeout(Duration.ofSeconds(1)).clock(CLOCK).build();
                NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
                assertThat(unchecked.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture())
                        .failsWithin(Duration.ofSeconds(10));
            });
        } finally {
            client.getLifecycleService().terminate();
        }
    }

    /** With the check off, a member builds on maps it would refuse: the check is all the option turns off. */
    @Test
    void withTheCheckOffAMemberBuildsOnMapsItWouldRefuse() throws Exception {
        try (TestCluster cluster = TestCluster.start(1, c -> c.addMapConfig(new MapConfig("default").setMaxIdleSeconds(60)))) {
            HazelcastInstance member = cluster.member(0);
            assertThatThrownBy(() -> HazelcastCoordinator.create(member)).isInstanceOf(IllegalArgumentException.class);
            HazelcastCoordinator unchecked = HazelcastCoordinator.builder(member).checkMapConfiguration(false)
                    .clock(CLOCK).build();
            NodeReport a = new NodeReport("a", "i1", 5, 0, CLOCK.instant());
            assertThat(unchecked.heartbeat("api", a, Duration.ofSeconds(60)).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .extracting(NodeReport::nodeId).containsExactly("a");
        }
    }
}
