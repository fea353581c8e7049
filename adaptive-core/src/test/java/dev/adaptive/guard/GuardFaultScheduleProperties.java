package dev.adaptive.guard;

import dev.adaptive.HostileOptions;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ConcurrencyGuard under random arrivals and a random fault schedule in virtual time: latency
 * spikes, bursts of drops, requests whose handler releases twice, releases a rejected lease,
 * releases from a "late callback" long after, or ignores the outcome, with or without
 * recalibration probes. After each run: every admitted request released exactly once counted,
 * in-flight 0, {@code admitted + shed} = acquisitions, and the limit within [min, max] at every
 * admission; nobody was admitted beyond the limit. The limit is the guard's {@code limit()}: during
 * a probe, {@code probeLimit} plus the requests admitted before it still in flight, at most the
 * limit before it. During a probe, the requests admitted since it began never exceed
 * {@code probeLimit} in flight, and the limit never grows.
 */
class GuardFaultScheduleProperties {

    @Test
    void everyAdmittedRequestEndsOnceAndTheLimitHolds() {
        Property.forAll(100, Gen.longs(), GuardFaultScheduleProperties::check);
    }

    /** Seeds kept as regression cases. */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {0L, 5L, -8L, Long.MIN_VALUE}) {
            check(seed);
        }
    }

    @Test
    void hostileOptions() {
        assertThat(HostileOptions.violations(GuardGradient::builder, GuardGradient.Builder::build)).isEmpty();
        assertThat(HostileOptions.violations(Recalibration::builder, Recalibration.Builder::build)).isEmpty();
    }

    private static void check(long seed) {
        Random rnd = new Random(seed);
        VirtualTime time = new VirtualTime();
        int min = 1 + rnd.nextInt(8);
        int max = min + rnd.nextInt(60);
        GuardGradient.Builder gb = GuardGradient.builder().minLimit(min).maxLimit(max)
                .initialLimit(min + rnd.nextInt(max - min + 1)).rttWindow(1 + rnd.nextInt(200))
                .smoothing(0.05 + rnd.nextDouble() * 0.95).tolerance(1 + rnd.nextDouble() * 3)
                .backoffRatio(0.5 + rnd.nextDouble() * 0.49);
        if (rnd.nextBoolean()) {
            gb.recalibration(Recalibration.builder().interval(Duration.ofMillis(100 + rnd.nextInt(5000)))
                    .probeSamples(1 + rnd.nextInt(6)).build());
        }
        GuardGradient gradient = gb.build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder().limit(gradient).time(time).build();
        long phaseLength = Duration.ofMillis(200 + rnd.nextInt(2000)).toNanos();
        int phases = 1 + rnd.nextInt(6);
        int[] kinds = new int[phases];
        for (int i = 0; i < phases; i++) {
            kinds[i] = rnd.nextInt(4); // 0 healthy, 1 latency spike, 2 drop burst, 3 hostile handlers
        }

        int requests = 200 + rnd.nextInt(2000);
        int[] firstReleases = new int[1];
        List<GuardLease> admitted = new ArrayList<>();
        int[] acquisitions = new int[1];
        // Counted here, apart from the guard: the requests admitted during each probe (by the
        // probes completed before it) and not yet released, and the limit last seen in it.
        Map<Long, List<GuardLease>> probeRequests = new HashMap<>();
        long[] lastProbe = {-1};
        int[] lastProbeLimit = {0};
        for (int i = 0; i < requests; i++) {
            time.schedule(() -> {
                acquisitions[0]++;
                GuardGradient.State state = guard.state();
                int limitBefore = guard.limit();
                int inflightBefore = guard.inflight();
                if (state.probing()) {
                    if (lastProbe[0] == state.probes()) {
                        assertThat(limitBefore).as("a probe's limit never grows")
                                .isLessThanOrEqualTo(lastProbeLimit[0]);
                    }
                    lastProbe[0] = state.probes();
                    lastProbeLimit[0] = limitBefore;
                }
                GuardLease lease = guard.acquire();
                assertThat(guard.limit()).isBetween(min, max);
                if (!lease.admitted()) {
                    assertThat(inflightBefore).as("shed only when full").isGreaterThanOrEqualTo(limitBefore);
                    assertThat(lease.release()).as("releasing a rejected lease counts nothing").isFalse();
                    return;
                }
                assertThat(guard.inflight()).as("admitted within the limit").isLessThanOrEqualTo(Math.max(limitBefore, guard.limit()));
                if (state.probing()) {
                    List<GuardLease> since = probeRequests.computeIfAbsent(state.probes(), k -> new ArrayList<>());
                    since.removeIf(GuardLease::isReleased);
                    since.add(lease);
                    assertThat(since.size()).as("a probe's own requests within probeLimit")
                            .isLessThanOrEqualTo(gradient.probeLimit());
                }
                admitted.add(lease);
                int phase = (int) Math.min(phases - 1, time.nanoTime() / phaseLength);
                int kind = kinds[phase];
                long latency = kind == 1 ? 100 + rnd.nextInt(2000) : 1 + rnd.nextInt(20);
                time.schedule(() -> {
                    boolean first = switch (kind) {
                        case 2 -> lease.release(rnd.nextInt(3) > 0);
                        case 3 -> switch (rnd.nextInt(4)) {
                            case 0 -> lease.releaseIgnored();
                            case 1 -> lease.release() | lease.release(true); // twice
                            default -> {
                                boolean r = lease.release();
                                lease.close(); // try-with-resources after an explicit release
                                yield r;
                            }
                        };
                        default -> lease.release();
                    };
                    if (first) {
                        firstReleases[0]++;
                    }
                    if (kind == 3 && rnd.nextBoolean()) {
                        // A late callback on the same lease, much later: must count nothing.
                        time.schedule(() -> assertThat(lease.release(true)).isFalse(), Duration.ofSeconds(5));
                    }
                }, Duration.ofMillis(latency));
            }, Duration.ofNanos((long) (rnd.nextDouble() * phases * phaseLength)));
        }
        time.runUntilIdle();

        assertThat(time.uncaught()).isEmpty();
        GuardStats s = guard.stats();
        assertThat(guard.inflight()).isZero();
        assertThat(s.admitted() + s.shed()).isEqualTo(acquisitions[0]).isEqualTo(requests);
        assertThat(s.admitted()).isEqualTo(admitted.size());
        assertThat(firstReleases[0]).as("each admitted lease released exactly once").isEqualTo(admitted.size());
        assertThat(admitted).allMatch(GuardLease::isReleased);
        assertThat(guard.limit()).isBetween(min, max);
    }
}
