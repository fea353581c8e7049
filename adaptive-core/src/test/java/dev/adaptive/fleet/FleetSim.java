package dev.adaptive.fleet;

import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several limiters in one JVM sharing one {@link InMemoryCoordinator}, all in one virtual time.
 * Every admission on any node checks the fleet's total in flight against the ceiling the test
 * declares, at the very instant of the admission (the only moments the total can grow).
 */
final class FleetSim {

    static final Instant EPOCH = Instant.parse("2030-01-01T00:00:00Z");
    static final String KEY = "backend";

    final VirtualTime time = new VirtualTime();
    final Clock clock = time.clock(EPOCH);
    final InMemoryCoordinator store = new InMemoryCoordinator(time);
    final Map<String, Node> nodes = new LinkedHashMap<>();
    final List<String> violations = new ArrayList<>();
    int ceiling = Integer.MAX_VALUE;
    /** Whether nodes join with {@link FleetMember.Builder#learnCapacity(boolean)}; the even-split rules by default here. */
    boolean learn;
    int maxTotal;
    long admissions;

    Node node(String id, int localLimit) {
        return node(id, localLimit, OutagePolicy.FAIL_CLOSED);
    }

    Node node(String id, int localLimit, OutagePolicy policy) {
        Node n = new Node(id, Limiter.builder().name(id).limit(FixedLimit.of(localLimit)).time(time)
                .maxRetryAfter(Duration.ofMinutes(1)).build(), policy);
        nodes.put(id, n);
        return n;
    }

    int totalInflight() {
        return nodes.values().stream().mapToInt(n -> n.limiter.inflight()).sum();
    }

    void advance(Duration d) {
        time.advance(d);
    }

    void checkAdmission(Node at) {
        admissions++;
        int total = totalInflight();
        maxTotal = Math.max(maxTotal, total);
        if (total > ceiling) {
            violations.add("t=" + time.elapsed() + " admission on " + at.id + " made the total " + total
                    + " > ceiling " + ceiling + " " + describe());
        }
    }

    String describe() {
        StringBuilder sb = new StringBuilder("[");
        nodes.values().forEach(n -> sb.append(n.id).append(": inflight=").append(n.limiter.inflight())
                .append(" limit=").append(n.limiter.limit()).append("; "));
        return sb.append("]").toString();
    }

    final class Node {
        final String id;
        final Limiter limiter;
        final SwitchableCoordinator line = new SwitchableCoordinator(store);
        final List<FleetEvent> events = new ArrayList<>();
        final List<Lease> held = new ArrayList<>();
        final OutagePolicy policy;
        FleetMember member;

        Node(String id, Limiter limiter, OutagePolicy policy) {
            this.id = id;
            this.limiter = limiter;
            this.policy = policy;
        }

        Node join() {
            member = FleetMember.builder(limiter, line).key(KEY).nodeId(id).clock(clock).outagePolicy(policy).learnCapacity(learn)
                    .listener(events::add).join();
            return this;
        }

        /** Queues {@code n} calls; each, once admitted, is held until released by the test. */
        void hold(int n) {
            for (int i = 0; i < n; i++) {
                limiter.acquire().thenAccept(lease -> {
                    checkAdmission(this);
                    held.add(lease);
                });
            }
        }

        /** Queues {@code n} calls; each, once admitted, takes {@code rtt} and releases itself. */
        void call(int n, Duration rtt) {
            for (int i = 0; i < n; i++) {
                limiter.acquire().thenAccept(lease -> {
                    checkAdmission(this);
                    time.schedule(lease::release, rtt);
                });
            }
        }

        void release(int n) {
            for (int i = 0; i < n && !held.isEmpty(); i++) {
                held.remove(0).release(Outcome.SUCCESS);
            }
        }

        /** The process dies: its calls die with it and it never speaks to the coordinator again. */
        void crash() {
            line.set(SwitchableCoordinator.Line.FAILING);
            limiter.abort();
            release(held.size());
            member.close();
        }

        int limit() {
            return limiter.limit();
        }

        <E extends FleetEvent> List<E> events(Class<E> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }
}
