package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class FirstCohortTest {

    private static final long MS = 1_000_000L;

    private static long[] millis(double... values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Math.round(values[i] * MS);
        }
        return out;
    }

    @Test
    void aLineThroughTheCohortGivesTheRttAtOneCallAndAtTheLimit() {
        // 5 ms at one call, 2.5 ms more per call: 15 ms at the limit of 5.
        FirstCohort c = FirstCohort.of(millis(5, 7.5, 10, 12.5, 15), new int[] {1, 2, 3, 4, 5}, 5);

        assertThat(c).isNotNull();
        assertThat(c.limitRttNanos()).isCloseTo(15.0 * MS, within(1.0));
        assertThat(c.unloaded()).containsExactly(5 * MS, Math.round(7.5 * MS));
        assertThat(c.level()).isEqualTo(2);
    }

    @Test
    void aKneeInsideTheCohortStillShows() {
        // Flat up to two calls, then rising (one tie, one swap below the knee): the order is
        // beyond chance, and the line's slope is the median one.
        FirstCohort c = FirstCohort.of(millis(5.5, 5.3, 6.2, 12.0, 14.9), new int[] {1, 2, 3, 4, 5}, 5);

        assertThat(c).isNotNull();
        assertThat(c.limitRttNanos() / MS).isGreaterThan(12);
    }

    @Test
    void theOrderInWhichTheAnswersCameBackDoesNotMatter() {
        FirstCohort c = FirstCohort.of(millis(12.5, 5, 15, 10, 7.5), new int[] {4, 1, 5, 3, 2}, 5);

        assertThat(c).isNotNull();
        assertThat(c.limitRttNanos()).isCloseTo(15.0 * MS, within(1.0));
        assertThat(c.unloaded()).containsExactlyInAnyOrder(5 * MS, Math.round(7.5 * MS));
    }

    @Test
    void noOrderBeyondChanceIsNoGradient() {
        // An order no better than a jittery flat downstream gives by chance.
        assertThat(FirstCohort.of(millis(40, 52, 38, 47, 50), new int[] {1, 2, 3, 4, 5}, 5)).isNull();
        // Slower at fewer calls in flight.
        assertThat(FirstCohort.of(millis(15, 12.5, 10, 7.5, 5), new int[] {1, 2, 3, 4, 5}, 5)).isNull();
    }

    @Test
    void aWindowAtOneConcurrencyHasNoGradient() {
        assertThat(FirstCohort.of(millis(5, 7, 9, 11, 13), new int[] {5, 5, 5, 5, 5}, 5)).isNull();
        // Too few answers below half the limit to start a baseline from.
        assertThat(FirstCohort.of(millis(5, 7, 9, 11, 13), new int[] {1, 3, 4, 5, 5}, 5)).isNull();
    }

    @Test
    void aLargerCohortIsJudgedTheSameWay() {
        // The 25 first answers of an initial limit of 40, 0.8 ms slower per call, with jitter.
        int n = 25;
        long[] rtts = new long[n];
        int[] inflights = new int[n];
        for (int i = 0; i < n; i++) {
            inflights[i] = i + 1;
            rtts[i] = Math.round((20 + 0.8 * i + (i % 2 == 0 ? 1.5 : -1.5)) * MS);
        }
        FirstCohort c = FirstCohort.of(rtts, inflights, 40);

        assertThat(c).isNotNull();
        assertThat(c.level()).isEqualTo(20);
        assertThat(c.unloaded()).hasSize(20);
        assertThat(c.limitRttNanos() / MS).isCloseTo(20 + 0.8 * 39, within(2.0));
        // The same answers in an order that chance gives: no gradient.
        for (int i = 0; i < n; i++) {
            rtts[i] = Math.round((20 + (i * 7 % 11) - 5) * MS);
        }
        assertThat(FirstCohort.of(rtts, inflights, 40)).isNull();
    }

    @Test
    void aFirstWindowLargerThanItReadsIsOneLevelWithoutReadingItsPairs() {
        // An initial limit of 131,200: a first window of 65,600 answers, whose pairs once
        // overflowed an int (and cost seconds for every fold that met them).
        int n = 65_600;
        long[] rtts = new long[n];
        int[] inflights = new int[n];
        for (int i = 0; i < n; i++) {
            inflights[i] = i + 1;
            rtts[i] = 10_000_000L + 1_000L * i; // slower with every call in flight
        }
        assertThat(FirstCohort.of(rtts, inflights, 2 * n)).isNull();
        assertThat(FirstCohort.of(java.util.Arrays.copyOf(rtts, 200), java.util.Arrays.copyOf(inflights, 200), 200))
                .as("a window it reads, with the same gradient").isNotNull();
    }
}
