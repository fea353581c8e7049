package dev.adaptive.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Address;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.EndpointQualifier;
import com.hazelcast.instance.FirewallingNodeContext;
import com.hazelcast.instance.impl.HazelcastInstanceFactory;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.instance.impl.Node;
import com.hazelcast.internal.server.FirewallingServer;
import dev.adaptive.testing.LoopbackPorts;
import dev.adaptive.testing.Until;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.ObjIntConsumer;

/**
 * A Hazelcast cluster of real members in this JVM, on 127.0.0.1: TCP-IP join between fixed
 * ephemeral ports, no multicast, no auto-detection, a cluster name of its own, and short
 * failure-detection and merge delays so that a crash or a split shows within seconds.
 *
 * <p>Every member runs on Hazelcast's {@link FirewallingNodeContext} (from Hazelcast's own test
 * jar, the one its split-brain tests use): real TCP connections, wrapped so that
 * {@link #split} can close a member's connections to chosen peers and refuse new ones, both
 * ways, and {@link #heal} can let them connect again. Members then lose each other's
 * heartbeats, each side removes the other, and after the heal Hazelcast's split-brain handler
 * merges the smaller cluster into the larger, as in a real network partition.
 *
 * <p>{@link #newClient} connects Hazelcast clients to it, closed with the members.
 */
final class TestCluster implements AutoCloseable {

    private final String name = "adaptive-hz-test-" + UUID.randomUUID();
    private final List<String> addresses;
    private final List<Integer> ports;
    private final ObjIntConsumer<Config> customize;
    private final HazelcastInstance[] members;
    private final List<HazelcastInstance> clients = new ArrayList<>();

    private TestCluster(List<Integer> ports, ObjIntConsumer<Config> customize) {
        this.ports = ports;
        this.addresses = ports.stream().map(p -> "127.0.0.1:" + p).toList();
        this.customize = customize;
        this.members = new HazelcastInstance[ports.size()];
    }

    static TestCluster start(int count) throws IOException {
        return start(count, c -> { });
    }

    /** Starts the members one after the other, so the first is master and the others join it. */
    static TestCluster start(int count, Consumer<Config> customize) throws IOException {
        return start(count, (config, member) -> customize.accept(config));
    }

