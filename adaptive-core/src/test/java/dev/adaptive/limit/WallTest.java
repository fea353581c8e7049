package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** What a burst of refusals says about a cap, and how growth is bounded by it. */
class WallTest {

    private static final long S = 1_000_000_000L;

    /**
     * A server past its cap answers some refusals with a 500 instead of a 429, as fast: the server
     * held none of them. Counted only as a 429's n, the held level stayed one too high per such
     * 500, and growth went back into the cap after the pause.
     */
    @Test
    void aFailureAsFastAsTheRefusalsIsOneMoreTheServerDidNotHold() {
        long ms = 1_000_000L;
        Wall wall = Wall.refusedAt(18, 0, 0, Duration.ofSeconds(1), 2 * ms, 1).alsoRefusedAt(18, 1);
        assertThat(wall.held()).isEqualTo(16);

        Wall fast = wall.alsoDroppedAt(18, 2 * ms, 1);
        assertThat(fast.held()).isEqualTo(15);
        // A 500 proves no cap: the refused level stays the rate limits'.
        assertThat(fast.refused()).isEqualTo(18);
        assertThat(wall.alsoDroppedAt(17, 4 * ms, 1).held()).isEqualTo(15);
        // One that took the downstream's latency was served, and failed: nothing about the cap.
        assertThat(wall.alsoDroppedAt(18, 45 * ms, 1)).isEqualTo(wall);
        assertThat(Wall.NONE.alsoDroppedAt(18, 0, 1)).isEqualTo(Wall.NONE);
    }

    /**
     * Without a {@code Retry-After} the unit of the wall's patience is a round trip of a success:
     * the refused level waits max(30, held) of them. With one, the announced wait; with neither,
     * nothing (the refused level may be probed at once, as before the wall learnt anything).
     */
    @Test
    void aSilentRefusalsPatienceIsCountedInRoundTrips() {
        long ms = 1_000_000L;
        assertThat(Wall.waitUnit(Duration.ofSeconds(2), 10 * ms)).isEqualTo(Duration.ofSeconds(2));
        assertThat(Wall.waitUnit(Duration.ZERO, 10 * ms)).isEqualTo(Duration.ofMillis(10));
        assertThat(Wall.waitUnit(Duration.ZERO, 0)).isEqualTo(Duration.ZERO);
        assertThat(Wall.waitUnit(Duration.ZERO, Double.NaN)).isEqualTo(Duration.ZERO);
        assertThat(Wall.waitUnit(Duration.ZERO, Double.POSITIVE_INFINITY)).isEqualTo(Duration.ZERO);

        Wall wall = Wall.refusedAt(12, 0, 0, Wall.waitUnit(Duration.ZERO, 10 * ms), 2 * ms, 1);
        assertThat(wall.held()).isEqualTo(11);
        assertThat(wall.bound(11, 12, 299 * ms, true)).as("30 round trips not over").isEqualTo(11);
        assertThat(wall.bound(11, 12, 300 * ms, true)).as("30 round trips over").isEqualTo(12);
        Wall unknown = Wall.refusedAt(12, 0, 0, Wall.waitUnit(Duration.ZERO, 0), 2 * ms, 1);
        assertThat(unknown.bound(11, 12, 1, true)).isEqualTo(12);
    }

    @Test
    void afterKRefusalsWithNInFlightTheDownstreamHeldNMinusK() {
        Wall wall = Wall.refusedAt(18, 12, 0, Duration.ofSeconds(1), 0, 1);
        assertThat(wall.refused()).isEqualTo(18);
        assertThat(wall.held()).isEqualTo(17);
        wall = wall.alsoRefusedAt(18, 1);
        assertThat(wall.held()).isEqualTo(16);
        // A third refusal says 15, but a whole probe at 16 ended without one: 16 was held.
        Wall proven = Wall.refusedAt(18, 16, 0, Duration.ofSeconds(1), 0, 1).alsoRefusedAt(18, 1).alsoRefusedAt(18, 1);
        assertThat(proven.held()).isEqualTo(16);
        // One admitted at fewer in flight lowers the refused level, and the held level stays below it.
        Wall lower = wall.alsoRefusedAt(14, 1);
        assertThat(lower.refused()).isEqualTo(14);
        assertThat(lower.held()).isEqualTo(13);
    }

