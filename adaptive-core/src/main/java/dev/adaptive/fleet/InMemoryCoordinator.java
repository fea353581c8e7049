package dev.adaptive.fleet;

import dev.adaptive.internal.Listeners;
import dev.adaptive.internal.Nanos;
import dev.adaptive.time.Ticker;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * A {@link Coordinator} held in one JVM's memory: for several limiters in one process (one
 * per worker pool, say) that call one backend, and for tests and simulations of a fleet.
 *
 * <p>Reports are kept per key and per ({@code nodeId}, {@code incarnation}); a report is live
 * for its TTL after its last heartbeat, measured on the {@link Ticker} given at construction,
 * so that a fleet runs in {@link dev.adaptive.time.VirtualTime}. Expired reports are dropped
 * lazily, on the next operation on their key. Heartbeats are returned sorted by node id, then
 * incarnation.
 *
 * <p>Every stage it returns is already complete: a heartbeat's write and read happen under one
 * lock, so they are one atomic step. Pauses are delivered synchronously, on the publishing
 * thread, to every subscriber of the key (the publisher included) outside the lock; a
 * subscriber that throws does not stop the others and is counted in
 * {@link #listenerFailures()}. The pause that ends last is kept per key (a pause never replaces
 * a later one), and a new subscriber is told of it at once, on the subscribing thread, as the
 * distributed coordinators do for a node that joins during a pause; with a wall clock
 * ({@link #InMemoryCoordinator(Ticker, Clock)}) only while it has not ended, without one
 * whatever its end (a limiter ignores a pause that has ended).
 *
 * <p>Thread-safe.
 */
public final class InMemoryCoordinator implements Coordinator {

    private static final Comparator<NodeReport> ORDER =
            Comparator.comparing(NodeReport::nodeId).thenComparing(NodeReport::incarnation);

    private final Ticker ticker;
    private final Object lock = new Object();
    private final Map<String, Map<Member, Entry>> reports = new HashMap<>();
    private final Map<String, List<Consumer<FleetPause>>> subscribers = new HashMap<>();
    /** Per key, the published pause that ends last. */
    private final Map<String, FleetPause> latestPause = new HashMap<>();
    /** Judges whether a kept pause has ended; {@code null}: not judged. */
    private final Clock clock;
    private final LongAdder listenerFailures = new LongAdder();

    /**
     * @param ticker measures report TTLs; {@link dev.adaptive.time.VirtualTime} in tests
     */
    public InMemoryCoordinator(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.clock = null;
    }

    /**
     * @param ticker measures report TTLs; {@link dev.adaptive.time.VirtualTime} in tests
     * @param clock  the wall clock pauses are written in, to tell a new subscriber only of a pause
     *               that has not ended; {@link dev.adaptive.time.VirtualTime#clock(java.time.Instant)}
     *               in tests
     */
    public InMemoryCoordinator(Ticker ticker, Clock clock) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return a coordinator measuring TTLs in real time ({@link Ticker#system()}) */
    public static InMemoryCoordinator create() {
        return new InMemoryCoordinator(Ticker.system());
    }

    /**
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    @Override
    public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        long now = ticker.nanoTime();
        long ttlNanos = Nanos.of(ttl);
        synchronized (lock) {
            Map<Member, Entry> live = reports.computeIfAbsent(key, k -> new LinkedHashMap<>());
            purge(live, now);
            live.put(new Member(report.nodeId(), report.incarnation()), new Entry(report, now, ttlNanos));
            return CompletableFuture.completedFuture(snapshot(live));
        }
    }

    @Override
    public CompletionStage<Void> leave(String key, String nodeId) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(nodeId, "nodeId");
        synchronized (lock) {
            Map<Member, Entry> live = reports.get(key);
            if (live != null) {
                live.keySet().removeIf(m -> m.nodeId().equals(nodeId));
                if (live.isEmpty()) {
                    reports.remove(key);
                }
            }
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> publishPause(String key, FleetPause pause) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(pause, "pause");
        List<Consumer<FleetPause>> targets;
        synchronized (lock) {
            latestPause.merge(key, pause, (kept, next) -> next.until().isAfter(kept.until()) ? next : kept);
            targets = List.copyOf(subscribers.getOrDefault(key, List.of()));
        }
        Listeners.tellAll(targets, pause, Consumer::accept, listenerFailures);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(listener, "listener");
        // A wrapper per subscription, so one listener subscribed twice is closed one at a time.
        Consumer<FleetPause> subscription = listener::accept;
        FleetPause current;
        synchronized (lock) {
            subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(subscription);
            current = latestPause.get(key);
            if (current != null && clock != null && !current.until().isAfter(clock.instant())) {
                latestPause.remove(key);
                current = null;
            }
        }
        if (current != null) {
            // Told like a publication: a pause that arrives meanwhile may reach it first, and a
            // limiter keeps the later end of the two.
            Listeners.tellAll(List.of(subscription), current, Consumer::accept, listenerFailures);
        }
        return () -> {
            synchronized (lock) {
                List<Consumer<FleetPause>> list = subscribers.get(key);
                if (list != null) {
                    list.remove(subscription);
                    if (list.isEmpty()) {
                        subscribers.remove(key);
                    }
                }
            }
        };
    }

    /**
     * @param key the backend's key
     * @return the live reports under {@code key} now, sorted as heartbeats return them
     */
    public List<NodeReport> liveReports(String key) {
        Objects.requireNonNull(key, "key");
        long now = ticker.nanoTime();
        synchronized (lock) {
            Map<Member, Entry> live = reports.get(key);
            if (live == null) {
                return List.of();
            }
            purge(live, now);
            return snapshot(live);
        }
    }

    /** @return how many pause subscribers threw (each such failure is otherwise ignored) */
    public long listenerFailures() {
        return listenerFailures.sum();
    }

    @Override
    public String toString() {
        synchronized (lock) {
            return "InMemoryCoordinator[keys=" + reports.keySet() + "]";
        }
    }

    private static void purge(Map<Member, Entry> live, long now) {
        live.values().removeIf(e -> !e.isLive(now));
    }

    private static List<NodeReport> snapshot(Map<Member, Entry> live) {
        List<NodeReport> out = new ArrayList<>(live.size());
        for (Entry e : live.values()) {
            out.add(e.report);
        }
        out.sort(ORDER);
        return List.copyOf(out);
    }

    private record Member(String nodeId, String incarnation) {
    }

    private record Entry(NodeReport report, long writtenNanos, long ttlNanos) {
        /** Live strictly before written + ttl; compared as a difference so that wrap-around is harmless. */
        boolean isLive(long now) {
            return now - writtenNanos < ttlNanos;
        }
    }
}
