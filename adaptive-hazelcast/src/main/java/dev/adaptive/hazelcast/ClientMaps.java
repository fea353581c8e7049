package dev.adaptive.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.protocol.codec.ClientCreateProxyCodec;
import com.hazelcast.client.impl.spi.impl.ClientInvocation;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapService;

/**
 * Gets a map proxy without waiting for the cluster. On a client, {@code getMap} sends the
 * cluster a request to create the map ({@code Client.createProxy}) and blocks until it is
 * answered: a client that is not connected (its cluster restarting, unreachable, or slow) waits
 * there until it connects or its invocation timeout ({@code hazelcast.client.invocation.timeout.seconds},
 * 120 s by default) passes, or for as long as it keeps trying to reconnect; the operation
 * timeout does not bound it, and an application building a coordinator at startup hangs with no
 * error. A client that started with async start and is not connected yet fails it at once with
 * {@code HazelcastClientOfflineException}, which names neither the map nor the coordinator.
 *
 * <p>So on a client the proxy is made locally, as {@code getMap} makes it once the cluster has
 * answered, and the request is sent without waiting for its answer. Nothing is lost: members
 * serve a map's operations whether or not they were told of its proxy, and a client tells the
 * cluster of every proxy it holds each time it connects. The calls that need the cluster (the
 * configuration reads of {@link StorageCheck}, the coordinator's operations) are each bounded by
 * the operation timeout.
 */
final class ClientMaps {

    private ClientMaps() {
    }

    /**
     * @return the map {@code name} of {@code hazelcast}: on a member or any other instance, its
     *         {@code getMap}; on a client, a proxy made without waiting for the cluster
     */
    static IMap<String, String> map(HazelcastInstance hazelcast, String name) {
        HazelcastClientInstanceImpl client;
        try {
            client = StorageCheck.client(hazelcast);
        } catch (LinkageError otherHazelcast) {
            client = null; // client internals of another shape: getMap, which may wait for the cluster
        }
        if (client == null) {
            return hazelcast.getMap(name);
        }
        IMap<String, String> map;
        try {
            @SuppressWarnings("unchecked")
            IMap<String, String> local = (IMap<String, String>) client.getProxyManager()
                    .getOrCreateLocalProxy(MapService.SERVICE_NAME, name);
            map = local;
        } catch (LinkageError otherHazelcast) {
            return hazelcast.getMap(name);
        }
        try {
            new ClientInvocation(client, ClientCreateProxyCodec.encodeRequest(name, MapService.SERVICE_NAME), name).invoke();
        } catch (RuntimeException | LinkageError notSent) {
            // Only an announcement: the client sends it again with every proxy at its next connection.
        }
        return map;
    }
}