    /**
     * A refusal at or below the level the last burst said was held reads as a rate: the new held
     * level is below the average in flight of the successes admitted after the last decrease at
     * the level resumed at or more.
     */
    @Test
    void aRefusalAtOrBelowTheHeldLevelHoldsBelowTheAverageInFlightSinceTheDecrease() {
        long s = S;
        Wall first = Wall.NONE.refusedAgainAt(20, 0, s, Duration.ofSeconds(1), 0, 1, 10);
        assertThat(first.held()).isEqualTo(19);
        // Admitted before the decrease, or in the refill below the level resumed at: not counted.
        assertThat(first.admitted(12, s - 1)).isSameAs(first);
        assertThat(first.admitted(12, s)).isSameAs(first);
        assertThat(first.admitted(3, s + 1)).isSameAs(first);
        Wall counted = first;
        for (int i = 0; i < 10; i++) {
            counted = counted.admitted(10, s + 1 + i).admitted(15, s + 1 + i);
        }
        assertThat(counted.admittedCount()).isEqualTo(20);

        // Refused at 15, under the 19 held: below an average of 12.5, so 12, whatever a quiet
        // probe at 14 said; more refusals of the burst lower it once n - k says less.
        Wall rate = counted.refusedAgainAt(15, 14, 5 * s, Duration.ofSeconds(1), 0, 1, 7);
        assertThat(rate.refused()).isEqualTo(15);
        assertThat(rate.held()).as("not max(n - k, proven) = 14").isEqualTo(12);
        Wall unproven = counted.refusedAgainAt(15, 0, 5 * s, Duration.ofSeconds(1), 0, 1, 7);
        assertThat(unproven.alsoRefusedAt(15, 1).alsoRefusedAt(15, 1).held()).isEqualTo(12);
        assertThat(unproven.alsoRefusedAt(15, 1).alsoRefusedAt(15, 1).alsoRefusedAt(15, 1).held()).isEqualTo(11);
        // The next burst starts counting afresh, from the level this one resumes at.
        assertThat(rate.admittedCount()).isZero();
        assertThat(rate.resumeLevel()).isEqualTo(7);

        // Above the level held: a cap met again, n - k as ever.
        assertThat(counted.refusedAgainAt(20, 0, 5 * s, Duration.ofSeconds(1), 0, 1, 10).held()).isEqualTo(19);
        // Nothing counted since the decrease: nothing to read a rate from.
        assertThat(first.refusedAgainAt(15, 0, 5 * s, Duration.ofSeconds(1), 0, 1, 7).held()).isEqualTo(14);
        // Never below the minimum.
        Wall low = Wall.NONE.refusedAgainAt(4, 0, s, Duration.ofSeconds(1), 0, 2, 2).admitted(2, s + 1);
        assertThat(low.refusedAgainAt(3, 0, 5 * s, Duration.ofSeconds(1), 0, 2, 2).held()).isEqualTo(2);
    }

    @Test
    void everyoneRefusedStillLeavesTheMinimum() {
        Wall wall = Wall.refusedAt(3, 0, 0, Duration.ofSeconds(1), 0, 2);
        for (int i = 0; i < 5; i++) {
            wall = wall.alsoRefusedAt(3, 2);
        }
        assertThat(wall.refused()).isEqualTo(3);
        assertThat(wall.held()).isEqualTo(2);
    }

    @Test
    void growthReturnsToTheHeldLevelAndPassesItOnlyAfterThePatience() {
        Wall wall = Wall.refusedAt(18, 0, 0, Duration.ofSeconds(1), 0, 1).alsoRefusedAt(18, 1);
        assertThat(wall.held()).isEqualTo(16);
        assertThat(wall.bound(9, 12, S, true)).isEqualTo(12);
        assertThat(wall.bound(12, 18, S, true)).isEqualTo(16);
        assertThat(wall.bound(16, 24, 29 * S, true)).isEqualTo(16);
        assertThat(wall.bound(16, 24, 30 * S, false)).isEqualTo(16);
        assertThat(wall.patienceNanos()).isEqualTo(30 * S);
        assertThat(wall.bound(16, 24, 30 * S, true)).isEqualTo(17);
        // That slot ended a probe without a refusal: held now, and the next waits thirty seconds more.
        Wall after = wall.afterQuietProbeAt(17, 31 * S);
        assertThat(after.held()).isEqualTo(17);
        assertThat(after.bound(17, 20, 60 * S, true)).isEqualTo(17);
        assertThat(after.bound(17, 20, 61 * S, true)).isEqualTo(18);
        // A quiet probe at the refused level: the cap moved, the wall is gone.
        assertThat(after.afterQuietProbeAt(18, 62 * S).standing()).isFalse();
        assertThat(Wall.NONE.bound(17, 40, 0, true)).isEqualTo(40);
    }

    @Test
    void aWallHeldAboveThirtyWaitsOneRetryAfterPerSlotAndHugeValuesSaturate() {
        Wall wide = Wall.refusedAt(100, 90, 0, Duration.ofSeconds(2), 0, 1);
        assertThat(wide.held()).isEqualTo(99);
        assertThat(wide.patienceNanos()).isEqualTo(99 * 2 * S);
        Wall huge = Wall.refusedAt(Integer.MAX_VALUE - 1, 0, 0, Duration.ofSeconds(Long.MAX_VALUE), 0, 1);
        assertThat(huge.patienceNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(huge.bound(5, 10, Long.MAX_VALUE, true)).isEqualTo(10);
    }
}
