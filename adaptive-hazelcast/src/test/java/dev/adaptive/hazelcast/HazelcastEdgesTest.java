package dev.adaptive.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.adaptive.fleet.NodeReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Hazelcast deployment can throw at the coordinator besides a healthy cluster: a client
 * that has shut down (its pause subscriptions are given up, as a stopped member's are, instead
 * of being tried again every second), and a node id that UTF-8 cannot hold as it is (a lone
 * surrogate, an emoji cut in half), which must come back from the store as it went in.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class HazelcastEdgesTest {

    @Test
    void aSubscriptionOnAClientThatHasShutDownIsNotRetriedForever() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastInstance member = cluster.member(0);
            ClientConfig cc = new ClientConfig();
            cc.setClusterName(member.getConfig().getClusterName());
            cc.setProperty("hazelcast.logging.type", "jdk");
            cc.setProperty("hazelcast.phone.home.enabled", "false");
            cc.getNetworkConfig().addAddress("127.0.0.1:" + member.getCluster().getLocalMember().getAddress().getPort());
            HazelcastInstance client = HazelcastClient.newHazelcastClient(cc);
            HazelcastCoordinator onClient = HazelcastCoordinator.create(client);
            HazelcastCoordinator onMember = HazelcastCoordinator.create(member);

            client.shutdown();
            AutoCloseable clientSub = onClient.subscribePauses("api", p -> { });
            Until.met("the client registration failure counted", Duration.ofSeconds(10),
                    () -> onClient.subscriptionFailures() >= 1);

            cluster.terminate(0);
            AutoCloseable memberSub = onMember.subscribePauses("api", p -> { });
            Until.met("the member registration failure counted", Duration.ofSeconds(10),
                    () -> onMember.subscriptionFailures() >= 1);

            Thread.sleep(4_000);
            long clientFailures = onClient.subscriptionFailures();
            long memberFailures = onMember.subscriptionFailures();
            System.out.println("review: failures after 4 s: client " + clientFailures + ", member " + memberFailures);
            clientSub.close();
            memberSub.close();
            assertThat(memberFailures).as("a stopped member: given up at once").isEqualTo(1);
            assertThat(clientFailures).as("a shut-down client: registrations still tried every second").isEqualTo(1);
        }
    }

    @Test
    void aNodeIdRoundTripsThroughTheStoreAndIsReplacedNotDuplicated() throws Exception {
        try (TestCluster cluster = TestCluster.start(1)) {
            HazelcastCoordinator c = HazelcastCoordinator.create(cluster.member(0));
            String nodeId = "orders-\ud83d\ude80".substring(0, 8); // "orders-" + the high half of 🚀
            List<NodeReport> last = null;
            for (int i = 0; i < 3; i++) {
                last = c.heartbeat("api", new NodeReport(nodeId, "i1", 5, 0, Instant.now()), Duration.ofSeconds(60))
                        .toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            assertThat(last).extracting(NodeReport::nodeId).containsExactly(nodeId);
        }
    }
}
