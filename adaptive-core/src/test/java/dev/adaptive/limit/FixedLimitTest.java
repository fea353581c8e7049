package dev.adaptive.limit;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FixedLimitTest {

    @Test
    void ofSetsInitialMinAndMax() {
        FixedLimit limit = FixedLimit.of(7);
        assertThat(limit.limit()).isEqualTo(7);
        assertThat(limit.initialLimit()).isEqualTo(7);
        assertThat(limit.minLimit()).isEqualTo(7);
        assertThat(limit.maxLimit()).isEqualTo(7);
        assertThat(limit.initialState().limit()).isEqualTo(7);
        assertThat(limit.initialState().metrics()).containsExactlyEntriesOf(java.util.Map.of("limit", 7.0));
        assertThat(limit.name()).isEqualTo("fixed");
    }

    @Test
    void noSampleChangesIt() {
        Fold fold = new Fold(FixedLimit.of(3));
        fold.successes(100, 10).drop(0).rateLimited(5).successes(100, 500);
        fold.apply(new Sample(0, Long.MAX_VALUE, 3, Outcome.rateLimited(Duration.ofDays(1))));
        for (Sample sample : AdaptiveLimitContract.randomSamples(new Random(7), 1_000)) {
            fold.apply(sample);
        }
        assertThat(fold.limit()).isEqualTo(3);
        assertThat(fold.state()).isEqualTo(FixedLimit.of(3).initialState());
    }

    @Test
    void builderAndDefaults() {
        assertThat(FixedLimit.defaults().limit()).isEqualTo(5);
        assertThat(FixedLimit.builder().build().limit()).isEqualTo(5);
        assertThat(FixedLimit.builder().limit(12).build().limit()).isEqualTo(12);
        assertThat(FixedLimit.of(Integer.MAX_VALUE).maxLimit()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aLimitBelowOneFailsNamingTheValue() {
        assertThatThrownBy(() -> FixedLimit.of(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be >= 1: 0");
        assertThatThrownBy(() -> FixedLimit.builder().limit(-4).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("limit must be >= 1: -4");
    }

    @Test
    void rejectsAStateItDidNotMake() {
        Sample sample = new Sample(0, 1, 1, Outcome.SUCCESS);
        assertThatThrownBy(() -> FixedLimit.of(2).update(Vegas.defaults().initialState(), sample))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FixedLimit");
    }
}
