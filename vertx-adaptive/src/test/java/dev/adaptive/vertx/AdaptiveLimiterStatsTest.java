package dev.adaptive.vertx;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.TrapTicker;
import dev.adaptive.time.VirtualTime;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link AdaptiveLimiterStats#of} takes any core {@link Limiter}, and with it any
 * {@link dev.adaptive.time.Ticker}: here one that throws at every reading while a Retry-After
 * pause is open, so that the pause's remaining time cannot be read.
 */
class AdaptiveLimiterStatsTest {

    @Test
    void statsOfALimiterWhoseTickerThrowsShowTheWholeOpenPauseAndCountTheThrow() {
        VirtualTime time = new VirtualTime();
        TrapTicker ticker = new TrapTicker(time, "of");
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).ticker(ticker).scheduler(time).build();
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(5)));
        time.advance(Duration.ofSeconds(1));
        ticker.broken = new InternalError("clock unplugged");

        AtomicReference<AdaptiveLimiterStats> stats = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> stats.set(AdaptiveLimiterStats.of("orders", limiter)));
        ticker.broken = null;

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what of() threw").isNull();
            AdaptiveLimiterStats s = stats.get();
            soft.assertThat(s == null ? null : s.isRatePaused()).as("ratePaused").isEqualTo(Boolean.TRUE);
            // The core's stats without a reading: at most the whole pause.
            soft.assertThat(s == null ? null : s.getPausedForMs()).as("pausedForMs, without a reading")
                    .isEqualTo(5_000L);
            soft.assertThat(s == null ? null : s.getLimitFailures()).as("the throw, counted in these stats")
                    .isEqualTo(1L);
        });
    }
}
