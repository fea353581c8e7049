package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.Ticker;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time arithmetic at the edges of a {@code long}: a deadline far in the past never reads as one
 * in the future, a wait that would pass {@link Long#MAX_VALUE} saturates, and a pause always
 * ends, wherever the ticker's readings lie.
 */
class LimiterTimeArithmeticTest {

    private static final Duration MAX_RETRY_AFTER = Duration.ofMinutes(10);

    @Test
    void aDeadlineAtLongMinValueOnTheRealClockOpensNoPause() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).build();
        limiter.pauseUntil(Long.MIN_VALUE);
        assertThat(limiter.isRatePaused()).isFalse();
        assertThat(limiter.tryAcquire()).isPresent();
    }

    @Test
    void aDeadlineAtLongMinValueOpensNoPauseWhateverTheReading() {
        for (long reading : new long[] {1, 1_000_000_000_000L, Long.MAX_VALUE / 2, Long.MAX_VALUE}) {
            Ticker fixed = () -> reading;
            Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(fixed).scheduler(new VirtualTime())
                    .build();
            limiter.pauseUntil(Long.MIN_VALUE);
            limiter.pauseUntil(reading - 1);
            assertThat(limiter.isRatePaused()).as("reading %d", reading).isFalse();
        }
    }

    @Test
    void aDeadlineAtLongMaxValueFromANegativeReadingIsCappedNotIgnored() {
        VirtualTime time = new VirtualTime(-1_000_000_000_000L);
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        limiter.pauseUntil(Long.MAX_VALUE);
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(limiter.pausedUntilNanos()).isEqualTo(time.nanoTime() + MAX_RETRY_AFTER.toNanos());
        time.advance(MAX_RETRY_AFTER);
        assertThat(limiter.isRatePaused()).isFalse();
    }

    @Test
    void aPauseNearTheEndOfTheTickersRangeSaturatesAndEnds() {
        VirtualTime time = new VirtualTime(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        limiter.pauseFor(Duration.ofSeconds(10));
        assertThat(limiter.isRatePaused()).isTrue();
        assertThat(limiter.pausedUntilNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(limiter.tryAcquire()).isEmpty();
        time.runUntilIdle();
        assertThat(limiter.isRatePaused()).isFalse();
        assertThat(limiter.tryAcquire()).isPresent();
    }

    @Test
    void aRateLimitedReleaseNearTheEndOfTheRangeEndsItsPauseToo() {
        VirtualTime time = new VirtualTime(Long.MAX_VALUE - 5);
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).build();
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(30)));
        assertThat(limiter.pausedUntilNanos()).isEqualTo(Long.MAX_VALUE);
        time.runUntilIdle();
        assertThat(limiter.isRatePaused()).isFalse();
    }

    @Test
    void aWaitTimeoutNearTheEndOfTheRangeStillFires() {
        VirtualTime time = new VirtualTime(Long.MAX_VALUE - 10);
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).time(time).waitTimeout(Duration.ofSeconds(1))
                .build();
        limiter.tryAcquire().orElseThrow();
        var waiter = limiter.acquire();
        time.runUntilIdle();
        assertThat(waiter).isCompletedExceptionally();
        assertThat(limiter.waiting()).isZero();
    }
}
