package dev.adaptive.vertx;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import dev.adaptive.testing.LoopbackPorts;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * Clustered Vert.x nodes on loopback with the Hazelcast cluster manager: TCP-IP join between
 * ephemeral ports on 127.0.0.1, no multicast, no auto-detection, a cluster name of its own so
 * that no other test run on the machine can join, and short timeouts so that start and stop
 * stay quick.
 */
final class ClusterNodes implements AutoCloseable {

    final List<Vertx> nodes = new ArrayList<>();
    final List<HazelcastClusterManager> managers = new ArrayList<>();

    static ClusterNodes start(int count) throws IOException {
        return start(count, HazelcastClusterManager::new);
    }

    /**
     * @param count    the nodes
     * @param managers makes each node's cluster manager from its configuration (a subclass that
     *                 injects faults, say)
     */
    static ClusterNodes start(int count, Function<Config, HazelcastClusterManager> managers) throws IOException {
        List<Integer> ports = LoopbackPorts.free(count);
        List<String> members = ports.stream().map(p -> "127.0.0.1:" + p).toList();
        String clusterName = "adaptive-test-" + UUID.randomUUID();
        ClusterNodes cluster = new ClusterNodes();
        // One after the other: the first becomes master at once, the others join it; started
        // together they could each form a cluster and only merge seconds later.
        for (int port : ports) {
            HazelcastClusterManager manager = managers.apply(config(clusterName, port, members));
            Vertx vertx = Await.result(Vertx.builder()
                    .with(new VertxOptions().setEventBusOptions(new EventBusOptions()
                            .setHost("127.0.0.1").setPort(0).setClusterPublicHost("127.0.0.1")))
                    .withClusterManager(manager)
                    .buildClustered());
            cluster.nodes.add(vertx);
            cluster.managers.add(manager);
        }
        for (HazelcastClusterManager m : cluster.managers) {
            if (m.getNodes().size() != count) {
                cluster.close();
                throw new IllegalStateException("cluster did not form: " + m.getNodes());
            }
        }
        return cluster;
    }

    private static Config config(String clusterName, int port, List<String> members) {
        Config cfg = ConfigUtil.loadConfig(); // the maps and multimaps the Vert.x cluster manager needs
        cfg.setClusterName(clusterName);
        cfg.setProperty("hazelcast.phone.home.enabled", "false");
        cfg.setProperty("hazelcast.logging.type", "jdk");
        cfg.setProperty("hazelcast.socket.bind.any", "false");
        cfg.setProperty("hazelcast.prefer.ipv4.stack", "true");
        cfg.setProperty("hazelcast.wait.seconds.before.join", "0");
        cfg.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        cfg.setProperty("hazelcast.partition.count", "23");
        cfg.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        cfg.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
        cfg.setProperty("hazelcast.graceful.shutdown.max.wait", "10");
        NetworkConfig net = cfg.getNetworkConfig();
        net.setPort(port).setPortAutoIncrement(false);
        net.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(members).setConnectionTimeoutSeconds(2);
        return cfg;
    }


    /** Stops one node, as a crash would for the others: it sends no leave. */
    void stop(int index) {
        Await.result(nodes.get(index).close());
    }

    @Override
    public void close() {
        List<Future<Void>> closing = new ArrayList<>();
        for (Vertx v : nodes) {
            closing.add(v.close().recover(err -> Future.succeededFuture()));
        }
        for (Future<Void> f : closing) {
            Await.result(f);
        }
    }
}
