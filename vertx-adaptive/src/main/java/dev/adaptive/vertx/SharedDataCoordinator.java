package dev.adaptive.vertx;

import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The fleet {@link Coordinator} on Vert.x shared data and the event bus: with a clustered Vert.x
 * (the Hazelcast cluster manager, say) every node of the cluster shares one ceiling and one
 * Retry-After pause per key; with a plain Vert.x it coordinates the limiters of one process.
 * It only stores and relays; the aggregation rule is the engine's.
 *
 * <p>Storage, per key {@code k} and prefix {@code p} (default {@value #DEFAULT_PREFIX}):
 * <ul>
 *   <li>reports in the async map {@code p + k + ".nodes"}, one entry per (node id, incarnation),
 *       stamped with the heartbeat's TTL as an expiry, which decides what is live, so that a
 *       report is never returned past its TTL even where the map's own eviction lags; the map
 *       keeps it a whole second longer (cluster managers may round TTLs to seconds);</li>
 *   <li>a heartbeat's write and read happen under the cluster-wide lock
 *       {@code p + k + ".lock"}, so the list it returns is the store as it was right after its
 *       write; a lock not obtained within the lock timeout fails the heartbeat;</li>
 *   <li>the latest pause in the async map {@code p + k + ".pause"}, kept until it ends, so a
 *       node that subscribes late still learns of it; a pause never replaces a later one;</li>
 *   <li>pauses published on the event-bus address {@code p + k + ".pause"}, cluster-wide.</li>
 * </ul>
 * Values are JSON strings, so any cluster manager can store them. Expiry is judged by the
 * wall clock of the node that reads, so nodes' clocks should agree within a fraction of the
 * TTL (NTP does this).
 *
 * <p>Thread-safe; never blocks: every operation returns a stage completed on a Vert.x thread.
 * Asked after the Vert.x instance closed, {@code heartbeat}, {@code leave} and
 * {@code publishPause} throw nothing: their stage is already failed with the shared data's
 * refusal.
 * A pause listener is called on the context that subscribed, as a handler that context
 * registered would be (a worker verticle's on a worker thread, one call at a time), or, when
 * subscribed outside any context, on an event-loop context of its own; one that throws is
 * ignored.
 */
public final class SharedDataCoordinator implements Coordinator {

    /** Default prefix of map names, lock names and addresses: {@value}. */
    public static final String DEFAULT_PREFIX = "adaptive.fleet.";
    /** Default bound on waiting for the heartbeat lock: 5 s. */
    public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);

    private static final String PAUSE = "pause";
    /** When a new subscription reads the stored pause a second time, after its first read. */
    private static final long CATCH_UP_AGAIN_MILLIS = 1_000;
    /** How long after a refused registration of a pause consumer it is tried again. */
    private static final long REGISTER_AGAIN_MILLIS = 1_000;

    private final Vertx vertx;
    private final String prefix;
    private final long lockTimeoutMillis;
    private final Clock clock;
    private final Map<String, Future<AsyncMap<String, String>>> maps = new ConcurrentHashMap<>();

    private SharedDataCoordinator(Vertx vertx, String prefix, Duration lockTimeout, Clock clock) {
        this.vertx = Objects.requireNonNull(vertx, "vertx");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(lockTimeout, "lockTimeout");
        if (lockTimeout.isNegative() || lockTimeout.isZero()) {
            throw new IllegalArgumentException("lockTimeout must be positive: " + lockTimeout);
        }
        this.lockTimeoutMillis = Math.max(1, lockTimeout.toMillis());
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @param vertx a (usually clustered) Vert.x
     * @return a coordinator with the default prefix, lock timeout and the system clock
     */
    public static SharedDataCoordinator create(Vertx vertx) {
        return new SharedDataCoordinator(vertx, DEFAULT_PREFIX, DEFAULT_LOCK_TIMEOUT, Clock.systemUTC());
    }

    /**
     * @param vertx       a (usually clustered) Vert.x
     * @param prefix      prefix of the map names, lock names and addresses
     * @param lockTimeout bound on waiting for the heartbeat lock, positive
     * @param clock       the wall clock expiries are judged by
     * @return a coordinator
     */
    public static SharedDataCoordinator create(Vertx vertx, String prefix, Duration lockTimeout, Clock clock) {
        return new SharedDataCoordinator(vertx, prefix, lockTimeout, clock);
    }

    @Override
    public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        long ttlMillis = Math.max(1, ttl.toMillis());
        String entry = report.nodeId() + "#" + report.incarnation();
        return stage(() -> vertx.sharedData().<List<NodeReport>>withLock(prefix + key + ".lock", lockTimeoutMillis,
                () -> map(key + ".nodes").compose(m -> m.put(entry,
                                ReportJson.encode(report, clock.millis() + ttlMillis), storeTtl(ttlMillis))
                        .compose(v -> m.entries())
                        .map(entries -> live(entries.values())))));
    }

    @Override
    public CompletionStage<Void> leave(String key, String nodeId) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(nodeId, "nodeId");
        return stage(() -> vertx.sharedData().<Void>withLock(prefix + key + ".lock", lockTimeoutMillis,
                () -> map(key + ".nodes").compose(m -> m.entries().compose(entries -> {
                    List<Future<?>> removals = new ArrayList<>();
                    entries.forEach((k, v) -> {
                        JsonObject j = ReportJson.parse(v);
                        if (j == null || nodeId.equals(j.getString("nodeId"))) {
                            removals.add(m.remove(k));
                        }
                    });
                    return Future.all(removals).<Void>mapEmpty();
                }))));
    }

    @Override
    public CompletionStage<Void> publishPause(String key, FleetPause pause) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(pause, "pause");
        long ttlMillis = pause.until().toEpochMilli() - clock.millis();
        if (ttlMillis <= 0) {
            return Future.<Void>succeededFuture().toCompletionStage(); // already over: nothing to share
        }
        String json = ReportJson.encode(pause);
        return stage(() -> {
            Future<Void> stored = vertx.sharedData().<Void>withLock(prefix + key + ".pause.lock", lockTimeoutMillis,
                    () -> map(key + ".pause").compose(m -> m.get(PAUSE).compose(current -> {
                        FleetPause existing = ReportJson.pause(current);
                        if (existing != null && !existing.until().isBefore(pause.until())) {
                            return Future.succeededFuture(); // a later pause is stored already
                        }
                        return m.put(PAUSE, json, storeTtl(ttlMillis));
                    })));
            // Relay only once stored: a node whose subscription is still reaching this one (the
            // cluster learns of registrations asynchronously) then finds the pause in the store
            // when it catches up. Relayed even if the store failed, for those already listening.
            return stored.transform(done -> {
                vertx.eventBus().publish(prefix + key + ".pause", json);
                return done.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(done.cause());
            });
        });
    }

    /**
     * @param operation starts a shared-data operation
     * @return its future as a stage, or one already failed with what starting it threw: the
     *         shared data of a closed Vert.x instance refuses, on its closed event loop. Thrown
     *         out of a method that returns a stage, it reached the caller as a throw.
     */
    private static <T> CompletionStage<T> stage(Supplier<Future<T>> operation) {
        try {
            return operation.get().toCompletionStage();
        } catch (Throwable refused) {
            return CompletableFuture.failedStage(refused);
        }
    }

    @Override
    public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(listener, "listener");
        PauseConsumer subscription = new PauseConsumer(key, listener);
        subscription.register();
        return subscription;
    }

    /**
     * One subscription. Its consumer is registered again {@value #REGISTER_AGAIN_MILLIS} ms after
     * a refused registration (the cluster manager can refuse one while a member is unreachable
     * or leaving): dropped, this node would never hear the fleet's pauses, nor be told. No call
     * of the listener begins once it is closed, a catch-up read still under way included (one
     * that began on the subscriber's context as another thread closed it may end after). Every
     * call of the listener is on {@link #home}, the subscriber's context.
     */
    private final class PauseConsumer implements AutoCloseable {
        private final String key;
        private final Consumer<FleetPause> listener;
        /** The subscriber's context (or a new event-loop one outside any): the listener runs there. */
        private final Context home = vertx.getOrCreateContext();
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile MessageConsumer<String> consumer;

        PauseConsumer(String key, Consumer<FleetPause> listener) {
            this.key = key;
            this.listener = listener;
        }

        void register() {
            if (closed.get()) {
                return;
            }
            if (Vertx.currentContext() != home) {
                // A consumer delivers on the context it is registered from: a new registration
                // after a refusal (on a timer) or one from outside any context (where each
                // lookup makes a new context) is made on the subscriber's context.
                home.runOnContext(v -> register());
                return;
            }
            MessageConsumer<String> c = vertx.eventBus().consumer(prefix + key + ".pause", m -> deliver(m.body()));
            consumer = c;
            if (closed.get()) {
                c.unregister();
                return;
            }
            c.completion().onComplete(done -> {
                if (done.succeeded()) {
                    // Catch up once registered: a pause stored before this node subscribed still
                    // holds. And once more a little later: "registered" means written to the
                    // cluster, but a publisher on another node may still relay to the members it
                    // knew, and its store write may land just after the first read (seen in a
                    // clean-clone CI run). A pause heard twice is harmless: a pause never
                    // shortens another.
                    catchUp();
                    vertx.setTimer(CATCH_UP_AGAIN_MILLIS, id -> catchUp());
                } else {
                    c.unregister(); // drops the local half of the refused registration
                    if (!closed.get()) {
                        vertx.setTimer(REGISTER_AGAIN_MILLIS, id -> register());
                    }
                }
            });
        }

        private void catchUp() {
            if (closed.get()) {
                return;
            }
            map(key + ".pause").compose(m -> m.get(PAUSE)).onSuccess(json -> {
                FleetPause p = ReportJson.pause(json);
                if (p != null && p.until().toEpochMilli() > clock.millis()) {
                    // The read completes on the context that first opened the map (any caller's,
                    // a publisher's event loop say): the listener is called on its own context,
                    // as relayed pauses are, never on another at the same time.
                    home.runOnContext(v -> deliver(json));
                }
            });
        }

        /**
         * Looks at {@link #closed} last, right before the call: once close() has returned no
         * call begins, but one already past that look when close() is called on another thread
         * still runs. close() does not wait for it (it never blocks: waiting for a listener that
         * blocks, or that takes a lock the closing thread holds, would hang the close).
         */
        private void deliver(String json) {
            FleetPause p = ReportJson.pause(json);
            if (p == null || closed.get()) {
                return;
            }
            try {
                listener.accept(p);
            } catch (Throwable ignored) {
                // A listener's failure (anything) is its own; the relay goes on for the others.
            }
        }

        @Override
        public void close() {
            closed.set(true);
            MessageConsumer<String> c = consumer;
            if (c != null) {
                c.unregister();
            }
        }
    }

    private Future<AsyncMap<String, String>> map(String suffix) {
        String name = prefix + suffix;
        Future<AsyncMap<String, String>> f = maps.computeIfAbsent(name, n -> vertx.sharedData().getAsyncMap(n));
        // A failed lookup (cluster not ready) must not be remembered.
        f.onFailure(err -> maps.remove(name, f));
        return f;
    }

    /**
     * The map's own TTL for an entry whose stamped expiry is {@code ttlMillis} away: a second
     * more, in whole seconds. The stamp decides what is live (readers skip what it says is
     * over); the map's TTL only clears what nobody removes. A cluster manager may keep TTLs at
     * whole-second granularity: Hazelcast on loopback was seen dropping a report written with a
     * 1 s TTL before the same heartbeat read the map back (a clean-clone CI run).
     */
    static long storeTtl(long ttlMillis) {
        if (ttlMillis > Long.MAX_VALUE - 2_000) {
            return ttlMillis;
        }
        return ((ttlMillis + 999) / 1_000 + 1) * 1_000;
    }

    private List<NodeReport> live(Iterable<String> values) {
        long now = clock.millis();
        List<NodeReport> out = new ArrayList<>();
        for (String v : values) {
            NodeReport r = ReportJson.report(v, now);
            if (r != null) {
                out.add(r);
            }
        }
        out.sort(Comparator.comparing(NodeReport::nodeId).thenComparing(NodeReport::incarnation));
        return out;
    }

    /** The JSON forms stored and relayed. Values that do not parse are skipped, never fatal. */
    static final class ReportJson {

        private ReportJson() {
        }

        static String encode(NodeReport r, long expiresAtMillis) {
            return new JsonObject()
                    .put("nodeId", r.nodeId())
                    .put("incarnation", r.incarnation())
                    .put("localLimit", r.localLimit())
                    .put("inflight", r.inflight())
                    .put("claim", r.claim())
                    .put("demand", r.demand())
                    .put("reportedAt", r.reportedAt().toString())
                    .put("expiresAt", expiresAtMillis)
                    .encode();
        }

        static String encode(FleetPause p) {
            return new JsonObject().put("origin", p.originNodeId()).put("until", p.until().toString()).encode();
        }

        static JsonObject parse(String json) {
            try {
                return json == null ? null : new JsonObject(json);
            } catch (RuntimeException garbage) {
                return null;
            }
        }

        /** @return the report, or {@code null} if expired or unreadable */
        static NodeReport report(String json, long nowMillis) {
            JsonObject j = parse(json);
            if (j == null) {
                return null;
            }
            try {
                if (j.getLong("expiresAt") <= nowMillis) {
                    return null;
                }
                int inflight = j.getInteger("inflight");
                return new NodeReport(j.getString("nodeId"), j.getString("incarnation"), j.getInteger("localLimit"),
                        inflight, j.getInteger("claim", inflight), Instant.parse(j.getString("reportedAt")),
                        j.getInteger("demand", NodeReport.UNBOUNDED_DEMAND));
            } catch (RuntimeException garbage) {
                return null;
            }
        }

        static FleetPause pause(String json) {
            JsonObject j = parse(json);
            if (j == null) {
                return null;
            }
            try {
                return new FleetPause(j.getString("origin"), Instant.parse(j.getString("until")));
            } catch (RuntimeException garbage) {
                return null;
            }
        }
    }
}
