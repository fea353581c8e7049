package dev.adaptive.benchmarks.sim;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.trace.TraceEvent;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * One way for the K clients of a {@link FleetRun} to share one server: a fixed total split
 * evenly (the sweep whose best is the fleet's oracle), independent Adaptive clients, Adaptive
 * clients coordinated by {@link FleetMember} on an {@link InMemoryCoordinator} (with the default
 * rules, or with the earlier even-split ones), or Netflix's Vegas per client.
 *
 * <p>Every Adaptive client is the engine as an application that calls a backend runs it: its own
 * {@link Limiter} and an {@link AdaptiveExecutor} with the scenario's client work, every item
 * submitted at once into the limiter's queue. The coordinated clients differ from the
 * independent ones only by the member attached to their limiter.
 *
 * <p>Immutable; each run builds fresh limiters, members and coordinator.
 */
public final class FleetPolicy {

    /** The wall clock the members write fleet pauses in; any fixed instant, the runs are in virtual time. */
    private static final Instant EPOCH = Instant.parse("2030-01-01T00:00:00Z");
    private static final String KEY = "backend";

    private enum Kind { FIXED, INDEPENDENT, COORDINATED, NETFLIX }

    private final String name;
    private final String family;
    private final Kind kind;
    private final int total;
    private final Duration heartbeat;
    private final boolean learn;

    private FleetPolicy(String name, String family, Kind kind, int total, Duration heartbeat) {
        this(name, family, kind, total, heartbeat, false);
    }

    private FleetPolicy(String name, String family, Kind kind, int total, Duration heartbeat, boolean learn) {
        this.learn = learn;
        this.name = name;
        this.family = family;
        this.kind = kind;
        this.total = total;
        this.heartbeat = heartbeat;
    }

    /**
     * @param total the fleet's total concurrency, split evenly (the first {@code total mod K}
     *              clients get one more); at least K
     * @return the policy
     */
    public static FleetPolicy fixedTotal(int total) {
        return new FleetPolicy("fixed total=" + total, "fixed", Kind.FIXED, total, null);
    }

    /** @return every client with its own Adaptive limiter (Vegas, the default), nothing shared */
    public static FleetPolicy independent() {
        return new FleetPolicy("independent adaptive", "independent", Kind.INDEPENDENT, 0, null);
    }

    /**
     * @param heartbeat the members' heartbeat
     * @return every client's Adaptive limiter a {@link FleetMember} of one in-memory fleet, with
     *         the even-split rules ({@link FleetMember.Builder#learnCapacity(boolean)} off): the
     *         fleet as it was before it learned its capacity, for comparison
     */
    public static FleetPolicy coordinated(Duration heartbeat) {
        return new FleetPolicy("coordinated adaptive, even split, " + label(heartbeat), "coordinated", Kind.COORDINATED,
                0, Objects.requireNonNull(heartbeat, "heartbeat"));
    }

    private static String label(Duration heartbeat) {
        return heartbeat.equals(FleetMember.DEFAULT_HEARTBEAT) ? "default heartbeat (" + heartbeat.toMillis() + " ms)"
                : "heartbeat " + heartbeat.toMillis() + " ms";
    }

    /**
     * @param heartbeat the members' heartbeat
     * @return every client's Adaptive limiter a {@link FleetMember} of one in-memory fleet, with
     *         the default rules, which learn the fleet's capacity
     */
    public static FleetPolicy learning(Duration heartbeat) {
        return new FleetPolicy("coordinated adaptive, " + label(heartbeat), "coordinated", Kind.COORDINATED, 0,
                Objects.requireNonNull(heartbeat, "heartbeat"), true);
    }

    /** @return Netflix concurrency-limits' Vegas per client (see {@link NetflixPolicy}) */
    public static FleetPolicy netflixVegas() {
        return new FleetPolicy("netflix vegas per client", "netflix", Kind.NETFLIX, 0, null);
    }

    /** @return the row label */
    public String name() {
        return name;
    }

    /** @return fixed, independent, coordinated or netflix */
    public String family() {
        return family;
    }

    /** @return the heartbeat of a coordinated policy, or {@code null} */
    public Duration heartbeat() {
        return heartbeat;
    }

    /**
     * Starts every client of the run.
     *
     * @param run the fleet's run
     * @return the running fleet's probes
     */
    Fleet start(FleetRun run) {
        List<Run> clients = run.clients();
        int k = clients.size();
        List<IntSupplier> limits = new ArrayList<>();
        List<Limiter> limiters = new ArrayList<>();
        List<FleetMember> members = new ArrayList<>();
        InMemoryCoordinator coordinator = new InMemoryCoordinator(run.time());
        long[] overCeiling = new long[1];
        for (int i = 0; i < k; i++) {
            Run client = clients.get(i);
            if (kind == Kind.NETFLIX) {
                limits.add(NetflixPolicy.all().get(0).startClient(client));
                continue;
            }
            Limit limit = switch (kind) {
                case FIXED -> FixedLimit.of(total / k + (i < total % k ? 1 : 0));
                default -> Vegas.defaults();
            };
            Limiter.Builder lb = Limiter.builder().name("client-" + i).limit(limit).time(run.time())
                    .maxRetryAfter(client.retryPolicy().maxRetryAfter());
            if (kind == Kind.COORDINATED) {
                // The fleet's in flight against its ceiling at every admission, the only moments it grows.
                lb.traceListener(event -> {
                    if (event instanceof TraceEvent.TaskStart) {
                        int fleet = limiters.stream().mapToInt(Limiter::inflight).sum();
                        if (fleet > globalCeiling(members)) {
                            overCeiling[0]++;
                        }
                    }
                });
            }
            Limiter limiter = lb.build();
            limiters.add(limiter);
            limits.add(limiter::limit);
            if (kind == Kind.COORDINATED) {
                members.add(FleetMember.builder(limiter, coordinator).key(KEY).nodeId("client-" + i).learnCapacity(learn)
                        .heartbeat(heartbeat).clock(run.time().clock(EPOCH)).join());
            }
            AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(client.retryPolicy()).build();
            for (int item = 0; item < client.scenario().items(); item++) {
                executor.execute(ctx -> client.attempt()).whenComplete((r, e) -> client.itemDone(e == null));
            }
        }
        IntSupplier ceiling = kind == Kind.COORDINATED ? () -> globalCeiling(members)
                : () -> limits.stream().mapToInt(IntSupplier::getAsInt).sum();
        return new Fleet(ceiling, kind == Kind.COORDINATED ? () -> overCeiling[0] : () -> -1, () -> {
            members.forEach(FleetMember::close);
            limiters.forEach(Limiter::stop);
        }, () -> state(clients, limiters, members));
    }

    /** Each client's items done, its local limit, its ceiling, its in flight and its waiting calls. */
    private static String state(List<Run> clients, List<Limiter> limiters, List<FleetMember> members) {
        StringBuilder sb = new StringBuilder();
        if (!members.isEmpty()) {
            sb.append("G=").append(globalCeiling(members)).append(' ');
        }
        for (int i = 0; i < limiters.size(); i++) {
            Limiter l = limiters.get(i);
            sb.append(String.format(java.util.Locale.ROOT, "| c%d done=%d local=%d ceil=%s in=%d wait=%d ", i,
                    clients.get(i).done(), l.localLimit(),
                    l.ceiling() == Integer.MAX_VALUE ? "-" : Integer.toString(l.ceiling()), l.inflight(), l.waiting()));
            if (!members.isEmpty()) {
                sb.append("target=").append(members.get(i).stats().targetShare()).append(' ');
            }
        }
        return sb.toString();
    }

    /** The highest global ceiling any member holds now: the bound the fleet's in flight is checked against. */
    private static int globalCeiling(List<FleetMember> members) {
        int g = 0;
        for (FleetMember m : members) {
            g = Math.max(g, m.stats().globalCeiling());
        }
        return g;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * A running fleet.
     *
     * @param ceiling     the fleet's ceiling now: the global ceiling of a coordinated fleet, the
     *                    sum of the clients' limits otherwise
     * @param overCeiling admissions so far that took the fleet's in flight above the global
     *                    ceiling; -1 when there is none to check against
     * @param close       leaves the fleet once every item has ended
     * @param state       one line on every client's limits, in flight and queue, for tracing
     */
    record Fleet(IntSupplier ceiling, java.util.function.LongSupplier overCeiling, Runnable close,
                 java.util.function.Supplier<String> state) {
    }
}
