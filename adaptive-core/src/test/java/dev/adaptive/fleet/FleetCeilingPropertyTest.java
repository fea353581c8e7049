package dev.adaptive.fleet;

import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fleet's in-flight total never exceeds the global ceiling at any instant, whatever the
 * order of joins, graceful leaves, crashes, total outages, one node cut off alone, hung
 * heartbeats and bursts of calls. Every node has the same fixed local limit, so the ceiling is
 * that limit throughout. Calls last at most 400 ms: less than the half heartbeat by which a
 * cut-off node stops admitting before its report expires (the one documented excess is a cut-off
 * node's calls still running when the others may take its share). Run with the rules that learn
 * the fleet's capacity (the default: demand-following shares, the room rule, syncs while busy,
 * staggered resumes) and with the even-split rules.
 */
class FleetCeilingPropertyTest {

    private static final int CEILING = 24;
    private static final Duration BEAT = FleetMember.DEFAULT_HEARTBEAT;

    @Test
    void inFlightNeverExceedsTheCeiling() {
        neverExceeds(true);
    }

    @Test
    void inFlightNeverExceedsTheCeilingWithTheEvenSplitRules() {
        neverExceeds(false);
    }

    private static void neverExceeds(boolean learn) {
        Property.forAll(100, Gen.longs(), seed -> {
            FleetSim sim = runScenario(seed, learn);
            assertThat(sim.violations).isEmpty();
            assertThat(sim.time.uncaught()).isEmpty();
            assertThat(sim.admissions).isPositive();
        });
    }

    @Test
    void theScenarioReallyReachesTheCeiling() {
        int reached = 0;
        for (boolean learn : new boolean[] {true, false}) {
            for (long seed = 1; seed <= 10; seed++) {
                FleetSim sim = runScenario(seed, learn);
                assertThat(sim.violations).isEmpty();
                if (sim.maxTotal == CEILING) {
                    reached++;
                }
                System.out.printf("fleet learn=%s seed=%d admissions=%d maxTotal=%d ceiling=%d violations=%d%n",
                        learn, seed, sim.admissions, sim.maxTotal, CEILING, sim.violations.size());
            }
        }
        // A property that never comes near the bound would prove nothing.
        assertThat(reached).isGreaterThanOrEqualTo(16);
    }

    private static FleetSim runScenario(long seed, boolean learn) {
        Random random = new Random(seed);
        FleetSim sim = new FleetSim();
        sim.learn = learn;
        sim.ceiling = CEILING;
        List<FleetSim.Node> alive = new ArrayList<>();
        List<FleetSim.Node> cut = new ArrayList<>();
        int next = 0;
        boolean totalOutage = false;
        for (int step = 0; step < 150; step++) {
            int action = random.nextInt(100);
            if (alive.isEmpty() || (action < 12 && alive.size() < 5)) {
                FleetSim.Node n = sim.node("n" + next++, CEILING).join();
                if (totalOutage) {
                    n.line.set(SwitchableCoordinator.Line.FAILING);
                }
                alive.add(n);
            } else if (action < 17 && alive.size() > 1) {
                FleetSim.Node n = alive.remove(random.nextInt(alive.size()));
                cut.remove(n);
                n.crash();
            } else if (action < 21 && alive.size() > 1) {
                FleetSim.Node n = alive.remove(random.nextInt(alive.size()));
                cut.remove(n);
                n.member.close();
            } else if (action < 26) {
                totalOutage = !totalOutage;
                SwitchableCoordinator.Line line = totalOutage
                        ? (random.nextBoolean() ? SwitchableCoordinator.Line.FAILING : SwitchableCoordinator.Line.HANGING)
                        : SwitchableCoordinator.Line.UP;
                for (FleetSim.Node n : alive) {
                    if (!cut.contains(n)) {
                        n.line.set(line);
                    }
                }
            } else if (action < 31) {
                FleetSim.Node n = alive.get(random.nextInt(alive.size()));
                if (cut.remove(n)) {
                    n.line.set(totalOutage ? SwitchableCoordinator.Line.FAILING : SwitchableCoordinator.Line.UP);
                } else {
                    cut.add(n);
                    n.line.set(SwitchableCoordinator.Line.FAILING);
                }
            } else {
                FleetSim.Node n = alive.get(random.nextInt(alive.size()));
                n.call(1 + random.nextInt(30), Duration.ofMillis(10 + random.nextInt(390)));
            }
            sim.advance(Duration.ofMillis(50 + random.nextInt(700)));
        }
        for (FleetSim.Node n : alive) {
            n.line.set(SwitchableCoordinator.Line.UP);
        }
        sim.advance(BEAT.multipliedBy(10));
        return sim;
    }
}
