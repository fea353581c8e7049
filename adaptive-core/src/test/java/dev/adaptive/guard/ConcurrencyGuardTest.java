package dev.adaptive.guard;

import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ConcurrencyGuardTest {

    private final VirtualTime time = new VirtualTime();

    @AfterEach
    void noTaskFailed() {
        assertThat(time.uncaught()).isEmpty();
    }

    private ConcurrencyGuard guard() {
        return ConcurrencyGuard.builder().time(time).build();
    }

    @Test
    void shedsAtTheCeilingAndAdmitsAgainWhenASlotFrees() {
        ConcurrencyGuard guard = guard();
        assertThat(guard.limit()).isEqualTo(4);
        List<GuardLease> leases = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            GuardLease lease = guard.acquire();
            assertThat(lease.admitted()).isTrue();
            leases.add(lease);
        }
        GuardLease rejected = guard.acquire();
        assertThat(rejected.admitted()).isFalse();
        assertThat(guard.inflight()).isEqualTo(4);
        assertThat(rejected.release()).isFalse();
        assertThat(rejected.release(true)).isFalse();
        assertThat(guard.inflight()).isEqualTo(4);
        time.advance(Duration.ofMillis(10));
        assertThat(leases.get(0).release()).isTrue();
        assertThat(leases.get(0).release()).isFalse();
        assertThat(leases.get(0).release(true)).isFalse();
        assertThat(guard.inflight()).isEqualTo(3);
        assertThat(guard.acquire().admitted()).isTrue();
        assertThat(guard.acquire().admitted()).isFalse();
        GuardStats stats = guard.stats();
        assertThat(stats.limit()).isEqualTo(4);
        assertThat(stats.inflight()).isEqualTo(4);
        assertThat(stats.admitted()).isEqualTo(5);
        assertThat(stats.shed()).isEqualTo(2);
    }

    @Test
    void aRunOfFailedHandlersDoesNotHoldTheGuardToProbes() {
        // Four slots, every handler failing: a limiter with the outage rule would admit one
        // probe per interval and shed the rest; a guard keeps admitting up to its limit.
        ConcurrencyGuard guard = guard();
        for (int round = 0; round < 5; round++) {
            List<GuardLease> leases = IntStream.range(0, guard.limit()).mapToObj(i -> guard.acquire()).toList();
            assertThat(leases).allSatisfy(l -> assertThat(l.admitted()).isTrue());
            time.advance(Duration.ofMillis(10));
            leases.forEach(l -> l.release(true));
        }
        assertThat(guard.limiter().isOutage()).isFalse();
        assertThat(guard.acquire().admitted()).isTrue();
    }

    @Test
    void latencyRunsFromAcquireToTheFirstRelease() {
        ConcurrencyGuard guard = guard();
        assertThat(guard.stats().rttNoLoad()).isZero();
        assertThat(guard.stats().lastRtt()).isZero();
        try (GuardLease lease = guard.acquire()) {
            assertThat(lease.admitted()).isTrue();
            time.advance(Duration.ofMillis(25));
        }
        time.advance(Duration.ofMillis(100));
        assertThat(guard.stats().lastRtt()).isEqualTo(Duration.ofMillis(25));
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(25));
        assertThat(guard.inflight()).isZero();
    }

    @Test
    void aReleaseFromAnotherThreadAfterTheRequestEndedCountsOnce() throws Exception {
        ConcurrencyGuard guard = guard();
        GuardLease lease = guard.acquire();
        List<Boolean> results = new ArrayList<>();
        Thread[] threads = new Thread[4];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                boolean r = lease.release();
                synchronized (results) {
                    results.add(r);
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(results).containsOnlyOnce(true).hasSize(4);
        assertThat(lease.isReleased()).isTrue();
        assertThat(guard.inflight()).isZero();
    }

    @Test
    void underOverloadTheGuardShedsAndKeepsLatencyNearTheTolerance() {
        ConcurrencyGuard guard = guard();
        // Capacity 20 at 10 ms serves 2 requests per ms whatever the queue; 10 per ms are offered.
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 20);
        server.load(Duration.ofNanos(100_000), Duration.ofSeconds(30));
        time.advance(Duration.ofSeconds(10));
        server.resetCounters();
        time.advance(Duration.ofSeconds(20));
        assertThat(guard.limit()).isBetween(30, 60);
        assertThat(server.shed).isGreaterThan(server.served);
        // Past the warm-up no admitted request waits much beyond tolerance x base.
        assertThat(Duration.ofNanos(server.maxLatencyNanos)).isLessThanOrEqualTo(Duration.ofMillis(30));
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
    }

    @Test
    void sustainedOverloadDoesNotLetTheBaselineCreepUpWithTheQueue() {
        ConcurrencyGuard guard = guard();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 20);
        server.load(Duration.ofNanos(100_000), Duration.ofSeconds(120));
        time.advance(Duration.ofSeconds(10));
        for (int minute = 0; minute < 4; minute++) {
            server.resetCounters();
            time.advance(Duration.ofSeconds(25));
            // Were RTTs near the limit let into the rolling minimum, the baseline would follow the
            // queue up and the limit would reach 512 with 256 ms latencies within a minute.
            // Figures for docs/core-guard-fleet.md (surefire keeps them in the test's output file).
            System.out.printf("overload t=%s limit=%d maxLatency=%.1fms served=%d shed=%d rttNoLoad=%s%n",
                    time.elapsed(), guard.limit(), server.maxLatencyNanos / 1e6, server.served, server.shed,
                    guard.stats().rttNoLoad());
            assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
            assertThat(guard.limit()).isBetween(30, 60);
            assertThat(Duration.ofNanos(server.maxLatencyNanos)).isLessThanOrEqualTo(Duration.ofMillis(30));
        }
    }

    @Test
    void anIdleGuardDoesNotGrowItsLimit() {
        ConcurrencyGuard guard = guard();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 1000);
        // One request at a time: 1 in flight never shows a need for more than the minimum.
        server.load(Duration.ofMillis(11), Duration.ofSeconds(10));
        time.advance(Duration.ofSeconds(11));
        assertThat(guard.limit()).isEqualTo(4);
        assertThat(server.shed).isZero();
    }

    @Test
    void aDroppedReleaseDecreasesTheLimitMoreThanASlowSuccess() {
        GuardGradient limit = GuardGradient.builder().initialLimit(100).build();
        ConcurrencyGuard dropping = ConcurrencyGuard.builder().limit(limit).time(time).build();
        ConcurrencyGuard slow = ConcurrencyGuard.builder().limit(limit).time(time).build();
        List<GuardLease> a = new ArrayList<>();
        List<GuardLease> b = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            a.add(dropping.acquire());
            b.add(slow.acquire());
        }
        time.advance(Duration.ofMillis(10));
        a.get(0).release();
        b.get(0).release();
        time.advance(Duration.ofMillis(990)); // 1 s: a hundred times the baseline
        a.get(1).release(true);
        b.get(1).release();
        // The first success was admitted with 1 in flight: too idle to grow, the estimate stays 100.
        // Slowest success: 100 * 0.8 + (100 * 0.5 + sqrt(100)) * 0.2 = 92. Drop: 100 * 0.9 = 90.
        assertThat(slow.state().estimate()).isCloseTo(92, within(1e-9));
        assertThat(dropping.state().estimate()).isCloseTo(90, within(1e-9));
        assertThat(dropping.limit()).isLessThan(slow.limit());
    }

    @Test
    void withoutRecalibrationTheRollingMinimumLetsTheBaselineRiseAfterALoadShift() {
        ConcurrencyGuard guard = guard();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 1000);
        server.load(Duration.ofMillis(1), Duration.ofSeconds(40));
        time.advance(Duration.ofSeconds(20));
        int before = guard.limit();
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        server.base = Duration.ofMillis(40);
        time.advance(Duration.ofSeconds(20));
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(40));
        // 40 ms at 1 request per ms: 40 in flight are needed, and the limit found room for them.
        assertThat(guard.limit()).isGreaterThan(before).isGreaterThanOrEqualTo(40);
    }

    @Test
    void underSaturatingLoadOnlyRecalibrationSeesABackendThreeTimesSlower() {
        // docs/core-guard-fleet.md: a full guard has no quiet sample, so a 3x shift holds the
        // limit at 1 / (1 - 2/3)^2 = 9 and the old baseline; a probe measures the new one.
        ConcurrencyGuard plain = guard();
        ConcurrencyGuard recalibrating = ConcurrencyGuard.builder().time(time).limit(GuardGradient.builder()
                .recalibration(Recalibration.builder().jitter(0).seed(1).build()).build()).build();
        ServerSim a = new ServerSim(time, plain, Duration.ofMillis(10), 1000);
        ServerSim b = new ServerSim(time, recalibrating, Duration.ofMillis(10), 1000);
        a.load(Duration.ofMillis(1), Duration.ofSeconds(200));
        b.load(Duration.ofMillis(1), Duration.ofSeconds(200));
        time.advance(Duration.ofSeconds(20));
        a.base = Duration.ofMillis(30);
        b.base = Duration.ofMillis(30);
        time.advance(Duration.ofSeconds(30));
        assertThat(plain.limit()).isEqualTo(9);
        assertThat(recalibrating.limit()).isEqualTo(9);
        time.advance(Duration.ofSeconds(20)); // past the probe due at 60 s
        a.resetCounters();
        b.resetCounters();
        time.advance(Duration.ofSeconds(100));
        assertThat(plain.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        assertThat(plain.limit()).isEqualTo(9);
        assertThat(a.shed).isGreaterThan(2 * a.served); // 9 in flight at 30 ms serve 0.3 of 1 per ms
        assertThat(recalibrating.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(30));
        assertThat(recalibrating.limit()).isGreaterThanOrEqualTo(30);
        assertThat(b.shed).isLessThan(b.served / 100); // the next probes' few
    }

    @Test
    void recalibrationAdoptsTheProbesRttAfterALoadShift() {
        Recalibration recal = Recalibration.builder().jitter(0).pinnedWindows(1_000_000).seed(1).build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder()
                .limit(GuardGradient.builder().recalibration(recal).build()).time(time).build();
        assertThat(guard.stats().probing()).isTrue(); // the first probe runs at startup
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 1000);
        server.load(Duration.ofMillis(1), Duration.ofSeconds(90));
        time.advance(Duration.ofSeconds(1));
        assertThat(guard.stats().recalibrations()).isEqualTo(1);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        time.advance(Duration.ofSeconds(29));
        assertThat(guard.limit()).isGreaterThan(4);
        server.base = Duration.ofMillis(40);
        time.advance(Duration.ofSeconds(20));
        // 40 ms against a 10 ms baseline held until the next probe: pinned at the minimum.
        assertThat(guard.limit()).isEqualTo(4);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        long nextProbe = guard.state().nextProbeNanos();
        assertThat(nextProbe).isBetween(Duration.ofSeconds(60).toNanos(), Duration.ofSeconds(61).toNanos());
        time.advance(Duration.ofSeconds(15));
        assertThat(guard.stats().recalibrations()).isEqualTo(2);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(40));
        time.advance(Duration.ofSeconds(15));
        assertThat(guard.limit()).isGreaterThanOrEqualTo(40);
    }

    @Test
    void aBaselinePinnedAtTheMinimumForcesARecalibrationLongBeforeTheInterval() {
        Recalibration recal = Recalibration.builder().interval(Duration.ofHours(1)).seed(7).build();
        List<TraceEvent.ConcurrencyChange> changes = new ArrayList<>();
        ConcurrencyGuard guard = ConcurrencyGuard.builder()
                .limit(GuardGradient.builder().recalibration(recal).build()).time(time)
                .traceListener(e -> {
                    if (e instanceof TraceEvent.ConcurrencyChange c) {
                        changes.add(c);
                    }
                }).build();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 1000);
        server.load(Duration.ofMillis(1), Duration.ofSeconds(60));
        time.advance(Duration.ofSeconds(20));
        assertThat(guard.stats().recalibrations()).isEqualTo(1);
        server.base = Duration.ofMillis(40);
        time.advance(Duration.ofSeconds(2));
        assertThat(guard.limit()).isEqualTo(4);
        assertThat(guard.state().pinnedSamples()).isPositive();
        // 3 windows of 100 samples at ~100 samples per second pinned at 4: a forced probe.
        time.advance(Duration.ofSeconds(8));
        assertThat(guard.stats().recalibrations()).isEqualTo(2);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(40));
        time.advance(Duration.ofSeconds(10));
        assertThat(guard.limit()).isGreaterThanOrEqualTo(40);
        assertThat(time.elapsed()).isLessThan(recal.interval());
    }

    @Test
    void requestsAdmittedBeforeAProbeAreNotItsSamples() {
        Recalibration recal = Recalibration.builder().jitter(0).interval(Duration.ofSeconds(60)).seed(3).build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder()
                .limit(GuardGradient.builder().recalibration(recal).build()).time(time).build();
        for (int i = 0; i < 5; i++) {
            GuardLease lease = guard.acquire();
            time.advance(Duration.ofMillis(10));
            lease.release();
        }
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        assertThat(guard.stats().probing()).isFalse();
        time.advance(Duration.ofSeconds(59));
        List<GuardLease> old = List.of(guard.acquire(), guard.acquire(), guard.acquire());
        GuardLease trigger = guard.acquire();
        time.advance(Duration.ofSeconds(1));
        trigger.release(); // ends after the probe's due time: the probe starts
        assertThat(guard.stats().probing()).isTrue();
        assertThat(guard.limit()).isEqualTo(4);
        GuardLease fresh = guard.acquire();
        assertThat(fresh.admitted()).isTrue();
        assertThat(guard.acquire().admitted()).isFalse(); // drained to probeLimit 4, 3 old still out
        time.advance(Duration.ofMillis(30));
        old.forEach(GuardLease::release); // ~1 s each, admitted under the old regime: discarded
        fresh.release();
        assertThat(guard.stats().probing()).isTrue();
        for (int i = 0; i < 4; i++) {
            GuardLease lease = guard.acquire();
            time.advance(Duration.ofMillis(30));
            lease.release();
        }
        assertThat(guard.stats().probing()).isFalse();
        assertThat(guard.stats().recalibrations()).isEqualTo(2);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(30));
    }

    @Test
    void requestsHeldFromBeforeAProbeDoNotStallIt() {
        // Four requests that last (streams, long polls) admitted before a probe and held 80 s. A
        // probe bounds the requests admitted since it began: the four drain on their own, the
        // traffic goes on at the probe's limit, and the probe measures from that traffic.
        Recalibration recal = Recalibration.builder().jitter(0).pinnedWindows(1_000_000).seed(1).build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder()
                .limit(GuardGradient.builder().recalibration(recal).build()).time(time).build();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 1000);
        server.load(Duration.ofMillis(1), Duration.ofSeconds(150));
        time.advance(Duration.ofSeconds(50));
        assertThat(guard.stats().recalibrations()).isEqualTo(1);
        assertThat(guard.limit()).isGreaterThan(8);
        List<GuardLease> held = IntStream.range(0, 4).mapToObj(i -> guard.acquire()).toList();
        assertThat(held).allMatch(GuardLease::admitted);
        // The backend becomes slower for good: only a probe from the traffic after it sees that.
        server.base = Duration.ofMillis(20);
        long due = guard.state().nextProbeNanos();
        time.advance(Duration.ofNanos(due - time.nanoTime()));
        server.resetCounters();
        time.advance(Duration.ofSeconds(1));
        System.out.printf("held across a probe: first second served=%d shed=%d probing=%b recalibrations=%d"
                + " rttNoLoad=%s limit=%d%n", server.served, server.shed, guard.stats().probing(),
                guard.stats().recalibrations(), guard.stats().rttNoLoad(), guard.limit());
        assertThat(guard.stats().recalibrations()).as("the probe completed").isEqualTo(2);
        assertThat(guard.stats().rttNoLoad()).as("measured on requests admitted after it began")
                .isEqualTo(Duration.ofMillis(20));
        // 1000 arrivals; the probe sheds what it holds back for a few round trips of 20 ms.
        assertThat(server.served).isGreaterThan(900);
        time.advance(Duration.ofNanos(Duration.ofSeconds(130).toNanos() - time.nanoTime()));
        System.out.printf("held across a probe: until the release served=%d shed=%d%n", server.served, server.shed);
        assertThat(server.shed).isLessThan(server.served / 100);
        held.forEach(GuardLease::release);
        time.advance(Duration.ofSeconds(25));
        assertThat(guard.inflight()).isZero();
    }

    @Test
    void aProbeUnderOverloadMeasuresAtItsOwnConcurrency() {
        // A server that queues past 20 in flight, offered 10 requests per ms of 10 ms: the guard
        // runs near 40 in flight at 20 ms. As a probe begins, its first requests are admitted
        // beside the older ones still draining and take 20 ms too: not the baseline.
        Recalibration recal = Recalibration.builder().jitter(0).pinnedWindows(1_000_000).seed(1).build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder()
                .limit(GuardGradient.builder().recalibration(recal).build()).time(time).build();
        ServerSim server = new ServerSim(time, guard, Duration.ofMillis(10), 20);
        server.load(Duration.ofNanos(100_000), Duration.ofSeconds(70));
        time.advance(Duration.ofSeconds(50));
        assertThat(guard.limit()).isGreaterThan(20);
        long due = guard.state().nextProbeNanos();
        time.advance(Duration.ofNanos(due - time.nanoTime()));
        assertThat(guard.inflight()).isGreaterThan(20);
        server.resetCounters();
        time.advance(Duration.ofSeconds(1));
        assertThat(guard.stats().recalibrations()).isEqualTo(2);
        assertThat(guard.stats().rttNoLoad()).isEqualTo(Duration.ofMillis(10));
        assertThat(server.served).isGreaterThan(server.shed / 10); // the guard went on serving
    }
}
