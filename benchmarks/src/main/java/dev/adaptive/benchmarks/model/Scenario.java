package dev.adaptive.benchmarks.model;

import dev.adaptive.testing.FlakyDownstream;
import dev.adaptive.testing.FlakyModel;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One workload of the flaky API model (summarized in
 * {@code docs/benchmarks.md}): the server's
 * parameters ({@link #server()}, the model of adaptive-testing) and the client's work. Immutable.
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
 * @param clientMax            the {@code maxLimit} every adaptive policy runs with, and the top of
 *                             the fixed sweep when that is above the default sweep;
 *                             {@link #UNBOUNDED} leaves every policy at its own default
 * @param ratePerSecond        the server's rate limit, requests per second past which it refuses
 *                             ({@link FlakyDownstream#withRate(double, int)}); 0 for none
 * @param rateBurst            the rate limit's burst; 0 without a rate
 * @param announcesRetryAfter  whether the server's 429s say {@code Retry-After}; without it they
 *                             are silent ({@link FlakyDownstream#withoutRetryAfter()}), and
 *                             {@code retryAfter} is only what the server would have waited
 */
public record Scenario(String id, String name, int items, double baseMillis, int soft, int hard,
                       Duration retryAfter, double jitter, double tailProbability, double tailFactor,
                       double transientProbability, double overCapErrorShare, int retries, List<Integer> guesses,
                       int clientMax, double ratePerSecond, int rateBurst, boolean announcesRetryAfter) {

    /**
     * A scenario without a rate limit.
     *
     * @param id                   short id
     * @param name                 descriptive name
     * @param items                number of items
     * @param baseMillis           no-load latency
     * @param soft                 the knee
     * @param hard                 the cap
     * @param retryAfter           the {@code Retry-After} a refusal past the cap announces
     * @param jitter               latency spread
     * @param tailProbability      chance of a slow answer
     * @param tailFactor           the slow tail's multiplier
     * @param transientProbability chance of a transient 500
     * @param overCapErrorShare    share of over-cap refusals that are a 500
     * @param retries              client retry budget for errors
     * @param guesses              three fixed guesses
     * @param clientMax            every adaptive policy's {@code maxLimit}, or {@link #UNBOUNDED}
     */
    public Scenario(String id, String name, int items, double baseMillis, int soft, int hard, Duration retryAfter,
                    double jitter, double tailProbability, double tailFactor, double transientProbability,
                    double overCapErrorShare, int retries, List<Integer> guesses, int clientMax) {
        this(id, name, items, baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare, retries, guesses, clientMax, 0, 0, true);
    }

    /**
     * A scenario whose 429s say {@code Retry-After}.
     *
     * @param id                   short id
     * @param name                 descriptive name
     * @param items                number of items
     * @param baseMillis           no-load latency
     * @param soft                 the knee
     * @param hard                 the cap
     * @param retryAfter           the {@code Retry-After} a refusal past the cap announces
     * @param jitter               latency spread
     * @param tailProbability      chance of a slow answer
     * @param tailFactor           the slow tail's multiplier
     * @param transientProbability chance of a transient 500
     * @param overCapErrorShare    share of over-cap refusals that are a 500
     * @param retries              client retry budget for errors
     * @param guesses              three fixed guesses
     * @param clientMax            every adaptive policy's {@code maxLimit}, or {@link #UNBOUNDED}
     * @param ratePerSecond        the rate limit per second, 0 for none
     * @param rateBurst            the rate limit's burst, 0 without a rate
     */
    public Scenario(String id, String name, int items, double baseMillis, int soft, int hard, Duration retryAfter,
                    double jitter, double tailProbability, double tailFactor, double transientProbability,
                    double overCapErrorShare, int retries, List<Integer> guesses, int clientMax, double ratePerSecond,
                    int rateBurst) {
        this(id, name, items, baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare, retries, guesses, clientMax, ratePerSecond, rateBurst, true);
    }

    /** The suffix of the id of a scenario whose 429s are silent ({@link #withoutRetryAfter()}). */
    public static final String SILENT_SUFFIX = "-noRA";

    /** {@link #clientMax()} of a scenario that bounds no policy. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    /** The knee and cap of a server that has neither within any client's reach: the rate-limit family. */
    public static final int NO_CAP = 100_000;

    /** S1 seed-basic: no noise at all, a hard cap at twice the soft knee. */
    public static final Scenario S1 = new Scenario("S1", "seed-basic", 400, 40, 8, 16, Duration.ofSeconds(1),
            0, 0, 1, 0, 0.10, 3, List.of(6, 12, 20), UNBOUNDED);
    /** S2 seed-field: jitter, a slow tail and transient errors. */
    public static final Scenario S2 = new Scenario("S2", "seed-field", 300, 40, 8, 20, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(6, 12, 24), UNBOUNDED);
    /** S4 low-latency: a fast downstream whose optimum is far above 20. */
    public static final Scenario S4 = new Scenario("S4", "low-latency", 3000, 5, 64, 128, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(32, 90, 160), UNBOUNDED);
    /** S6 long-field: S2's server, ten times the items. */
    public static final Scenario S6 = new Scenario("S6", "long-field", 3000, 40, 8, 20, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.01, 0.10, 5, List.of(6, 12, 24), UNBOUNDED);
    /** S3's server, for the real-HTTP scenario: 200 requests, soft 6, hard 12, {@code Retry-After: 1}. */
    public static final Scenario S3 = new Scenario("S3", "real-http", 200, 40, 6, 12, Duration.ofSeconds(1),
            0, 0, 1, 0, 0, 3, List.of(6, 10, 16), UNBOUNDED);

    /** S2's server with a tight knee and cap: soft 4, hard 8. */
    public static final Scenario S2_TIGHT = S2.variant("S2-tight", "tight", 300, 40, 4, 8, List.of(3, 6, 12));
    /** S2's server with a loose knee and cap: soft 24, hard 48 (optimum near 30). */
    public static final Scenario S2_LOOSE = S2.variant("S2-loose", "loose", 300, 40, 24, 48, List.of(16, 32, 64));
    /** S2's server five times slower: base 200 ms. */
    public static final Scenario S2_SLOW = S2.variant("S2-slow", "slow", 300, 200, 8, 20, List.of(6, 12, 24));
    /** S2's server four times faster: base 10 ms. */
    public static final Scenario S2_FAST = S2.variant("S2-fast", "fast", 300, 10, 8, 20, List.of(6, 12, 24));
    /** S1's server with a Retry-After of 30 s, 600 items: the price of meeting the cap once is large. */
    public static final Scenario S7 = new Scenario("S7", "long-retry-after", 600, 40, 8, 16, Duration.ofSeconds(30),
            0, 0, 1, 0, 0.10, 3, List.of(6, 12, 20), UNBOUNDED);
    /** S4 with every adaptive policy bounded at 200 and the fixed sweep to 200, as a user might configure it. */
    public static final Scenario S4_200 = new Scenario("S4-200", "low-latency-max-200", 3000, 5, 64, 128,
            Duration.ofSeconds(1), 0.30, 0.03, 6, 0.01, 0.10, 5, List.of(32, 90, 160), 200);
    /** Flat-cap F1: 50 ms at any load up to 10 in flight, then 429; 600 items. */
    public static final Scenario F1 = flat("F1", "flat-cap-10", 600, 50, 10, List.of(5, 10, 20));
    /** Flat-cap F2: a fast downstream, 10 ms up to 30 in flight; 3000 items. */
    public static final Scenario F2 = flat("F2", "flat-cap-30", 3000, 10, 30, List.of(15, 30, 60));
    /** Flat-cap F3: a slow downstream, 200 ms up to 4 in flight; 200 items. */
    public static final Scenario F3 = flat("F3", "flat-cap-4", 200, 200, 4, List.of(2, 4, 8));
    /** F1's server with the cap at 12, for the fleet benchmark: 600 items, flat 50 ms up to 12 in flight, then 429. */
    public static final Scenario F12 = flat("F12", "flat-cap-12", 600, 50, 12, List.of(6, 12, 24));
    /** S3-flat, for the real-HTTP scenario: flat 25 ms up to 16 in flight, then 429 with {@code Retry-After: 1}; 300 requests. */
    public static final Scenario S3_FLAT = new Scenario("S3-flat", "real-http-flat", 300, 25, 16, 16,
            Duration.ofSeconds(1), 0, 0, 1, 0, 0, 3, List.of(8, 16, 24), UNBOUNDED);

    /**
     * Held out: shapes the engine was not tuned on. H1, a flat cap of 7 at 30 ms with a wide
     * jitter (0.5) and a Retry-After of 2 s, 800 items.
     */
    public static final Scenario H1 = new Scenario("H1", "held-out-flat-7", 800, 30, 7, 7, Duration.ofSeconds(2),
            0.5, 0, 1, 0, 0, 3, List.of(4, 7, 14), UNBOUNDED);
    /** Held out: a flat cap of 50 at 20 ms, little jitter (0.1), a slow tail, 4000 items. */
    public static final Scenario H2 = new Scenario("H2", "held-out-flat-50", 4000, 20, 50, 50, Duration.ofSeconds(1),
            0.10, 0.02, 4, 0, 0, 3, List.of(25, 50, 100), UNBOUNDED);
    /** Held out: a knee at 12 and a cap at 18, base 25 ms, 2% transient errors, all over-cap refusals 429, 1000 items. */
    public static final Scenario H3 = new Scenario("H3", "held-out-knee", 1000, 25, 12, 18, Duration.ofSeconds(1),
            0.30, 0.03, 6, 0.02, 0, 5, List.of(8, 14, 24), UNBOUNDED);

    /**
     * Rate limits: a token bucket in front of a server whose latency is flat at any load within
     * reach (no knee, no cap), refusing past the rate once the burst is spent with a 429 whose
     * {@code Retry-After} is the time to the next token in whole seconds rounded up (1 s here), as
     * an API gateway's requests-per-second limit does. RL1: 100 per second, a burst of 20, 40 ms,
     * 600 items (about 4 in flight keep to the rate).
     */
    public static final Scenario RL1 = rate("RL1", "rate-100", 600, 40, 100, 20, List.of(2, 4, 8));
    /** RL2: a fast downstream behind 500 per second, a burst of 50, 20 ms, 5000 items (about 10 in flight). */
    public static final Scenario RL2 = rate("RL2", "rate-500-fast", 5000, 20, 500, 50, List.of(5, 10, 20));
    /** RL3: a slow downstream behind 20 per second, a burst of 5, 200 ms, 200 items (about 4 in flight). */
    public static final Scenario RL3 = rate("RL3", "rate-20-slow", 200, 200, 20, 5, List.of(2, 4, 8));
    /** RL4: 50 per second with no burst (a bucket of one), 40 ms, 300 items (2 in flight, no slack for jitter). */
    public static final Scenario RL4 = rate("RL4", "rate-50-no-burst", 300, 40, 50, 1, List.of(1, 2, 4));

    private static final List<Scenario> ALL = List.of(S1, S2, S3, S4, S6, S2_TIGHT, S2_LOOSE, S2_SLOW, S2_FAST, S7,
            S4_200, F1, F2, F3, F12, S3_FLAT, H1, H2, H3, RL1, RL2, RL3, RL4);

    /** Validates. */
    public Scenario {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(retryAfter, "retryAfter");
        guesses = List.copyOf(guesses);
        if (items < 1) {
            throw new IllegalArgumentException("items must be >= 1: " + items);
        }
        // The server's parameters are checked where they are defined.
        new FlakyModel(baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor, transientProbability,
                overCapErrorShare);
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0: " + retries);
        }
        if (clientMax < 1) {
            throw new IllegalArgumentException("clientMax must be >= 1: " + clientMax);
        }
        if (ratePerSecond < 0 || Double.isNaN(ratePerSecond) || (ratePerSecond > 0) != (rateBurst >= 1)
                || rateBurst < 0) {
            throw new IllegalArgumentException("ratePerSecond and rateBurst must both be positive or both 0: "
                    + ratePerSecond + ", " + rateBurst);
        }
    }

    /**
     * The flat-cap family: latency {@code base} times the jitter factor at every load up to the
     * cap (soft = hard, so the knee never bends), 429 with {@code Retry-After: 1} past it; no
     * tail, no transient errors, no over-cap 500s.
     */
    private static Scenario flat(String id, String name, int items, double baseMillis, int cap, List<Integer> guesses) {
        return new Scenario(id, name, items, baseMillis, cap, cap, Duration.ofSeconds(1), 0.30, 0, 1, 0, 0, 3, guesses,
                UNBOUNDED);
    }

    /**
     * The rate-limit family: a token bucket in front of flat latency (jitter 0.3, no knee or cap
     * within reach: both at 100,000); no tail, no transient errors; 3 retries.
     */
    private static Scenario rate(String id, String name, int items, double baseMillis, double perSecond, int burst,
                                 List<Integer> guesses) {
        return new Scenario(id, name, items, baseMillis, NO_CAP, NO_CAP, Duration.ofSeconds(1), 0.30, 0, 1, 0, 0, 3,
                guesses, UNBOUNDED, perSecond, burst);
    }

    /** This scenario's noise, errors and retries with another size, latency, knee and cap. */
    private Scenario variant(String id, String name, int items, double baseMillis, int soft, int hard,
                             List<Integer> guesses) {
        return new Scenario(id, name, items, baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare, retries, guesses, clientMax);
    }

    /** @return the server's parameters: the flaky model this scenario's server follows */
    public FlakyModel server() {
        return new FlakyModel(baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare);
    }

    /**
     * @param ticker    the clock the server stamps arrivals with
     * @param scheduler where its answers wait for their latency
     * @param seed      seed of its random choices
     * @param record    whether it records every arrival and in-flight over time
     * @return a server of this scenario in that time
     */
    public FlakyDownstream downstream(Ticker ticker, Scheduler scheduler, long seed, boolean record) {
        return shape(new FlakyDownstream(server(), ticker::nanoTime, scheduler::schedule, seed, record));
    }

    /**
     * Gives a downstream of {@link #server()} what the model alone does not say: this scenario's
     * rate limit, if any, and silent 429s, if so. The one place both are set, for a downstream
     * built here and for the one behind a loopback HTTP server.
     *
     * @param downstream a downstream of this scenario's server, before its first call
     * @return {@code downstream}
     */
    public FlakyDownstream shape(FlakyDownstream downstream) {
        if (ratePerSecond > 0) {
            downstream.withRate(ratePerSecond, rateBurst);
        }
        return announcesRetryAfter ? downstream : downstream.withoutRetryAfter();
    }

    /** @return this scenario if its 429s say {@code Retry-After}, else the scenario that announces */
    public Scenario announced() {
        return announcesRetryAfter ? this : byId(id.substring(0, id.length() - SILENT_SUFFIX.length()));
    }

    /**
     * @return this scenario's server with silent 429s (no {@code Retry-After}), the same client
     *         work; its id is this one's with {@value #SILENT_SUFFIX}
     * @throws IllegalStateException if this scenario's 429s are silent already
     */
    public Scenario withoutRetryAfter() {
        if (!announcesRetryAfter) {
            throw new IllegalStateException("the 429s of " + id + " are silent already");
        }
        return new Scenario(id + SILENT_SUFFIX, name + "-no-retry-after", items, baseMillis, soft, hard, retryAfter,
                jitter, tailProbability, tailFactor, transientProbability, overCapErrorShare, retries, guesses,
                clientMax, ratePerSecond, rateBurst, false);
    }

    /** @return whether the server limits a rate of requests ({@link #ratePerSecond()} above 0) */
    public boolean rateLimited() {
        return ratePerSecond > 0;
    }

    /** @return whether latency is flat up to the hard cap (soft = hard): the flat-cap family */
    public boolean flat() {
        return server().flat();
    }

    /** The seed of the committed random family ({@code Simulate --set=random}). */
    public static final long RANDOM_SEED = 20261202L;

    private static final java.util.regex.Pattern RANDOM_ID = java.util.regex.Pattern.compile(
            "[rR](\\d{1,2})(?:@(\\d{1,18}))?");

    /** @return the virtual-time scenarios of the main simulation, in order */
    public static List<Scenario> simulated() {
        return List.of(S1, S2, S4, S6);
    }

    /** @return the robustness curves: S2's server with one parameter changed, S7, and S4 bounded at 200 */
    public static List<Scenario> robustness() {
        return List.of(S2_TIGHT, S2_LOOSE, S2_SLOW, S2_FAST, S7, S4_200);
    }

    /** @return the flat-cap family in virtual time */
    public static List<Scenario> flatCap() {
        return List.of(F1, F2, F3);
    }

    /** @return the servers of the fleet benchmark: S2's, S6's and a flat cap of 12 */
    public static List<Scenario> fleet() {
        return List.of(S2, S6, F12);
    }

    /** @return the rate-limit family: token buckets in front of flat latency */
    public static List<Scenario> rateLimits() {
        return List.of(RL1, RL2, RL3, RL4);
    }

    /**
     * @return the flat caps and the rate limits with silent 429s: the same servers refusing
     *         without a {@code Retry-After}, as many APIs do
     */
    public static List<Scenario> silent() {
        return java.util.stream.Stream.of(F1, F2, F3, RL1, RL2, RL3, RL4).map(Scenario::withoutRetryAfter).toList();
    }

    /** @return the held-out shapes: two flat caps and a knee the engine was not tuned on */
    public static List<Scenario> heldOut() {
        return List.of(H1, H2, H3);
    }

    /**
     * A family of servers drawn at random from the model, none of which the engine was tuned on:
     * the check that what holds on the named scenarios holds on shapes nobody chose. Deterministic
     * (one fixed seed), so a result can be regenerated and compared. Each draw, independently:
     * base latency log-uniform in 5-300 ms; a knee log-uniform in 2-80 in flight; four in ten
     * flat (the cap at the knee), the others a cap at 1-3 times the knee; jitter 0-0.5; half with
     * a slow tail (1-4 % × 2-8); half with transient errors (0.5-3 %); a tenth of over-cap
     * refusals a 500 in half of them; Retry-After 1, 2 or 5 s; as many items as the cap serves
     * in 2-12 s of unloaded latency (at least 100, at most 4,000); a retry budget of 3 or 5.
     *
     * @param count how many servers
     * @return the servers R1..R{count}
     */
    public static List<Scenario> random(int count) {
        return random(count, RANDOM_SEED);
    }

    /**
     * Another family drawn the same way with another seed: servers that neither the engine nor
     * the committed random set has seen, for checking a change against shapes nobody looked at.
     * Their ids carry the seed ({@code R3@7}), except for the committed family's.
     *
     * @param count how many servers
     * @param seed  the family's seed; {@link #RANDOM_SEED} is the committed family's
     * @return the servers R1..R{count} of that family
     */
    public static List<Scenario> random(int count, long seed) {
        java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
        String suffix = seed == RANDOM_SEED ? "" : "@" + seed;
        List<Scenario> out = new java.util.ArrayList<>();
        for (int i = 1; i <= count; i++) {
            double base = Math.exp(Math.log(5) + r.nextDouble() * (Math.log(300) - Math.log(5)));
            int soft = (int) Math.round(Math.exp(Math.log(2) + r.nextDouble() * (Math.log(80) - Math.log(2))));
            boolean flat = r.nextDouble() < 0.4;
            int hard = flat ? soft : Math.max(soft + 1, (int) Math.round(soft * (1 + 2 * r.nextDouble())));
            double jitter = Math.round(r.nextDouble() * 50) / 100.0;
            boolean tail = r.nextBoolean();
            double tailP = tail ? 0.01 + 0.03 * r.nextDouble() : 0;
            double tailF = tail ? 2 + 6 * r.nextDouble() : 1;
            double trans = r.nextBoolean() ? 0.005 + 0.025 * r.nextDouble() : 0;
            double overCap = r.nextBoolean() ? 0.10 : 0;
            long ra = new long[] {1, 2, 5}[r.nextInt(3)];
            double seconds = 2 + 10 * r.nextDouble();
            int items = (int) Math.max(100, Math.min(4000, Math.round(hard * seconds * 1000 / base)));
            int retries = r.nextBoolean() ? 3 : 5;
            int cap = Math.max(1, hard);
            out.add(new Scenario("R" + i + suffix, "random-" + i + suffix, items, Math.round(base * 10) / 10.0, soft, hard,
                    Duration.ofSeconds(ra), jitter, tailP, tailF, trans, overCap, retries,
                    List.of(Math.max(1, cap / 2), cap, cap * 2), UNBOUNDED));
        }
        return List.copyOf(out);
    }

    /**
     * @param id a scenario id, case-insensitive
     * @return the scenario
     * @throws IllegalArgumentException if there is no such scenario
     */
    public static Scenario byId(String id) {
        for (Scenario s : ALL) {
            if (s.id.equalsIgnoreCase(id)) {
                return s;
            }
        }
        if (id.regionMatches(true, Math.max(0, id.length() - SILENT_SUFFIX.length()), SILENT_SUFFIX, 0,
                SILENT_SUFFIX.length()) && id.length() > SILENT_SUFFIX.length()) {
            Scenario announced = null;
            try {
                announced = byId(id.substring(0, id.length() - SILENT_SUFFIX.length()));
            } catch (IllegalArgumentException unknown) {
                // Told below, with the whole id.
            }
            if (announced != null && announced.announcesRetryAfter()) {
                return announced.withoutRetryAfter();
            }
        }
        java.util.regex.Matcher m = RANDOM_ID.matcher(id);
        if (m.matches()) {
            int n = Integer.parseInt(m.group(1));
            long seed = m.group(2) == null ? RANDOM_SEED : Long.parseLong(m.group(2));
            if (n >= 1 && n <= 24) {
                return random(24, seed).get(n - 1);
            }
        }
        throw new IllegalArgumentException("scenario must be one of R1..R24 (R1@<seed>..R24@<seed> for another random"
                + " family), any of these with " + SILENT_SUFFIX + " for silent 429s, "
                + ALL.stream().map(Scenario::id).collect(java.util.stream.Collectors.joining(", ")) + ": " + id);
    }

    /** @return a copy with a different number of items, for short smoke runs */
    public Scenario withItems(int items) {
        return new Scenario(id, name, items, baseMillis, soft, hard, retryAfter, jitter, tailProbability, tailFactor,
                transientProbability, overCapErrorShare, retries, guesses, clientMax, ratePerSecond, rateBurst,
                announcesRetryAfter);
    }
}
