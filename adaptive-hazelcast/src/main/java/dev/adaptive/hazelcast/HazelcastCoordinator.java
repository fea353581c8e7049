package dev.adaptive.hazelcast;

import com.hazelcast.client.impl.clientside.HazelcastClientInstanceImpl;
import com.hazelcast.client.impl.protocol.codec.MCGetMapConfigCodec;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.adaptive.fleet.Coordinator;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.time.Cancellable;
import dev.adaptive.time.Scheduler;

import java.lang.ref.WeakReference;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The fleet {@link Coordinator} on Hazelcast 5: every JVM that has a {@link HazelcastInstance}
 * of one cluster (an embedded member, a lite member or a client) shares one ceiling and one
 * Retry-After pause per key, with no Vert.x. It only stores and relays; the aggregation rule
 * is the engine's.
 *
 * <p><b>Storage</b>, for prefix {@code p} (default {@value #DEFAULT_PREFIX}):
 * <ul>
 *   <li>the {@code IMap<String, String>} {@code p + "reports"} holds one entry per fleet key:
 *       a JSON array of the live reports, one per (node id, incarnation), each stamped with
 *       its expiry ({@code now + ttl} by the writer's wall clock). A heartbeat is one entry
 *       processor on that entry (drop the expired reports, replace this node's, store, return
 *       the array), so the list it returns is the store right after its write. The stamp
 *       alone decides what is live: the entry has no map TTL (a split-brain merge gives the
 *       kept entry the merging one's expiration, which would end live reports early), and the
 *       last leave removes it; a key whose nodes all died keeps one small entry of expired
 *       reports until a node of that key reports again. A coordinator is not built on maps
 *       that Hazelcast may drop entries of: {@code max-idle-seconds}, or an eviction policy
 *       with a max size it can reach, in a member's own configuration or, on a client, in any
 *       data member's (see {@link Builder#build()}); on a client, a data member that joins
 *       later with such a configuration is counted in {@link #lateMemberRefusals()} and logged;</li>
 *   <li>the {@code IMap<String, String>} {@code p + "pauses"} holds the latest pause per key,
 *       as JSON, until it ends: a pause never replaces one that ends later, and a node that
 *       subscribes late still learns of it. Subscribers listen to their key's entry, so a pause
 *       is relayed only once it is stored.</li>
 * </ul>
 * The keys are stored as UTF-8, so a fleet key holding a lone UTF-16 surrogate (an emoji cut
 * in half) would be stored as another key ({@code '?'} in its place) and share that key's
 * fleet: every method refuses it with an {@link IllegalArgumentException} naming it, so a
 * {@link dev.adaptive.fleet.FleetMember} with such a key fails to join. Node ids and the other
 * strings of the values are escaped and kept as they are.
 * The values are plain JSON strings (any member, client or tool can hold and read them). The
 * entry processors ({@code dev.adaptive.hazelcast.*Processor}, Java-serialized records that
 * need nothing but the JDK and Hazelcast) run on the members that own the entries and their
 * backups, so <b>every data member of the cluster must have this module's jar on its class
 * path</b> (adaptive-core is not needed there); an embedded member of an application that uses
 * this coordinator has it already.
 *
 * <p>Expiry is judged by the wall clock of the node that writes or reads, so nodes' clocks
 * should agree within a fraction of the TTL (NTP does this).
 *
 * <p><b>Never blocks the caller.</b> Heartbeats, leaves and pauses return stages completed
 * from Hazelcast's asynchronous calls ({@code IMap.submitToKey}, {@code getAsync}), failed
 * with a {@link TimeoutException} if Hazelcast has not answered within the operation timeout
 * (default {@link #DEFAULT_OPERATION_TIMEOUT}). Apart from {@link Builder#build()} on a client
 * (at most about one operation timeout), adding and removing the pause listener are
 * Hazelcast's only blocking calls here; they run on the builder's executor (default
 * {@link ForkJoinPool#commonPool()}, as a managed block), and a registration that fails is
 * tried again a second later until the subscription is closed or the instance stops. Pause
 * listeners are called on Hazelcast's event threads; one that throws anything is counted in
 * {@link #listenerFailures()} and does not stop the others.
 *
 * <p>A {@code SharedDataCoordinator} of the Vert.x module and this coordinator cannot share a
 * key, even on one Hazelcast cluster: the Vert.x one keeps one map entry per node under the
 * cluster manager's lock, and relays pauses on the Vert.x event bus, which this one cannot
 * reach; each would see only its own kind of node. A Vert.x node clustered by Hazelcast joins
 * the same fleet as plain-Java and Camel nodes by using this coordinator on its cluster
 * manager's instance.
 *
 * <p>Thread-safe.
 */
public final class HazelcastCoordinator implements Coordinator {

    /** Default prefix of the map names: {@value}. */
    public static final String DEFAULT_PREFIX = "adaptive.fleet.";
    /** Default bound on waiting for Hazelcast to answer one operation: 5 s. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);

    /** The longest TTL a prune after a leave waits for: a report's, at most a year. */
    private static final long MAX_TTL_MILLIS = Duration.ofDays(365).toMillis();
    private static final System.Logger LOG = System.getLogger(HazelcastCoordinator.class.getName());

    /** How long after a failed listener registration it is tried again. */
    private static final long RESUBSCRIBE_NANOS = Duration.ofSeconds(1).toNanos();

    private final HazelcastInstance hazelcast;
    private final String prefix;
    private final Duration operationTimeout;
    private final long timeoutNanos;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Executor executor;
    private final IMap<String, String> reports;
    private final IMap<String, String> pauses;
    private final String writer = UUID.randomUUID().toString();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong longestTtlMillis = new AtomicLong(1);
    private final LongAdder listenerFailures = new LongAdder();
    private final LongAdder subscriptionFailures = new LongAdder();
    private final LongAdder lateMemberRefusals = new LongAdder();

    private HazelcastCoordinator(Builder b) {
        this.hazelcast = b.hazelcast;
        this.prefix = b.prefix;
        this.operationTimeout = b.operationTimeout;
        this.timeoutNanos = b.operationTimeout.toNanos();
        this.clock = b.clock;
        this.scheduler = b.scheduler;
        this.executor = b.executor;
        this.reports = ClientMaps.map(hazelcast, prefix + "reports");
        this.pauses = ClientMaps.map(hazelcast, prefix + "pauses");
    }

    /**
     * Builds a coordinator with the defaults of {@link Builder}, after checking that the cluster
     * keeps the two maps' entries (see {@link Builder#build()}).
     *
     * @param hazelcast a running member or client of the fleet's cluster
     * @return a coordinator with the defaults of {@link Builder}
     * @throws IllegalArgumentException if either map may lose entries to {@code max-idle-seconds}
     *                                  or eviction, naming the map, the setting and where it is set
     * @throws IllegalStateException    on a client, if a data member does not answer the read of its
     *                                  map configuration within the operation timeout, or refuses it,
     *                                  or if the client has no member to read it from
     */
    public static HazelcastCoordinator create(HazelcastInstance hazelcast) {
        return builder(hazelcast).build();
    }

    /**
     * @param hazelcast a running member or client of the fleet's cluster
     * @return a builder
     */
    public static Builder builder(HazelcastInstance hazelcast) {
        return new Builder(hazelcast);
    }

    /**
     * @throws IllegalArgumentException if {@code ttl} is not positive, or {@code key} holds a
     *                                  lone surrogate (see the class documentation)
     */
    @Override
    public CompletionStage<List<NodeReport>> heartbeat(String key, NodeReport report, Duration ttl) {
        storable(key);
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        long now = clock.millis();
        long ttlMillis = Math.max(1, saturatedMillis(ttl));
        longestTtlMillis.accumulateAndGet(ttlMillis, Math::max);
        long expiresAt = saturatedAdd(now, ttlMillis);
        long seq = writes.incrementAndGet();
        HeartbeatProcessor step = new HeartbeatProcessor(ReportCodec.encode(report, expiresAt, writer, seq),
                report.nodeId(), report.incarnation(), writer, seq, now);
        return bounded("heartbeat on key '" + key + "'", () -> reports.submitToKey(key, step))
                .thenApply(array -> ReportCodec.live(array, now));
    }

    /**
     * Removes every report of the node (all its incarnations), except one that this coordinator
     * writes after this call: Hazelcast goes on with a leave whose stage has timed out, and it may
     * land after the node has come back as a new incarnation through this coordinator, whose
     * claim must stay in view. The data members that hold the key apply that rule: one running
     * an earlier version of this module removes every report of the node, as before.
     */
    @Override
    public CompletionStage<Void> leave(String key, String nodeId) {
        storable(key);
        Objects.requireNonNull(nodeId, "nodeId");
        // Ordered with this coordinator's heartbeats: a report it writes after this leave (the
        // node back as a new incarnation) stays, however late Hazelcast applies the leave.
        LeaveProcessor step = new LeaveProcessor(nodeId, writer, writes.incrementAndGet(), clock.millis());
        return bounded("leave on key '" + key + "'", () -> reports.submitToKey(key, step)).whenComplete((done, error) -> pruneLater(key));
    }

    /**
     * The entry has no map TTL, so nothing else would clear a report of ours that lands after
     * the leave (a heartbeat given up on, still on its way): once it can no longer land and its
     * stamp has passed, the key is pruned of expired reports again, and removed if none is live.
     */
    private void pruneLater(String key) {
        long ttlNanos = Duration.ofMillis(Math.min(longestTtlMillis.get(), MAX_TTL_MILLIS)).toNanos();
        try {
            scheduler.schedule(() -> {
                try {
                    reports.submitToKey(key, new LeaveProcessor(null, null, 0, clock.millis()));
                } catch (RuntimeException stopped) {
                    // The instance is shutting down: nothing left to tidy.
                }
            }, timeoutNanos + ttlNanos);
        } catch (Throwable refused) {
            // Only tidying: the leave itself is done, and a report of ours that still lands
            // stays in the entry, expired, until the key's next heartbeat or leave drops it.
        }
    }

    @Override
    public CompletionStage<Void> publishPause(String key, FleetPause pause) {
        storable(key);
        Objects.requireNonNull(pause, "pause");
        long live = saturatedMillis(Duration.between(clock.instant(), pause.until()));
        if (live <= 0) {
            return CompletableFuture.completedFuture(null); // already over: nothing to share
        }
        PauseProcessor step = new PauseProcessor(ReportCodec.encode(pause), pause.until(), live);
        return bounded("publishPause on key '" + key + "'", () -> pauses.submitToKey(key, step)).thenApply(stored -> null);
    }

    /**
     * Returns at once; the listener is registered on the executor and, once registered, the
     * stored pause of the key (if it has not ended) is read and delivered, so that a pause
     * published before the registration took effect is not missed. A pause may be delivered
     * twice; a pause never shortens another.
     */
    @Override
    public AutoCloseable subscribePauses(String key, Consumer<FleetPause> listener) {
        storable(key);
        Objects.requireNonNull(listener, "listener");
        PauseSubscription subscription = new PauseSubscription(this, key, listener);
        subscription.start();
        return subscription;
    }

    /**
     * A fleet key is a map key, which Hazelcast stores as UTF-8, where a lone surrogate (an emoji
     * cut in half) becomes '?': the key would share its entry, reports and pauses, with another
     * key's fleet ({@code "orders-?"}). It is refused instead; escaping it would change how every
     * key with the escape character is stored, and nodes of one key on two versions would no
     * longer meet.
     *
     * @throws NullPointerException     if {@code key} is null
     * @throws IllegalArgumentException if it holds a lone surrogate
     */
    private static void storable(String key) {
        Objects.requireNonNull(key, "key");
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++; // a whole pair: one code point, stored as it is
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(String.format("fleet key holds a lone UTF-16 surrogate (\\u%04x at index %d),"
                        + " which Hazelcast's UTF-8 store keeps as '?', so its fleet would be another key's: %s",
                        (int) c, i, FleetJson.quoted(key)));
            }
        }
    }

    /** @return how many pause listeners threw (each such failure is otherwise ignored) */
    public long listenerFailures() {
        return listenerFailures.sum();
    }

    /** @return how many pause-listener registrations failed (each is tried again a second later) */
    public long subscriptionFailures() {
        return subscriptionFailures.sum();
    }

    /**
     * @return how many configurations of the two maps, read on a client from data members that
     *         joined the cluster after {@link Builder#build()}, would have been refused there (or
     *         could not be read); each is also logged at {@code WARNING}, naming the member
     */
    public long lateMemberRefusals() {
        return lateMemberRefusals.sum();
    }

    /** @return the name of the map of reports, one entry per fleet key: configure its backups here */
    public String reportsMapName() {
        return reports.getName();
    }

    /** @return the name of the map of pauses, one entry per fleet key */
    public String pausesMapName() {
        return pauses.getName();
    }

    /** @return the bound on waiting for one operation */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    @Override
    public String toString() {
        return "HazelcastCoordinator[instance=" + hazelcast.getName() + ", prefix=" + prefix + "]";
    }

    // ---- for PauseSubscription -------------------------------------------------------------

    IMap<String, String> pausesMap() {
        return pauses;
    }

    Clock clock() {
        return clock;
    }

    Executor executor() {
        return executor;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** @return whether the Hazelcast instance (member or client) still runs */
    boolean running() {
        try {
            return hazelcast.getLifecycleService().isRunning();
        } catch (RuntimeException e) {
            return false;
        }
    }

    long resubscribeNanos() {
        return RESUBSCRIBE_NANOS;
    }

    LongAdder listenerFailureCounter() {
        return listenerFailures;
    }

    void subscriptionFailed() {
        subscriptionFailures.increment();
    }

    /**
     * Refuses maps that Hazelcast may evict or expire by idleness ({@link StorageCheck}): on a
     * member, as its own configuration says; on a client, as each data member's says. A client's
     * reads (two maps, each from every data member) are all sent before any answer is waited
     * for, each bounded by the operation timeout, so the check waits at most about one operation
     * timeout whatever the number of members; the answers are then judged in order (the reports
     * map first, members as the client lists them), so the error is the same whichever answered
     * first.
     */
    private void checkStorage(List<String> maps) {
        try {
            HazelcastClientInstanceImpl client = StorageCheck.client(hazelcast);
            if (client == null) {
                for (String map : maps) {
                    StorageCheck.onMember(hazelcast, map);
                }
                return;
            }
            List<Runnable> judged = new ArrayList<>();
            for (String map : maps) {
                for (StorageCheck.Read read : StorageCheck.reads(client, map)) {
                    CompletionStage<MCGetMapConfigCodec.ResponseParameters> answer = send(map, read);
                    judged.add(() -> StorageCheck.onClient(map, read, answer));
                }
            }
            judged.forEach(Runnable::run);
        } catch (LinkageError otherHazelcast) {
            // A client's read goes through Hazelcast's client internals, which a Hazelcast other
            // than the one this module was built against may not have in the same shape.
            throw new IllegalStateException("cannot check the Hazelcast maps " + maps + " for eviction and"
                    + " max-idle-seconds: this Hazelcast (" + hazelcastVersion() + ") lacks the client internals the"
                    + " check calls (" + otherHazelcast + "); make sure the members keep the maps' entries and build"
                    + " with checkMapConfiguration(false)", otherHazelcast);
        }
    }

    /**
     * On a smart client, runs the check of {@code build()} on every data member that joins
     * later, for as long as the instance runs: a member added to the cluster with a configuration
     * that lets Hazelcast drop the maps' entries (a standalone member started with another
     * {@code default}, say) would otherwise go unseen, and the fleet over its ceiling without a
     * word. The coordinator already serves by then, so the finding is counted and logged rather
     * than thrown. A member's coordinator reads its own configuration only, and a unisocket
     * client reaches only the member it is connected to: neither can read a joining member's.
     */
    private void watchJoiningMembers() {
        HazelcastClientInstanceImpl client;
        try {
            client = StorageCheck.client(hazelcast);
            if (client == null || client.getConnectionManager().isUnisocketClient()) {
                return;
            }
        } catch (LinkageError otherHazelcast) {
            return; // build() could not have checked either
        }
        JoinWatch watch = new JoinWatch(this, client);
        watch.registration = hazelcast.getCluster().addMembershipListener(watch);
    }

    /**
     * The check of joining members, registered on the client for its whole life. It holds its
     * coordinator weakly: the application may drop a coordinator and build another on the same
     * client (a Camel context stopped and started again), and the listener, which the
     * coordinator cannot remove (it has no {@code close()}), must not keep each one reachable.
     * Once its coordinator is gone, the next membership event removes the listener.
     */
    private static final class JoinWatch implements MembershipListener {
        private final WeakReference<HazelcastCoordinator> coordinator;
        private final HazelcastClientInstanceImpl client;
        /** Set right after the registration; read by the events, which come later. */
        private volatile UUID registration;

        JoinWatch(HazelcastCoordinator coordinator, HazelcastClientInstanceImpl client) {
            this.coordinator = new WeakReference<>(coordinator);
            this.client = client;
        }

        @Override
        public void memberAdded(MembershipEvent event) {
            HazelcastCoordinator c = live();
            if (c != null && !event.getMember().isLiteMember()) {
                c.checkJoined(client, event.getMember());
            }
        }

        @Override
        public void memberRemoved(MembershipEvent event) {
            live(); // nothing to check: a member that left holds nothing
        }

        /** @return the coordinator, or {@code null} once collected, the listener then removed */
        private HazelcastCoordinator live() {
            HazelcastCoordinator c = coordinator.get();
            UUID id = registration;
            if (c == null && id != null) {
                try {
                    client.getCluster().removeMembershipListener(id);
                } catch (RuntimeException stopping) {
                    // The client is shutting down: its listeners go with it.
                }
            }
            return c;
        }
    }

    /** Runs on Hazelcast's event thread: the reads are sent, and judged as they are answered. */
    private void checkJoined(HazelcastClientInstanceImpl client, Member member) {
        for (String map : List.of(reportsMapName(), pausesMapName())) {
            try {
                StorageCheck.Read read = StorageCheck.read(client, map, member);
                CompletableFuture<MCGetMapConfigCodec.ResponseParameters> answer = send(map, read);
                answer.whenComplete((config, error) -> judgeJoined(map, read, answer));
            } catch (RuntimeException | LinkageError notSent) {
                refusedLate("reading the configuration of map '" + map + "' from member " + member.getAddress()
                        + " could not be sent (" + notSent + ")");
            }
        }
    }

    /** @return the read of {@code map}'s configuration, sent, bounded by the operation timeout */
    private CompletableFuture<MCGetMapConfigCodec.ResponseParameters> send(String map, StorageCheck.Read read) {
        return bounded("reading the configuration of map '" + map + "' from " + read.member(), read.request());
    }

    private void judgeJoined(String map, StorageCheck.Read read, CompletableFuture<MCGetMapConfigCodec.ResponseParameters> answer) {
        try {
            StorageCheck.onClient(map, read, answer);
        } catch (RuntimeException refused) {
            refusedLate(refused.getMessage());
        }
    }

    private void refusedLate(String why) {
        lateMemberRefusals.increment();
        try {
            LOG.log(System.Logger.Level.WARNING, this + ": a data member that joined after the coordinator was built: "
                    + why);
        } catch (Throwable brokenLogger) {
            // A logging back end that throws (anything, an Error too): the finding is still counted.
        }
    }

    private static String hazelcastVersion() {
        try {
            return "version " + com.hazelcast.instance.BuildInfoProvider.getBuildInfo().getVersion();
        } catch (RuntimeException | LinkageError unknown) {
            return "version unknown";
        }
    }

    // ---- bounded stages ---------------------------------------------------------------------

    /**
     * Runs {@code call} with its answer bounded by the operation timeout. The timer is armed
     * before Hazelcast is called: a scheduler that refuses it (a shut-down executor) then fails
     * the returned stage with the refusal and nothing is sent. Armed after, a refusal could only
     * be thrown once Hazelcast had taken the operation, whose write might then land while the
     * caller counted it failed; or the operation would go unbounded, which a fleet member's
     * heartbeat cannot tell from an outage.
     *
     * @param what the operation, for the timeout's message
     */
    private <T> CompletableFuture<T> bounded(String what, Supplier<CompletionStage<T>> call) {
        CompletableFuture<T> out = new CompletableFuture<>();
        Cancellable timer;
        try {
            timer = scheduler.schedule(() -> out.completeExceptionally(new TimeoutException(
                    what + " not answered within " + operationTimeout)), timeoutNanos);
        } catch (Throwable refused) {
            out.completeExceptionally(refused); // not sent: the failure says what Hazelcast did
            return out;
        }
        CompletionStage<T> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            cancel(timer);
            out.completeExceptionally(e); // the instance is shutting down, say
            return out;
        }
        stage.whenComplete((value, error) -> {
            cancel(timer);
            if (error != null) {
                out.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
            } else {
                out.complete(value);
            }
        });
        return out;
    }

    private static void cancel(Cancellable timer) {
        try {
            timer.cancel();
        } catch (Throwable ignored) {
            // The scheduler is user code: the answer still completes the stage, and the timer,
            // if it fires, finds it complete.
        }
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException overflow) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    /**
     * The check's errors name the map and the member; an application may build several
     * coordinators (a Camel context with one per prefix), so they name the coordinator too. The
     * same exception, with the same cause and stack, under that longer message.
     */
    private static <E extends RuntimeException> E named(E named, RuntimeException original) {
        named.setStackTrace(original.getStackTrace());
        for (Throwable suppressed : original.getSuppressed()) {
            named.addSuppressed(suppressed);
        }
        return named;
    }

    /**
     * Configures a {@link HazelcastCoordinator}. Not thread-safe. Every option is checked when
     * set, with an {@link IllegalArgumentException} naming it and the value; a {@code null}
     * clock, scheduler or executor with a {@link NullPointerException} naming it.
     */
    public static final class Builder {
        private final HazelcastInstance hazelcast;
        private String prefix = DEFAULT_PREFIX;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private Clock clock = Clock.systemUTC();
        private Scheduler scheduler = Scheduler.system();
        private Executor executor = ForkJoinPool.commonPool();
        private boolean checkMapConfiguration = true;

        private Builder(HazelcastInstance hazelcast) {
            this.hazelcast = Objects.requireNonNull(hazelcast, "hazelcast");
        }

        /**
         * @param prefix prefix of the two map names, may be empty; default {@value #DEFAULT_PREFIX}
         * @return this builder
         */
        public Builder prefix(String prefix) {
            if (prefix == null) {
                throw new IllegalArgumentException("prefix must not be null");
            }
            this.prefix = prefix;
            return this;
        }

        /**
         * @param timeout bound on waiting for Hazelcast to answer one heartbeat, leave or
         *                pause (and, on a client, the members' map configurations in
         *                {@link #build()}, read all at once: the bound on how long it blocks),
         *                positive, at most a day; default 5 s. A fleet member counts a
         *                heartbeat still unanswered at its next one as an outage whatever this
         *                is, but sends no other heartbeat until this one is given up: set it
         *                below the members' heartbeat period (1 s by default, which the 5 s
         *                default is not), so that under {@code FAIL_CLOSED} a node whose
         *                heartbeat hung reports again at its next heartbeat instead of staying
         *                closed until the timeout; and above Hazelcast's slowest ordinary
         *                answers, since a later answer counts as a failed heartbeat.
         * @return this builder
         */
        public Builder operationTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("operationTimeout must be positive and at most 1 day: " + timeout);
            }
            this.operationTimeout = timeout;
            return this;
        }

        /**
         * @param clock the wall clock that stamps and judges expiries; default
         *              {@link Clock#systemUTC()}
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @param scheduler times out operations and retries failed listener registrations;
         *                  default {@link Scheduler#system()}. A timer's cancel that throws, or a
         *                  refused prune after a leave, does not fail an operation Hazelcast answered
         * @return this builder
         */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * @param executor runs Hazelcast's blocking listener registrations and removals;
         *                 default {@link ForkJoinPool#commonPool()}
         * @return this builder
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * @param check whether {@link #build()} checks that the cluster keeps the two maps'
         *              entries (no {@code max-idle-seconds}, no eviction that can act), and a
         *              smart client's coordinator then checks the data members that join later;
         *              default {@code true}. Turn it off only where the check cannot run and you have
         *              made sure of that configuration yourself: a client whose members refuse
         *              it the Management Center's read of a map's configuration (trusted
         *              interfaces, Hazelcast security), or a client of a Hazelcast version whose
         *              client internals this module cannot call. Eviction or max-idle on these
         *              maps lets a fleet go over its ceiling without a word.
         * @return this builder
         */
        public Builder checkMapConfiguration(boolean check) {
            this.checkMapConfiguration = check;
            return this;
        }

        /**
         * Gets the two map proxies from the instance (Hazelcast creates them on first use) and,
         * unless {@link #checkMapConfiguration(boolean)} is off, checks the configuration the
         * cluster gives the two maps: one that lets Hazelcast drop entries before the coordinator
         * removes them is refused. A member reads its own configuration (static, wildcards,
         * {@code default}, and what was added at run time). A client, whose {@code getConfig()}
         * cannot read, asks every data member it knows for the configuration the map runs with
         * there (a unisocket client: the member it is connected to), with the request Hazelcast's
         * Management Center uses, which needs no class of this module on the members. The members
         * must accept that request from the client: if one refuses it (its management-center
         * trusted interfaces, if set, leave out the client's address; under Hazelcast security,
         * the client lacks {@code ManagementPermission "map.getConfig"}) the maps cannot be
         * checked, and the coordinator is not built. On a smart client, data members that join
         * the cluster later are checked as they join, and what would have been refused is
         * counted in {@link HazelcastCoordinator#lateMemberRefusals()} and logged at
         * {@code WARNING}; a member's coordinator checks only its own configuration, and a
         * unisocket client only the member it is connected to.
         *
         * <p><b>How long it blocks.</b> On a member, not at all (its own configuration). On a
         * client, at most about one operation timeout ({@link #operationTimeout(Duration)},
         * default 5 s), whatever the cluster's state: the maps' proxies are made without asking
         * the cluster (Hazelcast's {@code getMap} would wait for a client that is not connected
         * until it connects or its invocation timeout, 120 s by default, passes: an application
         * starting while its cluster is unreachable hung there with no error), and the
         * configuration reads, all sent at once, are each bounded by that timeout. A client that
         * is not connected (reconnecting, its cluster unreachable or slow, or started with async
         * start and not connected yet) therefore gets an {@link IllegalStateException} naming the
         * coordinator, the map and the member that did not answer (or that it knows no member),
         * within that time; build once it is connected. With the check off, {@code build()} asks
         * the cluster nothing and returns at once; the coordinator's operations then fail (their
         * stages, each after at most the operation timeout) until the client connects, which a
         * fleet member counts as an outage.
         *
         * @return the coordinator
         * @throws IllegalArgumentException if a configuration of either map (this member's; on a
         *                                  client, any data member's) sets {@code max-idle-seconds},
         *                                  or an eviction policy with a max size (or a free-heap
         *                                  bound, reached with any size), naming the coordinator,
         *                                  the map, the setting and its value, and where it is set
         * @throws IllegalStateException    on a client, if a data member does not answer within the
         *                                  operation timeout, or refuses the read, naming the
         *                                  coordinator, the map and the member; or if the client has
         *                                  no member to read from (not connected now)
         */
        public HazelcastCoordinator build() {
            HazelcastCoordinator coordinator = new HazelcastCoordinator(this);
            if (checkMapConfiguration) {
                try {
                    coordinator.checkStorage(List.of(coordinator.reportsMapName(), coordinator.pausesMapName()));
                } catch (IllegalArgumentException refused) {
                    throw named(new IllegalArgumentException(coordinator + " not built: " + refused.getMessage(),
                            refused.getCause()), refused);
                } catch (IllegalStateException unchecked) {
                    throw named(new IllegalStateException(coordinator + " not built: " + unchecked.getMessage(),
                            unchecked.getCause()), unchecked);
                }
                coordinator.watchJoiningMembers();
            }
            return coordinator;
        }
    }
}
