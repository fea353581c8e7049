package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DropToleranceTest {

    private final DropTolerance tolerance = new DropTolerance(0.05);

    private DropShare fold(DropShare share, int successes, int drops) {
        for (int i = 0; i < successes; i++) {
            share = tolerance.after(share, false);
        }
        for (int i = 0; i < drops; i++) {
            share = tolerance.after(share, true);
        }
        return share;
    }

    /** Every 33rd attempt failing, long enough for the usual share to settle near 3%. */
    private DropShare usuallyThreePercent() {
        DropShare share = DropShare.NONE;
        for (int i = 0; i < 200; i++) {
            share = fold(share, 32, 1);
        }
        assertThat(share.usual()).isBetween(0.025, 0.035);
        return share;
    }

    @Test
    void onADownstreamThatNeverFailedFiveDropsCloseTogetherAreAnOverloadAndOneIsNot() {
        assertThat(tolerance.exceeded(fold(DropShare.NONE, 500, 1))).isFalse();
        assertThat(tolerance.exceeded(fold(DropShare.NONE, 500, 4))).isFalse();
        assertThat(tolerance.exceeded(fold(DropShare.NONE, 500, 5))).isTrue();
    }

    @Test
    void whatTheDownstreamUsuallyFailsWithIsNotAnOverload() {
        DropShare usual = usuallyThreePercent();
        // Five drops among the last eighty: above a fixed 5%, but 3% is what this downstream does.
        DropShare share = fold(usual, 0, 3);
        assertThat(share.recent()).isGreaterThan(0.05);
        assertThat(tolerance.exceeded(share)).isFalse();
    }

    @Test
    void aBurstAboveTheUsualShareIsStillAnOverload() {
        DropShare share = fold(usuallyThreePercent(), 0, 6);
        assertThat(tolerance.exceeded(share)).isTrue();
    }

    @Test
    void aBurstMovesTheUsualShareLittle() {
        DropShare clean = fold(DropShare.NONE, 0, 0);
        DropShare burst = fold(clean, 0, 10);
        assertThat(burst.usual()).isLessThan(0.05);
        assertThat(burst.recent()).isGreaterThan(0.1);
    }

    @Test
    void aCleanDownstreamKeepsOneStateAndAllocatesNone() {
        assertThat(tolerance.after(DropShare.NONE, false)).isSameAs(DropShare.NONE);
        DropShare share = fold(DropShare.NONE, 0, 1);
        for (int i = 0; i < 100_000 && share != DropShare.NONE; i++) {
            share = tolerance.after(share, false);
        }
        assertThat(share).isSameAs(DropShare.NONE);
    }

    @Test
    void aToleranceOfZeroMakesEveryDropAnOverloadWhateverTheUsualShare() {
        DropTolerance none = new DropTolerance(0);
        DropShare share = DropShare.NONE;
        for (int i = 0; i < 100; i++) {
            share = none.after(share, i % 3 == 0);
        }
        assertThat(none.exceeded(none.after(share, true))).isTrue();
        assertThat(none.exceeded(none.after(share, false))).isFalse();
    }

    @Test
    void aBadToleranceNamesTheOptionAndTheValue() {
        assertThatThrownBy(() -> new DropTolerance(1.5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dropTolerance").hasMessageContaining("1.5");
    }

    @Test
    void aToleranceTooSmallForOneDropToCountIsRefusedNamingIt() {
        // Below 1e-4 a drop's step is rounded away as it is counted: the tolerance asked for
        // "almost none" would have meant "every drop ignored".
        assertThatThrownBy(() -> new DropTolerance(1e-6)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dropTolerance must be 0 (every drop counts) or within [1.0E-4, 1]: 1.0E-6");
        assertThatThrownBy(() -> Vegas.builder().dropTolerance(1e-6).build()).hasMessageContaining("dropTolerance");
        assertThatThrownBy(() -> Aimd.builder().dropTolerance(1e-5).build()).hasMessageContaining("dropTolerance");
        assertThatThrownBy(() -> Gradient2.builder().dropTolerance(5e-5).build()).hasMessageContaining("dropTolerance");
        DropTolerance least = new DropTolerance(DropTolerance.MIN);
        assertThat(least.after(DropShare.NONE, true).recent()).as("one drop at the least tolerance is counted").isPositive();
        assertThat(new DropTolerance(0).tolerance()).isZero();
    }
}
