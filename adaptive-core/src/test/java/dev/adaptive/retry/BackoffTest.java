package dev.adaptive.retry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Random;
import java.util.function.DoubleSupplier;

import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackoffTest {

    /** Jitter must not read the random source when there is none. */
    private static final DoubleSupplier UNUSED = () -> {
        throw new AssertionError("random read without jitter");
    };

    private static DoubleSupplier fixed(double r) {
        return () -> r;
    }

    @ParameterizedTest(name = "retry {0}")
    @ValueSource(ints = {1, 2, 3, 1000, Integer.MAX_VALUE})
    void constantIsTheBaseEveryTime(int retry) {
        assertThat(Backoff.constant(ofMillis(200)).delay(retry, UNUSED)).isEqualTo(ofMillis(200));
    }

    @ParameterizedTest(name = "retry {0} -> {1} ms")
    @CsvSource({"1, 100", "2, 200", "3, 300", "10, 1000", "11, 1000", "1000, 1000", "2147483647, 1000"})
    void linearIsBaseTimesRetryCapped(int retry, long millis) {
        assertThat(Backoff.linear(ofMillis(100), ofSeconds(1)).delay(retry, UNUSED)).isEqualTo(ofMillis(millis));
    }

    @ParameterizedTest(name = "retry {0} -> {1} ms")
    @CsvSource({"1, 100", "2, 200", "3, 400", "4, 800", "9, 25600", "10, 30000", "63, 30000", "64, 30000",
        "1000, 30000", "2147483647, 30000"})
    void exponentialDoublesFromTheBaseCapped(int retry, long millis) {
        assertThat(Backoff.exponential(ofMillis(100), ofSeconds(30)).delay(retry, UNUSED)).isEqualTo(ofMillis(millis));
    }

    @Test
    void overflowSaturatesToACapBeyondTheRangeOfLongNanos() {
        Duration millennium = Duration.ofDays(365_000);
        assertThat(Backoff.exponential(Duration.ofDays(1), millennium).delay(1000, UNUSED)).isEqualTo(millennium);
        assertThat(Backoff.linear(Duration.ofDays(1), millennium).delay(Integer.MAX_VALUE, UNUSED)).isEqualTo(millennium);
        assertThat(Backoff.constant(millennium).delay(1, UNUSED)).isEqualTo(millennium);
        assertThat(Backoff.exponential(Duration.ofDays(1), millennium).delay(3, UNUSED)).isEqualTo(Duration.ofDays(4));
    }

    @Test
    void aZeroBaseStaysZero() {
        assertThat(Backoff.exponential(Duration.ZERO, ofSeconds(1)).delay(1000, UNUSED)).isZero();
        assertThat(Backoff.linear(Duration.ZERO, Duration.ZERO).delay(5, UNUSED)).isZero();
    }

    @Test
    void jitterSpreadsSymmetricallyAroundTheDelay() {
        Backoff b = Backoff.exponential(ofSeconds(1), ofSeconds(10)).withJitter(0.5);

        assertThat(b.delay(1, fixed(0.0))).isEqualTo(ofMillis(500));
        assertThat(b.delay(1, fixed(0.5))).isEqualTo(ofSeconds(1));
        assertThat(b.delay(1, fixed(0.75))).isEqualTo(ofMillis(1250));
        assertThat(b.delay(1, fixed(Math.nextDown(1.0)))).isBetween(ofMillis(1499), ofMillis(1500));
    }

    @Test
    void jitterNeverExceedsTheCap() {
        Backoff b = Backoff.exponential(ofSeconds(1), ofSeconds(10)).withJitter(0.5);
        assertThat(b.delay(4, fixed(Math.nextDown(1.0)))).isEqualTo(ofSeconds(10));
        assertThat(b.delay(4, fixed(0.0))).isEqualTo(ofSeconds(4));
    }

    @Test
    void fullJitterCanReachZero() {
        assertThat(Backoff.constant(ofSeconds(1)).withJitter(1).delay(1, fixed(0))).isZero();
    }

    @Test
    void aMisbehavingRandomMeansNoJitter() {
        Backoff b = Backoff.constant(ofSeconds(1)).withJitter(0.5);
        DoubleSupplier throwing = () -> {
            throw new IllegalStateException("broken random");
        };
        for (DoubleSupplier bad : new DoubleSupplier[] {throwing, fixed(Double.NaN), fixed(1.0), fixed(-0.1),
            fixed(Double.POSITIVE_INFINITY), fixed(Double.NEGATIVE_INFINITY)}) {
            assertThat(b.delay(1, bad)).isEqualTo(ofSeconds(1));
        }
    }

    @Test
    void delaysStayWithinZeroAndTheCapForAnySettings() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            Duration min = Duration.ofNanos((random.nextLong() >>> 1) >>> random.nextInt(63));
            Duration max = min.plusNanos((random.nextLong() >>> 1) >>> random.nextInt(63));
            Backoff.Kind kind = Backoff.Kind.values()[random.nextInt(3)];
            Backoff b = new Backoff(kind, min, max, random.nextDouble());
            int retry = 1 + random.nextInt(Integer.MAX_VALUE);

            assertThat(b.delay(retry, random::nextDouble)).isBetween(Duration.ZERO, max);
        }
    }

    @Test
    void factoriesFillTheDefaults() {
        assertThat(Backoff.constant(ofSeconds(1))).isEqualTo(new Backoff(Backoff.Kind.CONSTANT, ofSeconds(1), ofSeconds(30), 0));
        assertThat(Backoff.constant(Duration.ofMinutes(1)).maxDelay()).isEqualTo(Duration.ofMinutes(1));
        assertThat(Backoff.DEFAULT_MIN_DELAY).isEqualTo(ofMillis(100));
        assertThat(Backoff.DEFAULT_MAX_DELAY).isEqualTo(ofSeconds(30));
        assertThat(Backoff.linear(ofMillis(1), ofMillis(2)).withJitter(0.3).jitter()).isEqualTo(0.3);
    }

    @Test
    void validationNamesTheOptionAndTheValue() {
        assertThatThrownBy(() -> Backoff.constant(ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("minDelay must be >= 0: PT-0.001S");
        assertThatThrownBy(() -> Backoff.exponential(ofSeconds(2), ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxDelay must be >= minDelay (PT2S): PT1S");
        assertThatThrownBy(() -> Backoff.constant(ofSeconds(1)).withJitter(-0.1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jitter must be in [0, 1]: -0.1");
        assertThatThrownBy(() -> Backoff.constant(ofSeconds(1)).withJitter(1.01))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jitter must be in [0, 1]: 1.01");
        assertThatThrownBy(() -> Backoff.constant(ofSeconds(1)).withJitter(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jitter must be in [0, 1]: NaN");
        assertThatThrownBy(() -> new Backoff(null, ofSeconds(1), ofSeconds(1), 0))
                .isInstanceOf(NullPointerException.class).hasMessage("kind");
        assertThatThrownBy(() -> Backoff.constant(ofSeconds(1)).delay(0, UNUSED))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("retry must be >= 1: 0");
    }
}
