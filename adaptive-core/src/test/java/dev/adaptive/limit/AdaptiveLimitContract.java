package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Behaviour every adaptive limit must show, run as pure folds over synthetic samples. Each
 * algorithm's test class extends this and adds what is specific to it.
 */
abstract class AdaptiveLimitContract {

    /** @return the algorithm with these bounds and its other options at their defaults */
    abstract Limit limit(int min, int initial, int max);

    /** @return the algorithm with these bounds and initialLimit left unset */
    abstract Limit limitWithDefaultInitial(int min, int max);

    /** @return the metric that carries the no-load RTT estimate, in milliseconds */
    abstract String baselineMetric();

    Limit bounded() {
        return limit(1, 5, 1_000);
    }

    /** Flat 10 ms successes until the limit reaches at least {@code target}. */
    static Fold warm(Limit limit, int target) {
        Fold fold = new Fold(limit);
        for (int i = 0; i < 20_000 && fold.limit() < target; i++) {
            fold.success(10);
        }
        assertThat(fold.limit()).as("warm-up reached").isGreaterThanOrEqualTo(target);
        return fold;
    }

    @Test
    void flatRttGrowsTheLimitToMax() {
        Fold fold = new Fold(limit(1, 5, 40)).successes(5_000, 10);
        assertThat(fold.limit()).isEqualTo(40);
    }

    @Test
    void risingRttShrinksTheLimit() {
        Fold fold = warm(bounded(), 40);
        int before = fold.limit();
        double rtt = 10;
        for (int i = 0; i < 300; i++) {
            rtt *= 1.01;
            fold.success(rtt);
        }
        assertThat(fold.limit()).isLessThan(before / 2);
    }

    @Test
    void aRunOfDropsShrinksTheLimit() {
        Fold fold = warm(bounded(), 40);
        int before = fold.limit();
        // Five in a row: an algorithm may shrug off a single transient error, not a run.
        for (int i = 0; i < 5; i++) {
            fold.drop(10);
        }
        assertThat(fold.limit()).isLessThan(before);
        for (int i = 0; i < 20; i++) {
            fold.drop(10);
        }
        assertThat(fold.limit()).isEqualTo(1);
    }

    /**
     * A downstream that fails a steady share of calls whatever the load (a flaky dependency
     * behind it) says nothing about concurrency: once the limit has seen that share, chance runs
     * of those failures no longer halve it. Against a fixed tolerance of 5%, a steady 3% crossed
     * it every few hundred attempts.
     */
    @Test
    void aSteadyShareOfFailuresWhateverTheLoadDoesNotKeepShrinkingTheLimit() {
        Fold fold = new Fold(limit(1, 40, 40));
        Random random = new Random(7);
        int decreases = 0;
        for (int i = 0; i < 6_000; i++) {
            int before = fold.limit();
            if (random.nextDouble() < 0.03) {
                fold.drop(10);
            } else {
                fold.success(10);
            }
            if (i >= 2_000 && fold.limit() < before) {
                decreases++;
            }
        }
        assertThat(decreases).as("decreases in the 4,000 attempts after the first 2,000").isZero();
        assertThat(fold.limit()).isEqualTo(40);
    }

    /** What a downstream usually fails with raises the bar for a run of drops, it does not remove it. */
    @Test
    void aRunOfDropsAboveTheUsualShareStillShrinksTheLimit() {
        Fold fold = new Fold(limit(1, 40, 40));
        Random random = new Random(7);
        for (int i = 0; i < 3_000; i++) {
            if (random.nextDouble() < 0.03) {
                fold.drop(10);
            } else {
                fold.success(10);
            }
        }
        assertThat(fold.limit()).isEqualTo(40);
        for (int i = 0; i < 10; i++) {
            fold.drop(10);
        }
        assertThat(fold.limit()).isLessThan(40);
    }

