package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.fleet.FleetMember;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CI smoke test of the fleet benchmark: a short S2 (120 items) shared by three clients, through
 * every fleet policy, in virtual time. Sanity, not performance: every item of every client ends
 * once, the server is idle afterwards, a coordinated fleet never sends into an announced window
 * and never admits above its ceiling, and a run is reproducible from its seed (Netflix's Vegas
 * aside: it draws from an unseeded random).
 */
class FleetSimulationSmokeTest {

    private static final Scenario SHORT = Scenario.S2.withItems(120);
    private static final List<FleetPolicy> POLICIES = List.of(FleetPolicy.fixedTotal(12), FleetPolicy.independent(),
            FleetPolicy.coordinated(FleetMember.DEFAULT_HEARTBEAT), FleetPolicy.coordinated(Duration.ofMillis(200)),
            FleetPolicy.learning(FleetMember.DEFAULT_HEARTBEAT), FleetPolicy.netflixVegas());

    @Test
    void everyItemOfEveryClientEndsAndTheServerIsIdleAfterwards() {
        for (FleetPolicy p : POLICIES) {
            FleetRunResult r = FleetRun.run(p, SHORT, 3, 1);
            assertThat(r.fleet().ok() + r.fleet().failed()).as(p.name()).isEqualTo(SHORT.items());
            assertThat(r.fleet().unfinished()).as(p.name()).isZero();
            assertThat(r.fleet().server().inflight()).as(p.name()).isZero();
            assertThat(r.fleet().server().arrivals()).as(p.name()).isGreaterThanOrEqualTo(SHORT.items());
            assertThat(r.meanCeiling()).as(p.name()).isPositive();
            assertThat(r.lastFirstMillis()).as(p.name()).isFinite();
            if (p.family().equals("coordinated")) {
                assertThat(r.fleet().server().arrivalsDuringRetryAfter()).as(p.name()).isZero();
                assertThat(r.overCeiling()).as(p.name()).isZero();
            }
        }
    }

    @Test
    void aFleetRunIsReproducibleFromItsSeed() {
        for (FleetPolicy p : POLICIES) {
            if (p.family().equals("netflix")) {
                continue; // its VegasLimit draws probe jitter from ThreadLocalRandom, which cannot be seeded
            }
            FleetRunResult a = FleetRun.run(p, SHORT, 3, 7);
            FleetRunResult b = FleetRun.run(p, SHORT, 3, 7);
            assertThat(b).as(p.name()).isEqualTo(a);
        }
    }
}
