package dev.adaptive.benchmarks.model;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One workload of the flaky API model (summarized in
 * {@code docs/benchmarks.md}): the server's
 * parameters and the client's work. Immutable.
 *
 * @param id                   short id, for example {@code "S2"}
 * @param name                 descriptive name, for example {@code "seed-field"}
 * @param items                number of items the client must get through
 * @param baseMillis           no-load latency
 * @param soft                 in-flight count above which latency grows quadratically
 * @param hard                 in-flight count above which the server refuses (429 or 500) after 2 ms
 * @param retryAfter           the {@code Retry-After} a refusal announces
 * @param jitter               latency spread, uniform in {@code [1 - jitter, 1 + jitter]}
 * @param tailProbability      chance that an answer is slowed by {@code tailFactor}
 * @param tailFactor           the slow tail's multiplier
 * @param transientProbability chance that an in-capacity answer is a 500 (after its latency)
 * @param overCapErrorShare    share of over-cap refusals that are a 500 instead of a 429
 * @param retries              client retry budget for errors (429s do not consume it)
 * @param guesses              three fixed concurrency guesses a user might make: below, near
 *                             and above the optimum
 */
public record Scenario(String id, String name, int items, double baseMillis, int soft, int hard,
                       Duration retryAfter, double jitter, double tailProbability, double tailFactor,
                       double transientProbability, double overCapErrorShare, int retries, List<Integer> guesses) {

    /** Over-cap refusals are answered after this long. */
    public static final Duration REFUSAL_LATENCY = Duration.ofMillis(2);

    /** S1 seed-basic: no noise at all, a hard cap at twice the soft knee. */
    public static final Scenario S1 = new Scenario("S1", "seed-basic", 400, 40, 8, 16, Duration.ofSeconds(1),
            0, 0, 1, 0, 0.10, 3, List.of(6, 12, 20));
    /** S2 seed-field: jitter, a slow tail and transient errors. */
    public static final Scenario S2 = new Scenario("S2", "seed-field", 300, 40, 8, 20, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(6, 12, 24));
    /** S4 low-latency: a fast downstream whose optimum is far above 20. */
    public static final Scenario S4 = new Scenario("S4", "low-latency", 3000, 5, 64, 128, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(32, 90, 160));
    /** S6 long-field: S2's server, ten times the items. */
    public static final Scenario S6 = new Scenario("S6", "long-field", 3000, 40, 8, 20, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(6, 12, 24));
    /** S3's server, for the real-HTTP scenario: 200 requests, soft 6, hard 12, {@code Retry-After: 1}. */
    public static final Scenario S3 = new Scenario("S3", "real-http", 200, 40, 6, 12, Duration.ofSeconds(1),
            0, 0, 1, 0, 0, 3, List.of(6, 10, 16));

    /** Validates. */
    public Scenario {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(retryAfter, "retryAfter");
        guesses = List.copyOf(guesses);
        if (items < 1) {
            throw new IllegalArgumentException("items must be >= 1: " + items);
        }
        if (!(baseMillis > 0)) {
            throw new IllegalArgumentException("baseMillis must be > 0: " + baseMillis);
        }
        if (soft < 1 || hard < soft) {
            throw new IllegalArgumentException("need 1 <= soft <= hard: soft=" + soft + ", hard=" + hard);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
        }
        if (!(tailFactor >= 1)) {
            throw new IllegalArgumentException("tailFactor must be >= 1: " + tailFactor);
        }
        for (double p : new double[] {tailProbability, transientProbability, overCapErrorShare}) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException("probabilities must be in [0, 1]: " + p);
            }
        }
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0: " + retries);
        }
    }

    /** @return the virtual-time scenarios of the simulation, in order */
    public static List<Scenario> simulated() {
        return List.of(S1, S2, S4, S6);
    }

    /**
     * @param id a scenario id, case-insensitive
     * @return the scenario
     * @throws IllegalArgumentException if there is no such scenario
     */
    public static Scenario byId(String id) {
        for (Scenario s : List.of(S1, S2, S3, S4, S6)) {
            if (s.id.equalsIgnoreCase(id)) {
                return s;
            }
        }
        throw new IllegalArgumentException("scenario must be one of S1, S2, S3, S4, S6: " + id);
    }

    /**
     * The model's latency for an answer within capacity, before jitter and tail.
     *
     * @param n requests in flight at the server, counting the new one
     * @return latency in milliseconds
     */
    public double congestedMillis(int n) {
        double over = Math.max(0, n - soft) / (double) soft;
        return baseMillis * (1 + over * over);
    }

    /** @return a copy with a different number of items, for short smoke runs */
    public Scenario withItems(int items) {
        return new Scenario(id, name, items, baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare, retries, guesses);
    }
}