    @Test
    void rateLimitsShrinkTheLimit() {
        Fold fold = warm(bounded(), 40);
        int before = fold.limit();
        fold.rateLimited(10);
        assertThat(fold.limit()).isLessThan(before);
        for (int i = 0; i < 20; i++) {
            fold.rateLimited(1);
        }
        assertThat(fold.limit()).isEqualTo(1);
    }

    @Test
    void decreasesStopAtMin() {
        Fold fold = warm(limit(7, 7, 100), 30);
        for (int i = 0; i < 50; i++) {
            fold.drop(10);
        }
        assertThat(fold.limit()).isEqualTo(7);
    }

    @Test
    void boundsHoldWithZeroAndHugeRtts() {
        Fold fold = new Fold(limit(3, 5, 17));
        fold.successes(200, 0).successes(200, 10);
        fold.apply(fold.next(Outcome.SUCCESS, Long.MAX_VALUE));
        fold.successes(50, 10);
        for (int i = 0; i < 200; i++) {
            fold.apply(fold.next(Outcome.SUCCESS, i % 2 == 0 ? 0 : Long.MAX_VALUE / 4));
        }
        fold.drop(0).apply(fold.next(Outcome.DROPPED, Long.MAX_VALUE / 4)).successes(500, 0);
        assertThat(fold.limit()).isBetween(3, 17);
    }

    @Test
    void growthAtIntegerMaxValueDoesNotOverflow() {
        Fold fold = new Fold(limit(1, Integer.MAX_VALUE, Integer.MAX_VALUE)).successes(200, 10);
        assertThat(fold.limit()).isEqualTo(Integer.MAX_VALUE);
        fold.rateLimited(10);
        assertThat(fold.limit()).isLessThan(Integer.MAX_VALUE).isPositive();
    }

    @Test
    void recoversAfterACongestionEpisode() {
        Fold fold = warm(bounded(), 30);
        int peak = fold.limit();
        for (int i = 0; i < 200; i++) {
            if (i % 10 == 0) {
                fold.drop(50);
            } else {
                fold.success(50);
            }
        }
        int low = fold.limit();
        assertThat(low).isLessThan(peak / 2);
        fold.successes(3_000, 10);
        assertThat(fold.limit()).isGreaterThanOrEqualTo(peak);
    }

    @Test
    void growsAgainAfterThePermanentLatencyRises() {
        Fold fold = warm(bounded(), 30);
        int low = fold.limit();
        for (int i = 0; i < 3_000; i++) {
            fold.success(40);
            low = Math.min(low, fold.limit());
        }
        // An all-time minimum baseline would keep calling 40 ms congested and hold the limit down.
        assertThat(low).isLessThan(30);
        assertThat(fold.limit()).isGreaterThan(low + 20);
    }

    @Test
    void nearZeroRttFailuresDoNotPoisonTheBaseline() {
        Fold fold = new Fold(bounded()).successes(500, 10);
        for (int i = 0; i < 30; i++) {
            fold.drop(0);
        }
        assertThat(fold.limit()).isEqualTo(1);
        // Few enough successes that poisoned entries would still sit in any RTT window.
        fold.successes(50, 10);
        assertThat(fold.metric(baselineMetric())).isCloseTo(10.0, within(0.5));
        assertThat(fold.limit()).isGreaterThanOrEqualTo(5);
        fold.successes(600, 10);
        assertThat(fold.limit()).isGreaterThanOrEqualTo(30);
    }

    @Test
    void zeroRttSuccessesAreHarmless() {
        Fold fold = new Fold(limit(1, 5, 50)).successes(2_000, 0);
        assertThat(fold.limit()).isEqualTo(50);
        fold.successes(200, 10);
        assertThat(fold.limit()).isBetween(1, 50);
    }

