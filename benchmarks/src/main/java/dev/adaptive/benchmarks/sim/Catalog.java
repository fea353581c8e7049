package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Vegas;

import java.util.ArrayList;
import java.util.List;

/** The policies every simulation runs side by side. Stateless. */
public final class Catalog {

    /** The fixed-concurrency sweep runs c = 1 to this; its best is the scenario's oracle. */
    public static final int MAX_FIXED = 128;

    private Catalog() {
    }

    /** @return Adaptive with each built-in algorithm at its defaults, the default (Vegas) first */
    public static List<Policy> adaptive() {
        return List.of(AdaptivePolicy.of(Vegas.defaults()), AdaptivePolicy.of(Aimd.defaults()),
                AdaptivePolicy.of(Gradient2.defaults()));
    }

    /**
     * @param scenario supplies the bound, {@link Scenario#clientMax()}
     * @return Adaptive with each built-in algorithm at its defaults but for that {@code maxLimit}
     */
    public static List<Policy> adaptive(Scenario scenario) {
        int max = scenario.clientMax();
        if (max == Scenario.UNBOUNDED) {
            return adaptive();
        }
        return List.of(AdaptivePolicy.of(Vegas.builder().maxLimit(max).build()),
                AdaptivePolicy.of(Aimd.builder().maxLimit(max).build()),
                AdaptivePolicy.of(Gradient2.builder().maxLimit(max).build()));
    }

    /** @param maxFixed the sweep's upper end @return fixed concurrency c = 1..maxFixed */
    public static List<Policy> fixedSweep(int maxFixed) {
        List<Policy> out = new ArrayList<>();
        for (int c = 1; c <= maxFixed; c++) {
            out.add(AdaptivePolicy.fixed(c));
        }
        return out;
    }

    /**
     * @param scenario supplies the three guesses
     * @return the Netflix limits, then Resilience4j and Failsafe at the scenario's three guesses
     */
    public static List<Policy> peers(Scenario scenario) {
        List<Policy> out = new ArrayList<>(NetflixPolicy.all(scenario.clientMax()));
        for (int c : scenario.guesses()) {
            out.add(new Resilience4jPolicy(c));
        }
        for (int c : scenario.guesses()) {
            out.add(new FailsafePolicy(c));
        }
        return out;
    }

    /**
     * @param scenario the workload
     * @param maxFixed the sweep's upper end, raised to the scenario's {@link Scenario#clientMax()}
     *                 when that is bounded and higher
     * @return every policy of a full simulation of it
     */
    public static List<Policy> all(Scenario scenario, int maxFixed) {
        List<Policy> out = new ArrayList<>(adaptive(scenario));
        int sweep = scenario.clientMax() == Scenario.UNBOUNDED ? maxFixed : Math.max(maxFixed, scenario.clientMax());
        out.addAll(fixedSweep(sweep));
        out.addAll(peers(scenario));
        return out;
    }
}
