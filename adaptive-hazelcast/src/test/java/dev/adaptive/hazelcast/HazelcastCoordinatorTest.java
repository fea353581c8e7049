package dev.adaptive.hazelcast;

import com.hazelcast.core.EntryView;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.adaptive.contract.CoordinatorContract;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import dev.adaptive.testing.Until;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's contract ({@link CoordinatorContract}) on a one-member cluster, with a wall
 * clock the test moves (the fleet tests run it on three members), and what is the Hazelcast
 * store's own. Each test uses a prefix of its own.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HazelcastCoordinatorTest extends CoordinatorContract {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Instant EPOCH = Instant.parse("2030-01-01T00:00:00Z");

    private static TestCluster cluster;
    private static HazelcastInstance hz;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(1);
        hz = cluster.member(0);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static <T> T await(CompletionStage<T> stage) {
        return stage.toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
    }

    private static String prefix() {
        return "t" + UUID.randomUUID() + ".";
    }

    /** The pause map keeps the later end and relays only what extends it. */
    @Override
    protected boolean dropsEarlierPauses() {
        return true;
    }

    @Override
    protected HazelcastCoordinator coordinator(String prefix, Clock clock) {
        return HazelcastCoordinator.builder(hz).prefix(prefix).clock(clock).build();
    }

    private static NodeReport report(String node, String incarnation, int limit, Clock clock) {
        return new NodeReport(node, incarnation, limit, 0, clock.instant());
    }

    @Test
    void theStoreIsOnePlainJsonStringPerKeyWithNoMapTtlOfItsOwn() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = coordinator(prefix, clock);
        await(c.heartbeat("api", report("a", "a1", 5, clock), Duration.ofMillis(1_500)));
        await(c.heartbeat("api", report("b", "b1", 5, clock), Duration.ofMillis(500)));
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        assertThat(c.reportsMapName()).isEqualTo(prefix + "reports");
        assertThat(reports.get("api")).startsWith("[{\"nodeId\":\"a\",\"incarnation\":\"a1\",\"localLimit\":5")
                .contains("\"expiresAt\":" + (EPOCH.toEpochMilli() + 1_500));
        EntryView<String, String> view = reports.getEntryView("api");
        // The stamps decide what is live; a map TTL would be replaced by a split-brain merge's.
        assertThat(view.getTtl()).as("TTL").isEqualTo(Long.MAX_VALUE);
        assertThat(view.getExpirationTime()).as("expiration").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aReportOfOursThatLandsAfterTheLeaveIsPrunedOnceItCanNoLongerMatter() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = HazelcastCoordinator.builder(hz).prefix(prefix).clock(clock).scheduler(time)
                .operationTimeout(Duration.ofSeconds(1)).build();
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        await(c.leave("api", "a"));
        assertThat(reports.containsKey("api")).as("the last leave removes the entry").isFalse();
        // A heartbeat the node had given up on, landing after its leave: the entry has no map TTL.
        await(c.heartbeat("api", report("a", "a1", 5, clock), TTL));
        time.advance(Duration.ofMillis(2_999)); // the operation timeout and the TTL, less 1 ms
        assertThat(reports.containsKey("api")).as("not pruned yet").isTrue();
        time.advance(Duration.ofMillis(1));
        Until.met("the late report pruned and the entry removed", Duration.ofSeconds(10),
                () -> !reports.containsKey("api"));
    }

    @Test
    void unreadableValuesAreSkippedNeverFatal() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = coordinator(prefix, clock);
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        reports.put("garbage", "not json at all");
        assertThat(await(c.heartbeat("garbage", report("a", "a1", 5, clock), TTL))).extracting(NodeReport::nodeId)
                .containsExactly("a");
        String good = reports.get("garbage");
        reports.put("garbage", good.substring(0, good.length() - 1) + ",{\"nodeId\":\"x\",\"expiresAt\":\"soon\"},"
                + "{\"nodeId\":\"y\",\"incarnation\":\"y1\",\"localLimit\":0,\"inflight\":0,\"claim\":0,"
                + "\"reportedAt\":\"2030-01-01T00:00:00Z\",\"expiresAt\":" + (EPOCH.toEpochMilli() + 60_000) + "}]");
        assertThat(await(c.heartbeat("garbage", report("b", "b1", 5, clock), TTL))).as("x and y do not read as reports")
                .extracting(NodeReport::nodeId).containsExactly("a", "b");
        hz.<String, String>getMap(prefix + "pauses").put("api", "{\"origin\":");
        CompletableFuture<FleetPause> heard = new CompletableFuture<>();
        c.subscribePauses("api", heard::complete);
        FleetPause pause = new FleetPause("n", clock.instant().plusSeconds(30));
        await(c.publishPause("api", pause));
        assertThat(await(heard)).as("an unreadable stored pause is replaced").isEqualTo(pause);
    }

    /**
     * A node of a later version, in a rolling upgrade, writes fields this one does not know, of
     * every JSON type: its report is read, and a heartbeat of this version keeps it as written;
     * its pause is heard by a subscriber that joins later, and an earlier pause does not replace it.
     */
    @Test
    void valuesWithFieldsOfALaterVersionAreReadAndKeptAsWritten() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = coordinator(prefix, clock);
        String later = ",\"hint\":\"x\",\"weight\":0.5,\"drained\":false,\"zone\":null,"
                + "\"limits\":{\"min\":1,\"max\":[2,3]},\"history\":[true,{\"at\":-1e3}]";
        String newer = "{\"nodeId\":\"n\",\"incarnation\":\"n2\",\"localLimit\":4,\"inflight\":1,\"claim\":2,"
                + "\"reportedAt\":\"2030-01-01T00:00:00Z\",\"expiresAt\":" + (EPOCH.toEpochMilli() + 60_000) + later + "}";
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        reports.put("api", "[" + newer + "]");
        assertThat(await(c.heartbeat("api", report("a", "a1", 5, clock), TTL)))
                .containsExactly(report("a", "a1", 5, clock), new NodeReport("n", "n2", 4, 1, 2, EPOCH));
        assertThat(reports.get("api")).as("the later node's report, as it wrote it").contains(newer);

        FleetPause stored = new FleetPause("n", EPOCH.plusSeconds(30));
        hz.<String, String>getMap(prefix + "pauses").put("api",
                "{\"origin\":\"n\",\"until\":\"2030-01-01T00:00:30Z\"" + later + "}");
        await(c.publishPause("api", new FleetPause("a", EPOCH.plusSeconds(10))));
        CompletableFuture<FleetPause> heard = new CompletableFuture<>();
        c.subscribePauses("api", heard::complete);
        assertThat(await(heard)).isEqualTo(stored);
    }

    @Test
    void theLastLeaveRemovesTheStoredEntry() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = coordinator(prefix, clock);
        await(c.heartbeat("api", report("dup", "first", 3, clock), TTL));
        await(c.heartbeat("api", report("x", "x1", 2, clock), TTL));
        await(c.leave("api", "dup"));
        await(c.leave("api", "x"));
        assertThat(hz.getMap(prefix + "reports").containsKey("api")).as("the last leave removes the entry").isFalse();
        await(c.leave("api", "nobody"));
    }

    @Test
    void aLateHeartbeatOfOneWriterNeverReplacesItsLaterReport() {
        // A heartbeat the caller timed out on may still land after the next one.
        long now = EPOCH.toEpochMilli();
        NodeReport older = new NodeReport("a", "a1", 5, 0, 0, EPOCH);
        NodeReport newer = new NodeReport("a", "a1", 5, 3, 3, EPOCH);
        HeartbeatProcessor second = new HeartbeatProcessor(ReportCodec.encode(newer, now + 2_000, "w", 2),
                "a", "a1", "w", 2, now);
        HeartbeatProcessor first = new HeartbeatProcessor(ReportCodec.encode(older, now + 2_000, "w", 1),
                "a", "a1", "w", 1, now);
        Map.Entry<String, String> entry = new AbstractMap.SimpleEntry<>("api", null);
        second.process(entry);
        String returned = first.process(entry);
        assertThat(ReportCodec.live(returned, now)).containsExactly(newer);
        assertThat(ReportCodec.live(entry.getValue(), now)).containsExactly(newer);
        HeartbeatProcessor otherWriter = new HeartbeatProcessor(ReportCodec.encode(older, now + 2_000, "v", 1),
                "a", "a1", "v", 1, now);
        otherWriter.process(entry);
        assertThat(ReportCodec.live(entry.getValue(), now)).as("another writer's report replaces it").containsExactly(older);
    }

    /**
     * Hazelcast goes on with an operation the coordinator gave up on: a leave that timed out
     * still lands, later. If the node has come back meanwhile (a new incarnation of the same id,
     * through the same coordinator: a Camel context stopped and started again), the leave must
     * not take the new incarnation's report with it: the others would no longer see its claim
     * and could raise into its room while it admits its share. Here the leave waits for a lock
     * the test thread holds, which lets the test thread's own heartbeat through; the leave lands
     * when it is unlocked.
     */
    @Test
    void aLeaveThatLandsAfterTheNodeCameBackLeavesItsNewReport() throws Exception {
        Clock clock = Clock.fixed(EPOCH, java.time.ZoneOffset.UTC);
        Duration ttl = Duration.ofSeconds(60); // nothing expires during the test
        String prefix = prefix();
        HazelcastCoordinator c = HazelcastCoordinator.builder(hz).prefix(prefix).clock(clock)
                .operationTimeout(Duration.ofSeconds(1)).build();
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        await(c.heartbeat("api", report("a", "a1", 5, clock), ttl));
        reports.lock("api");
        try {
            CompletableFuture<Void> leave = CompletableFuture.supplyAsync(() -> c.leave("api", "a"))
                    .thenCompose(stage -> stage).toCompletableFuture();
            assertThatThrownBy(() -> leave.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class)
                    .hasMessageContaining("leave on key 'api' not answered within PT1S");
            // The node is back, a new incarnation; the lock holder's write is not held up.
            assertThat(await(c.heartbeat("api", report("a", "a2", 5, clock), ttl)))
                    .extracting(NodeReport::incarnation).containsExactlyInAnyOrder("a1", "a2");
        } finally {
            reports.unlock("api");
        }
        Until.met("the leave given up on landed (the old incarnation's report gone)", Duration.ofSeconds(30),
                () -> reports.get("api") == null || !reports.get("api").contains("\"incarnation\":\"a1\""));
        assertThat(ReportCodec.live(reports.get("api"), EPOCH.toEpochMilli()))
                .as("the report written after the leave").extracting(NodeReport::incarnation).containsExactly("a2");
    }

    /** The rule of a late leave, on the processor alone, and a leave of an earlier version (no writer). */
    @Test
    void aLeaveRemovesTheNodesReportsButNotALaterOneOfItsOwnWriter() {
        long now = EPOCH.toEpochMilli();
        NodeReport a = new NodeReport("a", "a2", 5, 0, EPOCH);
        java.util.function.Function<LeaveProcessor, List<NodeReport>> after = leave -> {
            Map.Entry<String, String> entry = new AbstractMap.SimpleEntry<>("api",
                    FleetJson.array(List.of(ReportCodec.encode(a, now + 60_000, "w", 5))));
            leave.process(entry);
            return entry.getValue() == null ? List.of() : ReportCodec.live(entry.getValue(), now);
        };
        assertThat(after.apply(new LeaveProcessor("a", "w", 4, now))).as("written after the leave").containsExactly(a);
        assertThat(after.apply(new LeaveProcessor("a", "w", 6, now))).as("written before the leave").isEmpty();
        assertThat(after.apply(new LeaveProcessor("a", "v", 9, now))).as("another writer's leave").isEmpty();
        assertThat(after.apply(new LeaveProcessor("a", null, 0, now))).as("an earlier version's leave").isEmpty();
        assertThat(after.apply(new LeaveProcessor(null, null, 0, now))).as("a prune keeps the live").containsExactly(a);
    }

    @Test
    void anOperationHazelcastDoesNotAnswerFailsWithinTheOperationTimeout() throws Exception {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = HazelcastCoordinator.builder(hz).prefix(prefix).clock(clock)
                .operationTimeout(Duration.ofMillis(300)).build();
        IMap<String, String> reports = hz.getMap(prefix + "reports");
        // An entry processor on a key locked by another thread waits for the lock.
        CompletableFuture.runAsync(() -> reports.lock("api")).get(10, TimeUnit.SECONDS);
        try {
            CompletableFuture<List<NodeReport>> stage = c.heartbeat("api", report("a", "a1", 5, clock), TTL)
                    .toCompletableFuture();
            assertThatThrownBy(() -> stage.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class)
                    .hasMessageContaining("heartbeat on key 'api' not answered within PT0.3S");
        } finally {
            reports.forceUnlock("api");
        }
        assertThat(await(c.heartbeat("api", report("a", "a1", 5, clock), TTL))).hasSize(1);
    }

    /**
     * The scheduler is user code: a timeout timer whose cancel throws, or a prune after a leave
     * that it refuses, must not hang or fail an operation Hazelcast answered.
     */
    @Test
    void anAnsweredOperationCompletesWhateverTheSchedulerThrows() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        long timeoutNanos = HazelcastCoordinator.DEFAULT_OPERATION_TIMEOUT.toNanos();
        Scheduler broken = (task, delayNanos) -> {
            if (delayNanos > timeoutNanos) {
                // Not an operation's timeout: the prune a leave arms for later.
                throw new java.util.concurrent.RejectedExecutionException("scheduler shut down");
            }
            time.schedule(task, delayNanos);
            return () -> {
                throw new AssertionError("cancel broke");
            };
        };
        HazelcastCoordinator c = HazelcastCoordinator.builder(hz).prefix(prefix()).clock(clock).scheduler(broken).build();
        CompletableFuture<List<NodeReport>> beat = c.heartbeat("api", report("a", "a1", 5, clock), TTL).toCompletableFuture();
        assertThat(beat).as("a heartbeat whose timeout timer's cancel throws").succeedsWithin(Duration.ofSeconds(10))
                .asList().hasSize(1);
        CompletableFuture<Void> published = c.publishPause("api", new FleetPause("a", clock.instant().plusSeconds(30)))
                .toCompletableFuture();
        assertThat(published).as("a publication whose timeout timer's cancel throws").succeedsWithin(Duration.ofSeconds(10));
        // The leave's own timeout timer is armed (its cancel throws); the prune after it is refused.
        CompletableFuture<Void> left = new CompletableFuture<>();
        c.leave("api", "a").whenComplete((v, e) -> {
            if (e != null) {
                left.completeExceptionally(e);
            } else {
                left.complete(v);
            }
        });
        assertThat(left).as("a leave whose prune the scheduler refuses").succeedsWithin(Duration.ofSeconds(10));
        assertThat(time.uncaught()).isEmpty();
    }

    /**
     * A scheduler that refuses (a shut-down executor) leaves no timeout for an operation: the
     * operation is then not sent, and its stage fails with the refusal instead of the call
     * throwing after Hazelcast already took the write (which could land while the caller counted
     * it failed).
     */
    @Test
    void anOperationWhoseTimeoutTheSchedulerRefusesIsNotSentAndFailsItsStage() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        java.util.concurrent.atomic.AtomicBoolean refusing = new java.util.concurrent.atomic.AtomicBoolean();
        Scheduler shutsDown = (task, delayNanos) -> {
            if (refusing.get()) {
                throw new java.util.concurrent.RejectedExecutionException("scheduler shut down");
            }
            return time.schedule(task, delayNanos);
        };
        HazelcastCoordinator c = HazelcastCoordinator.builder(hz).prefix(prefix).clock(clock).scheduler(shutsDown).build();
        assertThat(await(c.heartbeat("api", report("a", "a1", 5, clock), TTL))).hasSize(1);
        refusing.set(true);
        CompletionStage<List<NodeReport>> beat = c.heartbeat("api", report("b", "b1", 5, clock), TTL);
        assertThat(beat.toCompletableFuture()).as("a heartbeat whose timer is refused").failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        CompletionStage<Void> published = c.publishPause("api", new FleetPause("b", clock.instant().plusSeconds(30)));
        assertThat(published.toCompletableFuture()).as("a publication whose timer is refused").failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        CompletionStage<Void> left = c.leave("api", "a");
        assertThat(left.toCompletableFuture()).as("a leave whose timer is refused").failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
        // What the stages said is what Hazelcast did: none of the three reached the store.
        assertThat(hz.getMap(prefix + "pauses").containsKey("api")).as("the refused pause stored").isFalse();
        refusing.set(false);
        assertThat(await(c.heartbeat("api", report("a", "a1", 5, clock), TTL)))
                .as("the refused heartbeat's report absent, the refused leave's leaver still there")
                .extracting(NodeReport::nodeId).containsExactly("a");
        assertThat(time.uncaught()).isEmpty();
    }

    /**
     * An instance that stops between the subscription's listener registration and the read that
     * follows it: with a direct executor the read's failure went out of {@code subscribePauses}.
     * The stop is forced at that point by a map that terminates the member once it has added the
     * listener.
     */
    @Test
    void anInstanceThatStopsBetweenTheRegistrationAndTheReadThrowsNothingToTheSubscriber() throws Exception {
        try (TestCluster alone = TestCluster.start(1)) {
            HazelcastInstance member = alone.member(0);
            IMap<?, ?> realPauses = member.getMap("stops.pauses");
            IMap<?, ?> stopsAfterAdding = (IMap<?, ?>) java.lang.reflect.Proxy.newProxyInstance(IMap.class.getClassLoader(),
                    new Class<?>[]{IMap.class}, (proxy, method, args) -> {
                        Object result = invoke(realPauses, method, args);
                        if (method.getName().equals("addEntryListener")) {
                            member.getLifecycleService().terminate();
                        }
                        return result;
                    });
            HazelcastInstance instance = (HazelcastInstance) java.lang.reflect.Proxy.newProxyInstance(
                    HazelcastInstance.class.getClassLoader(), new Class<?>[]{HazelcastInstance.class}, (proxy, method, args) ->
                            method.getName().equals("getMap") && "stops.pauses".equals(args[0])
                                    ? stopsAfterAdding : invoke(member, method, args));
            HazelcastCoordinator c = HazelcastCoordinator.builder(instance).prefix("stops.").checkMapConfiguration(false)
                    .executor(Runnable::run).build();
            AutoCloseable sub = c.subscribePauses("api", p -> { });
            assertThat(member.getLifecycleService().isRunning()).as("the member stopped after the registration").isFalse();
            assertThat(c.subscriptionFailures()).as("the failed read counted").isGreaterThanOrEqualTo(1);
            sub.close();
        }
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Test
    void aListenerThatThrowsAnythingIsCountedAndTheOthersStillHear() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        HazelcastCoordinator c = coordinator(prefix(), clock);
        CompletableFuture<FleetPause> threw = new CompletableFuture<>();
        c.subscribePauses("api", p -> {
            threw.complete(p);
            throw new StackOverflowError("a listener's own failure");
        });
        CompletableFuture<FleetPause> heard = new CompletableFuture<>();
        c.subscribePauses("api", heard::complete);
        FleetPause pause = new FleetPause("n1", clock.instant().plusSeconds(30));
        await(c.publishPause("api", pause));
        assertThat(await(heard)).isEqualTo(pause);
        await(threw);
        Until.met("the failure counted", Duration.ofSeconds(10), () -> c.listenerFailures() >= 1);
    }

    @Test
    void aPauseAlreadyOverIsNotStored() {
        VirtualTime time = new VirtualTime();
        Clock clock = time.clock(EPOCH);
        String prefix = prefix();
        HazelcastCoordinator c = coordinator(prefix, clock);
        await(c.publishPause("api", new FleetPause("n1", clock.instant().minusSeconds(1))));
        await(c.publishPause("api", new FleetPause("n1", clock.instant())));
        assertThat(hz.getMap(prefix + "pauses").containsKey("api")).isFalse();
    }

    @Test
    void badArgumentsAreRejectedNamingTheOption() {
        assertThatThrownBy(() -> HazelcastCoordinator.builder(hz).operationTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> HazelcastCoordinator.builder(hz).operationTimeout(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> HazelcastCoordinator.builder(hz).prefix(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefix");
        HazelcastCoordinator c = HazelcastCoordinator.create(hz);
        assertThat(c.reportsMapName()).isEqualTo("adaptive.fleet.reports");
        assertThat(c.pausesMapName()).isEqualTo("adaptive.fleet.pauses");
        assertThat(c.operationTimeout()).isEqualTo(HazelcastCoordinator.DEFAULT_OPERATION_TIMEOUT);
        assertThatThrownBy(() -> c.heartbeat("k", new NodeReport("a", "i", 1, 0, EPOCH), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ttl");
    }

    @Test
    void aStoppedInstanceFailsTheStageInsteadOfThrowing() throws Exception {
        try (TestCluster alone = TestCluster.start(1)) {
            HazelcastCoordinator c = HazelcastCoordinator.create(alone.member(0));
            alone.terminate(0);
            CompletableFuture<List<NodeReport>> stage = c.heartbeat("api",
                    new NodeReport("a", "a1", 1, 0, EPOCH), TTL).toCompletableFuture();
            assertThatThrownBy(() -> stage.get(10, TimeUnit.SECONDS)).isInstanceOf(java.util.concurrent.ExecutionException.class);
            assertThat(c.leave("api", "a").toCompletableFuture()).failsWithin(Duration.ofSeconds(10));
            AutoCloseable sub = c.subscribePauses("api", p -> { });
            Until.met("the registration failure counted", Duration.ofSeconds(10), () -> c.subscriptionFailures() >= 1);
            sub.close();
        }
    }
}