    @Test
    void congestionThatStartedBeforeTheLastDecreaseDoesNotDecreaseAgain() {
        Fold fold = warm(bounded(), 40);
        long start = fold.now();
        // Twenty attempts in flight together, all failing as the downstream falls over.
        List<Sample> storm = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Outcome outcome = i % 2 == 0 ? Outcome.rateLimited(Duration.ofMillis(100)) : Outcome.DROPPED;
            storm.add(new Sample(start + i, Fold.nanos(5) + i * 1_000L, 40, outcome));
        }
        fold.apply(storm.get(0));
        int afterFirst = fold.limit();
        assertThat(afterFirst).isLessThan(40);
        for (Sample sample : storm.subList(1, storm.size())) {
            fold.apply(sample);
        }
        // One decrease for the whole storm. The state may learn more from it (every refusal of a
        // burst tells how many the downstream held), but nothing that moves the limit.
        assertThat(fold.limit()).isEqualTo(afterFirst);

        long afterStorm = start + Fold.nanos(10);
        fold.apply(new Sample(afterStorm, Fold.nanos(1), afterFirst, Outcome.rateLimited(Duration.ofMillis(100))));
        assertThat(fold.limit()).isLessThan(afterFirst);
    }

    /**
     * A refusal of an attempt admitted at the very instant of the decrease (a virtual clock: a
     * dropped attempt's retry sent while the refusal that decreased was on its way) is placed by
     * its concurrency. Admitted with more in flight than the decreased limit allows, it came
     * before the decrease and belongs to its burst; taken as a new overload it halved the limit a
     * second time (17 -> 8 -> 4 in the simulation) and left a wall at the halved level.
     */
    @Test
    void aRefusalAdmittedAtTheInstantOfTheDecreaseIsPlacedByItsConcurrency() {
        Fold fold = warm(bounded(), 40);
        long start = fold.now();
        long decreasedAt = start + Fold.nanos(2);
        fold.apply(new Sample(start, Fold.nanos(2), 40, Outcome.rateLimited(Duration.ofMillis(100))));
        int afterFirst = fold.limit();
        assertThat(afterFirst).isLessThan(40);

        fold.apply(new Sample(decreasedAt, Fold.nanos(2), 40, Outcome.rateLimited(Duration.ofMillis(100))));
        assertThat(fold.limit()).isEqualTo(afterFirst);

        // At the same instant but within the decreased limit: admitted after the decrease.
        fold.apply(new Sample(decreasedAt, Fold.nanos(2), afterFirst, Outcome.rateLimited(Duration.ofMillis(100))));
        assertThat(fold.limit()).isLessThan(afterFirst);
    }

    /**
     * A 500 of the same burst, admitted before the decrease and as fast as its 429s, was refused
     * too: the held level the limit goes back to after the pause is one lower for it. One that
     * took the downstream's latency changes nothing.
     */
    @Test
    void aFailureOfTheBurstAsFastAsItsRefusalsLowersTheHeldLevel() {
        // Before any probe has ended, so that no quiet level holds the wall up.
        Fold fold = new Fold(limit(1, 20, 1_000));
        int n = fold.limit();
        long start = fold.now();
        fold.apply(new Sample(start, Fold.nanos(2), n, Outcome.rateLimited(Duration.ofMillis(100))));
        double held = fold.metric("held");
        assertThat(held).isEqualTo(n - 1.0);

        fold.apply(new Sample(start + 1, Fold.nanos(50), n, Outcome.DROPPED));
        assertThat(fold.metric("held")).isEqualTo(held);
        fold.apply(new Sample(start + 1, Fold.nanos(2), n, Outcome.DROPPED));
        assertThat(fold.metric("held")).isEqualTo(held - 1);
    }

    /**
     * A token bucket refuses a rate, not a concurrency: after the first burst's pause the client
     * resumes, climbs, and is refused again at or below the level that burst said was held.
     * Stepping back one slot per burst cost a whole Retry-After per slot (six pauses a run on a
     * bucket of 100 per second, 40 ms calls, where 4 in flight keep to the rate). The second
     * burst holds the limit below the average in flight of the successes admitted since the first
     * one's decrease at the level it resumed at or more (not those of the refill right after the
     * pause, below it): by Little's law the downstream ran out while the client averaged that.
     */
    @Test
    void aRefusalAtOrBelowTheLevelHeldHoldsBelowTheAverageInFlightSinceThePause() {
        Fold fold = new Fold(limit(1, 20, 1_000));
        fold.apply(new Sample(fold.now(), Fold.nanos(2), 20, Outcome.rateLimited(Duration.ofSeconds(1))));
        assertThat(fold.metric("held")).isEqualTo(19.0);
        int resume = fold.limit();
        fold.advance(1_000);
        // The refill right after the pause, below the level resumed at: not counted.
        for (int i = 0; i < 10; i++) {
            fold.apply(new Sample(fold.now(), Fold.nanos(10), 3, Outcome.SUCCESS));
            fold.advance(10);
        }
        // The climb, each success admitted at the limit of its time.
        long sum = 0;
        int count = 0;
        for (int i = 0; i < 300 && fold.limit() < resume + 6; i++) {
            sum += fold.limit();
            count++;
            fold.success(10);
        }
        int n = fold.limit();
        assertThat(n).as("the limit climbed, and is refused at or below the level held").isBetween(resume + 1, 19);
        fold.apply(new Sample(fold.now(), Fold.nanos(2), n, Outcome.rateLimited(Duration.ofSeconds(1))));
        int below = (int) Math.ceil((double) sum / count) - 1;
        assertThat(fold.metric("held")).as("below the average in flight since the pause, %d / %d", sum, count)
                .isEqualTo(below);
        assertThat(fold.metric("held")).as("not n - k").isLessThan(n - 1);
    }

    /**
     * A 429 without {@code Retry-After} costs no pause, only the decrease: its wall stands for as
     * many round trips of a success as a wall with one stands Retry-Afters. Counted in zero time,
     * it stood for nothing, and growth walked into the same cap a tenth of a second after each
     * decrease (eight times in a 1.3 s run on a cap of 30 with 10 ms calls). Without the round
     * trips, the three algorithms probed the refused level 40-160 ms after the refusal here.
     */
    @Test
    void aWallOfA429WithoutRetryAfterStandsForRoundTrips() {
        Fold fold = warm(bounded(), 8);
        int n = fold.limit();
        long refused = fold.now();
        fold.apply(new Sample(refused, Fold.nanos(2), n, Outcome.rateLimited(null)));
        int held = (int) fold.metric("held");
        assertThat(held).isEqualTo(n - 1);
        // Flat 10 ms successes with the limit in flight, each ending now: the wall stands for one
        // round trip per slot held, at least 30 (300 ms), before the refused level is probed.
        long patience = Fold.nanos(10.0 * Math.max(30, held));
        long backAt = -1;
        long probedAt = -1;
        while (fold.now() - refused < 3 * patience && probedAt < 0) {
            fold.apply(new Sample(fold.now() - Fold.nanos(10), Fold.nanos(10), fold.limit(), Outcome.SUCCESS));
            fold.advance(10.0 / fold.limit());
            if (backAt < 0 && fold.limit() == held) {
                backAt = fold.now() - refused;
            }
            if (fold.limit() > held) {
                probedAt = fold.now() - refused;
            }
        }
        assertThat(backAt).as("back at the level held well within the patience").isBetween(0L, patience / 2);
        assertThat(probedAt).as("the refused level probed once the wall has stood its patience, not before")
                .isGreaterThanOrEqualTo(patience);
    }

    @Test
    void updateIsPure() {
        Limit limit = limit(2, 5, 60);
        List<Sample> samples = randomSamples(new Random(42), 2_000);
        LimitState a = limit.initialState();
        LimitState b = limit.initialState();
        for (Sample sample : samples) {
            LimitState before = a;
            LimitState snapshot = b;
            a = limit.update(a, sample);
            b = limit.update(b, sample);
            assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
            assertThat(limit.update(before, sample)).isEqualTo(a);
            assertThat(before).isEqualTo(snapshot);
            assertThat(a.metrics()).isEqualTo(b.metrics());
        }
    }

    @Test
    void randomSampleSequencesStayWithinBounds() {
        for (int seed = 0; seed < 40; seed++) {
            Random random = new Random(seed);
            int min = 1 + random.nextInt(5);
            int max = random.nextBoolean() ? Integer.MAX_VALUE : min + random.nextInt(60);
            int initial = min + random.nextInt((int) Math.min(100, (long) max - min + 1));
            Fold fold = new Fold(limit(min, initial, max));
            for (Sample sample : randomSamples(random, 3_000)) {
                fold.apply(sample);
            }
        }
    }

    /** Mixed outcomes, RTTs from zero to absurd, and some starts earlier than others ended. */
    static List<Sample> randomSamples(Random random, int count) {
        List<Sample> out = new ArrayList<>(count);
        long now = random.nextLong();
        double base = 1 + random.nextInt(50);
        for (int i = 0; i < count; i++) {
            int roll = random.nextInt(100);
            Outcome outcome = roll < 75 ? Outcome.SUCCESS
                    : roll < 88 ? Outcome.DROPPED
                    : Outcome.rateLimited(Duration.ofMillis(random.nextInt(1_000)));
            long rtt = switch (random.nextInt(20)) {
                case 0 -> 0;
                case 1 -> 1 + random.nextInt(1_000);
                case 2 -> Long.MAX_VALUE / (1 + random.nextInt(4));
                default -> Fold.nanos(base * (0.5 + random.nextDouble() * (1 + (i / 500) % 4)));
            };
            long start = random.nextInt(10) == 0 ? now - random.nextInt(1_000_000_000) : now;
            out.add(new Sample(start, rtt, 1 + random.nextInt(100), outcome));
            now += random.nextInt(5_000_000);
        }
        return out;
    }

    @Test
    void rejectsAStateItDidNotMake() {
        Sample sample = new Sample(0, 1, 1, Outcome.SUCCESS);
        LimitState foreign = new LimitState() {
            @Override
            public int limit() {
                return 1;
            }

            @Override
            public java.util.Map<String, Double> metrics() {
                return java.util.Map.of();
            }
        };
        assertThatThrownBy(() -> bounded().update(foreign, sample))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("state");
    }

    @Test
    void ignoredSamplesChangeNothing() {
        Fold fold = warm(bounded(), 20);
        LimitState before = fold.state();
        fold.apply(fold.next(Outcome.IGNORED, 0));
        assertThat(fold.state()).isEqualTo(before);
    }

    @Test
    void initialStateMatchesTheOptions() {
        Limit limit = limit(2, 9, 30);
        assertThat(limit.initialLimit()).isEqualTo(9);
        assertThat(limit.minLimit()).isEqualTo(2);
        assertThat(limit.maxLimit()).isEqualTo(30);
        assertThat(limit.initialState().limit()).isEqualTo(9);
        assertThat(limit.name()).isNotBlank();
    }

    @Test
    void anUnsetInitialLimitMovesIntoTheBounds() {
        assertThat(limitWithDefaultInitial(1, 3).initialLimit()).isEqualTo(3);
        assertThat(limitWithDefaultInitial(10, 20).initialLimit()).isEqualTo(10);
        assertThat(limitWithDefaultInitial(1, Integer.MAX_VALUE).initialLimit()).isEqualTo(5);
    }

    @Test
    void badBoundsFailAtBuildNamingOptionAndValue() {
        assertThatThrownBy(() -> limit(0, 5, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minLimit").hasMessageEndingWith(": 0");
        assertThatThrownBy(() -> limit(-3, 5, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("minLimit").hasMessageEndingWith(": -3");
        assertThatThrownBy(() -> limit(5, 5, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxLimit").hasMessageEndingWith(": 4");
        assertThatThrownBy(() -> limit(2, 1, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialLimit").hasMessageEndingWith(": 1");
        assertThatThrownBy(() -> limit(2, 11, 10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialLimit").hasMessageEndingWith(": 11");
    }
}