    /** As {@link #start(int, Consumer)}, with a configuration that may differ per member (its index). */
    static TestCluster start(int count, ObjIntConsumer<Config> customize) throws IOException {
        TestCluster cluster = new TestCluster(LoopbackPorts.free(count), customize);
        try {
            for (int i = 0; i < count; i++) {
                cluster.members[i] = cluster.newMember(i);
            }
            for (int i = 0; i < count; i++) {
                cluster.awaitSize(i, count);
            }
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    HazelcastInstance member(int i) {
        return members[i];
    }

    int size() {
        return members.length;
    }

    /** Kills member {@code i}: no graceful shutdown, no migration, its sockets just close. */
    void terminate(int i) {
        members[i].getLifecycleService().terminate();
    }

    /** Starts member {@code i} again on its port, as a new process would; returns once all see it. */
    HazelcastInstance restart(int i) {
        members[i] = newMember(i);
        for (int m = 0; m < members.length; m++) {
            awaitSize(m, members.length);
        }
        return members[i];
    }

    /** Cuts every connection between a member of {@code left} and a member of {@code right}, both ways. */
    void split(int[] left, int[] right) {
        for (int a : left) {
            for (int b : right) {
                firewall(a).blockNewConnection(address(b));
                firewall(b).blockNewConnection(address(a));
                firewall(a).closeActiveConnection(address(b));
                firewall(b).closeActiveConnection(address(a));
            }
        }
    }

    /** Lets every member connect to every other again. */
    void heal() {
        for (int a = 0; a < members.length; a++) {
            for (int b = 0; b < members.length; b++) {
                if (a != b) {
                    firewall(a).unblock(address(b));
                }
            }
        }
    }

    /** Waits until member {@code i} sees {@code size} members, at most a minute. */
    void awaitSize(int i, int size) {
        Until.met("member " + i + " sees " + size + " members", Duration.ofSeconds(60),
                () -> members[i].getLifecycleService().isRunning()
                        && members[i].getCluster().getMembers().size() == size);
    }

    /**
     * Waits until member {@code i} finds its side of the cluster safe: no migration under way
     * and every backup in step with its primary. A split or a merge moves partitions, and on a
     * loaded machine an operation sent while they move can wait for it longer than a short
     * operation timeout; a test about what the cluster keeps waits for this first.
     */
    void awaitSafe(int i) {
        Until.met("member " + i + " finds its cluster safe", Duration.ofSeconds(60),
                () -> members[i].getLifecycleService().isRunning()
                        && members[i].getPartitionService().isClusterSafe());
    }

    /**
     * Starts a client of this cluster that knows the addresses of the given members only (all of
     * them if none are given); it is shut down with the cluster.
     */
    HazelcastInstance newClient(Consumer<ClientConfig> customize, int... knownMembers) {
        ClientConfig cc = new ClientConfig();
        cc.setClusterName(name);
        cc.setProperty("hazelcast.logging.type", "jdk");
        cc.setProperty("hazelcast.phone.home.enabled", "false");
        if (knownMembers.length == 0) {
            addresses.forEach(cc.getNetworkConfig()::addAddress);
        } else {
            for (int i : knownMembers) {
                cc.getNetworkConfig().addAddress(addresses.get(i));
            }
        }
        customize.accept(cc);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(cc);
        clients.add(client);
        return client;
    }

    /** @return member {@code i}'s address as Hazelcast prints it, {@code [127.0.0.1]:port} */
    String addressOf(int i) {
        return address(i).toString();
    }

    private FirewallingServer.FirewallingServerConnectionManager firewall(int i) {
        Node node = ((HazelcastInstanceProxy) members[i]).getOriginal().node;
        return (FirewallingServer.FirewallingServerConnectionManager)
                node.getServer().getConnectionManager(EndpointQualifier.MEMBER);
    }

    private Address address(int i) {
        return ((HazelcastInstanceProxy) members[i]).getOriginal().node.getThisAddress();
    }

    private HazelcastInstance newMember(int i) {
        Config cfg = new Config();
        cfg.setClusterName(name);
        cfg.setInstanceName(name + "-" + i + "-" + UUID.randomUUID());
        cfg.setProperty("hazelcast.phone.home.enabled", "false");
        cfg.setProperty("hazelcast.logging.type", "jdk");
        cfg.setProperty("hazelcast.socket.bind.any", "false");
        cfg.setProperty("hazelcast.prefer.ipv4.stack", "true");
        cfg.setProperty("hazelcast.wait.seconds.before.join", "0");
        cfg.setProperty("hazelcast.max.wait.seconds.before.join", "0");
        cfg.setProperty("hazelcast.partition.count", "23");
        cfg.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        cfg.setProperty("hazelcast.max.no.heartbeat.seconds", "4");
        cfg.setProperty("hazelcast.merge.first.run.delay.seconds", "2");
        cfg.setProperty("hazelcast.merge.next.run.delay.seconds", "2");
        cfg.setProperty("hazelcast.operation.call.timeout.millis", "5000");
        cfg.setProperty("hazelcast.graceful.shutdown.max.wait", "10");
        NetworkConfig net = cfg.getNetworkConfig();
        net.setPort(ports.get(i)).setPortAutoIncrement(false);
        net.getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = net.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(addresses).setConnectionTimeoutSeconds(2);
        customize.accept(cfg, i);
        return HazelcastInstanceFactory.newHazelcastInstance(cfg, cfg.getInstanceName(), new FirewallingNodeContext());
    }

    @Override
    public void close() {
        for (HazelcastInstance c : clients) {
            c.getLifecycleService().terminate();
        }
        for (HazelcastInstance m : members) {
            if (m != null) {
                m.getLifecycleService().terminate();
            }
        }
    }
}
