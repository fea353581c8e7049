package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CI smoke test of the simulation: a short S2 (100 items, seed 1) through every family of
 * policies, in virtual time. It checks sanity, not performance: every item ends exactly once,
 * the server is idle afterwards, Adaptive never sends into an announced Retry-After window, and
 * a run is reproducible from its seed. The full runs live outside CI (docs/benchmarks.md).
 */
class SimulationSmokeTest {

    private static final Scenario SHORT = Scenario.S2.withItems(100);

    private static List<Policy> onePerFamily() {
        List<Policy> out = new ArrayList<>(Catalog.adaptive());
        out.add(AdaptivePolicy.fixed(12));
        out.addAll(NetflixPolicy.all());
        out.add(new Resilience4jPolicy(24));
        out.add(new FailsafePolicy(24));
        return out;
    }

    @Test
    void everyItemOfEveryPolicyEndsAndTheServerIsIdleAfterwards() {
        for (Policy p : onePerFamily()) {
            RunResult r = VirtualRunner.run(p, SHORT, 1);
            assertThat(r.ok() + r.failed()).as(p.name()).isEqualTo(SHORT.items());
            assertThat(r.unfinished()).as(p.name()).isZero();
            assertThat(r.server().inflight()).as(p.name()).isZero();
            assertThat(r.server().arrivals()).as(p.name()).isGreaterThanOrEqualTo(SHORT.items());
            assertThat(r.wallMillis()).as(p.name()).isPositive();
        }
    }

    @Test
    void adaptiveNeverArrivesDuringAnAnnouncedRetryAfter() {
        for (Policy p : Catalog.adaptive()) {
            RunResult r = VirtualRunner.run(p, SHORT, 1);
            assertThat(r.server().arrivalsDuringRetryAfter()).as(p.name()).isZero();
            assertThat(r.failed()).as(p.name()).isZero();
        }
        // Even a fixed concurrency far past the hard cap, which meets 429s all the time, waits them out.
        RunResult wall = VirtualRunner.run(AdaptivePolicy.fixed(40), SHORT, 1);
        assertThat(wall.server().tooMany()).isPositive();
        assertThat(wall.server().arrivalsDuringRetryAfter()).isZero();
    }

    @Test
    void perRequestRetryPeersDoArriveDuringRetryAfterPastTheCap() {
        RunResult r = VirtualRunner.run(new Resilience4jPolicy(40), SHORT, 1);
        assertThat(r.server().tooMany()).isPositive();
        assertThat(r.server().arrivalsDuringRetryAfter()).isPositive();
    }

    @Test
    void aRunIsReproducibleFromItsSeed() {
        // Netflix AIMD, not Vegas: VegasLimit draws its probe jitter from ThreadLocalRandom.
        for (Policy p : List.of(Catalog.adaptive().get(0), new FailsafePolicy(12), NetflixPolicy.all().get(2))) {
            assertThat(VirtualRunner.run(p, SHORT, 3)).as(p.name()).isEqualTo(VirtualRunner.run(p, SHORT, 3));
        }
    }
}
