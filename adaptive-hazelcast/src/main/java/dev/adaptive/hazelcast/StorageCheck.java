package dev.adaptive.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.client.impl.connection.ClientConnection;
import com.hazelcast.client.impl.protocol.codec.MCGetMapConfigCodec;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.HazelcastInstance;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The check that the coordinator's maps keep their entries until the coordinator removes them.
 * Entries are written with a TTL of their own (none for reports, a pause's length for a pause),
 * which overrides the map's {@code time-to-live-seconds}; nothing the coordinator writes
 * overrides {@code max-idle-seconds} or an eviction policy with a max size it can reach (see
 * {@link #mayEvict}). Either lets Hazelcast drop a key's reports while its nodes are alive (an
 * entry idle past its limit, or evicted by size or heap, as a cache's default map configuration
 * would), and each node's next heartbeat then finds itself alone and takes the whole ceiling:
 * the fleet goes over it, silently.
 *
 * <p>One rule ({@link #refuse}), read from two places. A member reads its own configuration
 * ({@code Config.findMapConfig}: static, wildcards, {@code default}, and what was added at run
 * time). A client's {@code getConfig()} refuses every read (Hazelcast's client config only adds
 * configurations), so a client asks each data member for the configuration its map actually
 * runs with, by the request Hazelcast's Management Center uses ({@code MC.getMapConfig}), which
 * every member answers with no class of this module: the same settings, as the member sees them.
 * A member that refuses the request (a client address outside its management-center trusted
 * interfaces, or without {@code ManagementPermission "map.getConfig"} under Hazelcast security)
 * leaves the maps unchecked, and the coordinator is then not built: nothing else can say that
 * they keep their entries.
 */
final class StorageCheck {

    /** How a client reads one member's configuration of a map: the member, named, and the request. */
    record Read(String member, Supplier<CompletionStage<MCGetMapConfigCodec.ResponseParameters>> request) {
    }

    private StorageCheck() {
    }

    /**
     * @return the client behind {@code hazelcast}, or {@code null} if it is a member (or an
     *         instance of another kind, whose {@code getConfig()} is then read as a member's)
     */
    static HazelcastClientInstanceImpl client(HazelcastInstance hazelcast) {
        if (hazelcast instanceof HazelcastClientProxy proxy) {
            return proxy.client;
        }
        return hazelcast instanceof HazelcastClientInstanceImpl client ? client : null;
    }

    /**
     * Checks a member's own configuration of {@code map}.
     *
     * @throws IllegalArgumentException as {@link #refuse}
     * @throws IllegalStateException    if {@code member} refuses to read its configuration
     */
    static void onMember(HazelcastInstance member, String map) {
        MapConfig config;
        try {
            config = member.getConfig().findMapConfig(map);
        } catch (UnsupportedOperationException notAMember) {
            throw new IllegalStateException("cannot check the Hazelcast map '" + map + "' for eviction and"
                    + " max-idle-seconds: this HazelcastInstance (" + member.getClass().getName() + ") is neither a"
                    + " member nor a Hazelcast client, and refuses to read its configuration", notAMember);
        }
        refuse(map, "map config '" + config.getName() + "'", config.getMaxIdleSeconds(), config.getEvictionConfig());
    }

    /**
     * @return one read of {@code map}'s configuration per data member the client reaches: with
     *         smart routing (the default) one per data member it knows, sent to that member and
     *         to no other; a unisocket client, which sends every request on its one connection
     *         whatever the target, one per connection, to the member at its other end
     * @throws IllegalStateException if there is none (the client is not connected to the
     *                               cluster now, or knows no data member): nothing can then say
     *                               that the map keeps its entries
     */
    static List<Read> reads(HazelcastClientInstanceImpl client, String map) {
        List<Read> reads = new ArrayList<>();
        if (client.getConnectionManager().isUnisocketClient()) {
            for (ClientConnection connection : client.getConnectionManager().getActiveConnections()) {
                reads.add(new Read("member " + connection.getRemoteAddress(),
                        () -> new ClientInvocation(client, MCGetMapConfigCodec.encodeRequest(map), map, connection)
                                .invoke().thenApply(MCGetMapConfigCodec::decodeResponse)));
            }
            return atLeastOne(reads, map, "it is connected to no member");
        }
        for (Member member : client.getCluster().getMembers()) {
            if (member.isLiteMember()) {
                continue; // holds no entries, evicts none
            }
            reads.add(read(client, map, member));
        }
        return atLeastOne(reads, map, "it knows no data member of the cluster");
    }

    /**
     * @return the read of {@code map}'s configuration from {@code member} by a smart client: sent
     *         to that member and to no other (one that has just joined included: the read waits
     *         for the client's connection to it, within the caller's bound)
     */
    static Read read(HazelcastClientInstanceImpl client, String map, Member member) {
        return new Read("member " + member.getAddress(), () -> {
            ClientInvocation invocation = new ClientInvocation(client, MCGetMapConfigCodec.encodeRequest(map), map,
                    member.getUuid());
            // Not connected to it yet: wait for the connection rather than ask another member.
            invocation.disallowRetryOnRandom();
            return invocation.invoke().thenApply(MCGetMapConfigCodec::decodeResponse);
        });
    }

    /**
     * An empty list would pass the check without a single read: a client that has lost its
     * connection (the cluster restarting, say) while the maps' proxies it already got still
     * serve, or whose cluster has lite members only.
     */
    private static List<Read> atLeastOne(List<Read> reads, String map, String why) {
        if (reads.isEmpty()) {
            throw new IllegalStateException("cannot check the Hazelcast map '" + map + "' for eviction and"
                    + " max-idle-seconds: this client has no member to read its configuration from (" + why + ")."
                    + " Build the coordinator once the client is connected to the cluster, or, once you have made sure"
                    + " the members keep the map's entries, build with checkMapConfiguration(false)");
        }
        return reads;
    }

    /**
     * Checks what a client read of one member's configuration of {@code map} returned.
     *
     * @param read   the read
     * @param answer its answer, bounded by the caller's operation timeout
     * @throws IllegalStateException    if the member did not answer (refused, timed out, left)
     * @throws IllegalArgumentException as {@link #refuse}
     */
    static void onClient(String map, Read read, CompletionStage<MCGetMapConfigCodec.ResponseParameters> answer) {
        MCGetMapConfigCodec.ResponseParameters config;
        try {
            config = answer.toCompletableFuture().join();
        } catch (CompletionException | java.util.concurrent.CancellationException failed) {
            Throwable cause = failed.getCause() != null ? failed.getCause() : failed;
            if (cause instanceof TimeoutException) {
                // Unanswered, not refused: the client is most likely not connected (its cluster
                // restarting, unreachable) or the member is slow; permissions are not the question.
                throw new IllegalStateException("cannot check the Hazelcast map '" + map + "' for eviction and"
                        + " max-idle-seconds: reading its configuration from " + read.member() + " failed (" + cause
                        + "). Is the client connected to its cluster? Build the coordinator once it is, or give a slow"
                        + " cluster a longer operationTimeout, or, once you have made sure the members keep the map's"
                        + " entries, build with checkMapConfiguration(false)", cause);
            }
            throw new IllegalStateException("cannot check the Hazelcast map '" + map + "' for eviction and max-idle-seconds:"
                    + " reading its configuration from " + read.member() + " failed (" + cause + "). A client reads it"
                    + " with the Management Center's request getMapConfig: the members must accept it from this client"
                    + " (their management-center trusted-interfaces, if set, must include its address; under Hazelcast"
                    + " security it needs ManagementPermission \"map.getConfig\"), or, once you have made sure the"
                    + " members keep the map's entries, build with checkMapConfiguration(false)", cause);
        }
        String source = read.member() + "'s configuration";
        EvictionPolicy policy = EvictionPolicy.getById(config.evictionPolicy);
        MaxSizePolicy sizePolicy = MaxSizePolicy.getById(config.maxSizePolicy);
        if (policy == null || sizePolicy == null) {
            // A member of a later Hazelcast: a policy this one cannot judge may evict.
            throw new IllegalArgumentException("the Hazelcast map '" + map + "' is configured with an eviction policy"
                    + " this Hazelcast does not know (eviction-policy id " + config.evictionPolicy + ", max-size-policy id "
                    + config.maxSizePolicy + ", " + source + "): configure eviction-policy=NONE for it, or another prefix");
        }
        refuse(map, source, config.maxIdleSeconds,
                new EvictionConfig().setEvictionPolicy(policy).setMaxSizePolicy(sizePolicy).setSize(config.maxSize));
    }

    /**
     * The rule.
     *
     * @param map            the map's name
     * @param source         where the settings come from, for the message
     * @throws IllegalArgumentException if {@code maxIdleSeconds} is set, or an eviction policy
     *                                  may act, naming the map, the setting and {@code source}
     */
    static void refuse(String map, String source, int maxIdleSeconds, EvictionConfig eviction) {
        if (maxIdleSeconds > 0) {
            throw new IllegalArgumentException("the Hazelcast map '" + map + "' is configured with max-idle-seconds="
                    + maxIdleSeconds + " (" + source + "): a fleet's entries must stay until the coordinator removes"
                    + " them; configure max-idle-seconds=0 for it, or another prefix");
        }
        EvictionPolicy policy = eviction.getEvictionPolicy();
        if (policy != EvictionPolicy.NONE && mayEvict(eviction)) {
            throw new IllegalArgumentException("the Hazelcast map '" + map + "' is configured with eviction-policy="
                    + policy + " (" + source + "): a fleet's entries must stay until the coordinator removes them;"
                    + " configure eviction-policy=NONE for it, or another prefix");
        }
    }

    /**
     * An eviction policy acts only once the map's max size is reached. With no size set (Hazelcast
     * reads a missing or 0 size as {@link MapConfig#DEFAULT_MAX_SIZE}, Integer.MAX_VALUE) a bound
     * on entries or on the heap the map uses is never reached, so nothing is evicted; a bound on
     * the free heap is reached at once with that size (free heap below 2^31 MB or 2^31 %).
     */
    private static boolean mayEvict(EvictionConfig eviction) {
        if (eviction.getSize() != MapConfig.DEFAULT_MAX_SIZE) {
            return true;
        }
        MaxSizePolicy policy = eviction.getMaxSizePolicy();
        return policy != MaxSizePolicy.PER_NODE && policy != MaxSizePolicy.PER_PARTITION
                && policy != MaxSizePolicy.USED_HEAP_SIZE && policy != MaxSizePolicy.USED_HEAP_PERCENTAGE;
    }
}
