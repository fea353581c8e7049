package dev.adaptive.benchmarks.model;

import dev.adaptive.testing.Answer;
import dev.adaptive.testing.DownstreamStats;
import dev.adaptive.testing.FlakyDownstream;
import dev.adaptive.testing.Request;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The flaky API model of the scenarios, checked against docs/benchmarks.md in virtual time. */
class FlakyDownstreamTest {

    /** S1's server: no jitter, no tail, no transient errors. */
    private final VirtualTime time = new VirtualTime();
    private final FlakyDownstream server = Scenario.S1.downstream(time, time, 1, true);

    private List<CompletableFuture<Answer>> burst(int n) {
        List<CompletableFuture<Answer>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(server.call());
        }
        return out;
    }

    @Test
    void latencyIsFlatUpToSoftThenGrowsQuadratically() {
        assertThat(Scenario.S1.server().congestedMillis(1)).isEqualTo(40);
        assertThat(Scenario.S1.server().congestedMillis(8)).isEqualTo(40);
        assertThat(Scenario.S1.server().congestedMillis(12)).isEqualTo(50);
        assertThat(Scenario.S1.server().congestedMillis(16)).isEqualTo(80);
        CompletableFuture<Answer> alone = server.call();
        time.advance(Duration.ofMillis(39));
        assertThat(alone).isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(alone).isCompletedWithValue(new Answer.Ok());
    }

    @Test
    void theRequestPastTheHardCapIsRefusedAfterTwoMilliseconds() {
        List<CompletableFuture<Answer>> calls = burst(17);
        time.advance(Duration.ofMillis(2));
        assertThat(calls.subList(0, 16)).noneMatch(CompletableFuture::isDone);
        assertThat(calls.get(16).join()).isIn(new Answer.TooManyRequests(Duration.ofSeconds(1)),
                new Answer.ServerError(true));
        time.runUntilIdle();
        DownstreamStats stats = server.stats();
        assertThat(stats.peak()).isEqualTo(17);
        assertThat(stats.inflight()).isZero();
        assertThat(stats.ok()).isEqualTo(16);
        assertThat(stats.tooMany() + stats.serverErrors()).isEqualTo(1);
    }

    /**
     * Bursts of 17 until the refused 17th is a 429 (10% of S1's refusals are 500s): the first window.
     *
     * @param drain whether to let the burst's answers finish once the 429 is out
     * @return when the 429 was announced
     */
    private long burstsUntilA429(boolean drain) {
        long announcedAt = -1;
        for (int attempt = 0; attempt < 50 && announcedAt < 0; attempt++) {
            List<CompletableFuture<Answer>> calls = burst(17);
            time.advance(Duration.ofMillis(2));
            if (calls.get(16).join() instanceof Answer.TooManyRequests) {
                announcedAt = time.nanoTime();
                if (!drain) {
                    break;
                }
            }
            time.runUntilIdle();
        }
        assertThat(announcedAt).isPositive();
        return announcedAt;
    }

    @Test
    void arrivalsStrictlyInsideAnAnnouncedWindowAreCounted() {
        long announcedAt = burstsUntilA429(true);
        long before = server.stats().arrivalsDuringRetryAfter();
        time.advanceTo(announcedAt + Duration.ofMillis(500).toNanos());
        server.call();
        time.advanceTo(announcedAt + Duration.ofSeconds(1).toNanos());
        server.call(); // at the window's end: not strictly inside
        time.runUntilIdle();
        assertThat(server.stats().arrivalsDuringRetryAfter() - before).isEqualTo(1);
        assertThat(server.stats().arrivalsAfterClientKnew()).as("no client said what it had read").isEqualTo(-1);
    }

    @Test
    void arrivalsDuringAWindowAreSplitByWhatTheClientHadReadWhenItSent() {
        long announcedAt = burstsUntilA429(false);
        long before = server.stats().arrivalsDuringRetryAfter();
        time.advanceTo(announcedAt + Duration.ofMillis(100).toNanos());
        server.call(Request.of(0, 0));  // on its way before the client read the 429
        server.call(Request.of(1, 0));  // sent after the client had read it
        server.call(Request.of(-1, 0)); // the client did not say
        time.advanceTo(announcedAt + Duration.ofMillis(1_500).toNanos());
        server.call(Request.of(1, 0));  // after the window: not counted at all
        time.runUntilIdle();
        DownstreamStats stats = server.stats();
        assertThat(stats.arrivalsDuringRetryAfter() - before).isEqualTo(3);
        assertThat(stats.arrivalsAfterClientKnew()).isEqualTo(1);
    }

    @Test
    void jitterTailAndTransientErrorsFollowTheirProbabilities() {
        VirtualTime t = new VirtualTime();
        FlakyDownstream s2 = Scenario.S2.downstream(t, t, 7, false);
        int n = 20_000;
        int errors = 0;
        int slow = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int i = 0; i < n; i++) {
            long start = t.nanoTime();
            CompletableFuture<Answer> r = s2.call();
            t.runUntilIdle();
            double ms = (t.nanoTime() - start) / 1e6;
            if (r.join() instanceof Answer.ServerError) {
                errors++;
            }
            if (ms > 40 * 1.3) {
                slow++;
            } else {
                min = Math.min(min, ms);
                max = Math.max(max, ms);
            }
        }
        assertThat(errors / (double) n).isCloseTo(0.01, within(0.003));
        assertThat(slow / (double) n).isCloseTo(0.03, within(0.006));
        assertThat(min).isCloseTo(28, within(0.1));
        assertThat(max).isCloseTo(52, within(0.1));
    }

    @Test
    void aBurstOf429sInOneWindowIsOneEpisodeAndA429AfterTheWindowStartsAnother() {
        FlakyDownstream f1 = Scenario.F1.downstream(time, time, 3, false);
        for (int i = 0; i < 13; i++) {
            f1.call(); // 10 admitted, 3 refused at the same instant
        }
        time.advance(Duration.ofMillis(1));
        f1.call(); // refused 1 ms later, inside the window the first refusals will open
        time.advance(Duration.ofMillis(500));
        assertThat(f1.stats().tooMany()).isEqualTo(4);
        assertThat(f1.stats().rateLimitEpisodes()).isEqualTo(1);
        for (int i = 0; i < 11; i++) {
            f1.call(); // 50 ms answers are long gone: 10 admitted, 1 refused, inside the window
        }
        time.advance(Duration.ofMillis(1_100)); // past the window of that last refusal
        for (int i = 0; i < 11; i++) {
            f1.call();
        }
        time.runUntilIdle();
        assertThat(f1.stats().tooMany()).isEqualTo(6);
        assertThat(f1.stats().rateLimitEpisodes()).isEqualTo(2);
    }

    @Test
    void theFlatCapFamilyHasNoKneeBelowTheCap() {
        for (Scenario f : Scenario.flatCap()) {
            assertThat(f.flat()).as(f.id()).isTrue();
            assertThat(f.server().congestedMillis(f.hard())).as(f.id()).isEqualTo(f.baseMillis());
            assertThat(f.overCapErrorShare() + f.transientProbability() + f.tailProbability()).as(f.id()).isZero();
        }
        assertThat(Scenario.S3_FLAT.server().congestedMillis(16)).isEqualTo(25);
        assertThat(Scenario.S2.flat()).isFalse();
        assertThat(Scenario.byId("s2-loose")).isSameAs(Scenario.S2_LOOSE);
        assertThat(Scenario.S2_LOOSE.jitter()).isEqualTo(Scenario.S2.jitter());
    }

    @Test
    void badScenariosFailNamingTheOption() {
        assertThatThrownBy(() -> Scenario.S2.withItems(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("items must be >= 1: 0");
        assertThatThrownBy(() -> Scenario.byId("S5")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith(": S5");
    }

    @Test
    void aQuotaIsAnnouncedWithEveryAnswerAndRefusedPastItUntilTheWindowEnds() {
        FlakyDownstream quota = Scenario.S1.downstream(time, time, 1, false).withQuota(3, Duration.ofSeconds(2));
        time.advance(Duration.ofMillis(500));
        List<CompletableFuture<Answer>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            calls.add(quota.call());
        }
        time.advance(Duration.ofMillis(40));
        assertThat(calls.get(0).join()).isEqualTo(new Answer.Ok(new Answer.Quota(2, Duration.ofMillis(1_500))));
        assertThat(calls.get(2).join()).isEqualTo(new Answer.Ok(new Answer.Quota(0, Duration.ofMillis(1_500))));
        assertThat(calls.get(3).join()).isEqualTo(new Answer.TooManyRequests(Duration.ofMillis(1_500),
                new Answer.Quota(0, Duration.ofMillis(1_500))));
        time.advance(Duration.ofMillis(1_500));
        CompletableFuture<Answer> next = quota.call();
        time.advance(Duration.ofMillis(40));
        assertThat(next.join()).as("a new window").isEqualTo(new Answer.Ok(new Answer.Quota(2, Duration.ofMillis(1_960))));
    }

    @Test
    void aRateRefusesPastItsBurstUntilATokenComesAndAnnouncesTheWaitInWholeSeconds() {
        // One token every 2 s, a bucket of one.
        FlakyDownstream rate = Scenario.S1.downstream(time, time, 1, false).withRate(0.5, 1);
        CompletableFuture<Answer> first = rate.call();
        CompletableFuture<Answer> second = rate.call();
        time.advance(Duration.ofMillis(1_500));
        CompletableFuture<Answer> third = rate.call();
        time.advance(Duration.ofMillis(600));
        CompletableFuture<Answer> fourth = rate.call();
        time.runUntilIdle();
        assertThat(first.join()).isEqualTo(new Answer.Ok());
        assertThat(second.join()).as("no token: the next in 2 s").isEqualTo(new Answer.TooManyRequests(Duration.ofSeconds(2)));
        assertThat(third.join()).as("three quarters of a token: the next in 0.5 s, announced as 1 s")
                .isEqualTo(new Answer.TooManyRequests(Duration.ofSeconds(1)));
        assertThat(fourth.join()).as("2.1 s on, a token again").isEqualTo(new Answer.Ok());
        DownstreamStats stats = rate.stats();
        assertThat(stats.tooMany()).isEqualTo(2);
        assertThat(stats.rateLimitEpisodes()).as("the second 429 came inside the first one's window").isEqualTo(1);
        assertThat(stats.arrivalsDuringRetryAfter())
                .as("each window lasts what its 429 announced (2 s, then 1 s), not the model's 1 s").isEqualTo(2);

        assertThatThrownBy(() -> Scenario.S1.downstream(time, time, 1, false).withRate(0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("perSecond > 0");
        assertThatThrownBy(() -> Scenario.S1.downstream(time, time, 1, false).withRate(1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("burst >= 1");
    }

    @Test
    void silent429sSayNoRetryAfterAndOpenNoWindow() {
        // The model's cap (F3: 4) and a rate (one token every 2 s, a bucket of one), both silent.
        Scenario f3 = Scenario.byId("F3-noRA");
        assertThat(f3).isEqualTo(Scenario.F3.withoutRetryAfter());
        assertThat(f3.announcesRetryAfter()).isFalse();
        FlakyDownstream capped = f3.downstream(time, time, 1, false);
        List<CompletableFuture<Answer>> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(capped.call());
        }
        // After the four admitted ones (200 ms ± 30 %), inside what an announced 1 s would span.
        time.advance(Duration.ofMillis(300));
        CompletableFuture<Answer> inWhatWouldBeTheWindow = capped.call();
        time.runUntilIdle();
        assertThat(calls.subList(4, 6)).allSatisfy(c -> assertThat(c.join()).isEqualTo(new Answer.TooManyRequests(null)));
        assertThat(inWhatWouldBeTheWindow.join()).isEqualTo(new Answer.Ok());
        DownstreamStats stats = capped.stats();
        assertThat(stats.tooMany()).isEqualTo(2);
        assertThat(stats.rateLimitEpisodes()).as("nothing announced, no episode").isZero();
        assertThat(stats.arrivalsDuringRetryAfter()).isZero();
        assertThat(capped.rawArrivalsDuringRetryAfter()).as("no window was announced").isZero();

        FlakyDownstream rate = Scenario.S1.downstream(time, time, 1, false).withRate(0.5, 1).withoutRetryAfter();
        CompletableFuture<Answer> first = rate.call();
        CompletableFuture<Answer> second = rate.call();
        time.runUntilIdle();
        assertThat(first.join()).isEqualTo(new Answer.Ok());
        assertThat(second.join()).isEqualTo(new Answer.TooManyRequests(null));
        assertThat(rate.stats().rateLimitEpisodes()).isZero();

        assertThatThrownBy(f3::withoutRetryAfter).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("F3-noRA");
        assertThatThrownBy(() -> Scenario.byId("S9-noRA")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("S9-noRA");
        assertThatThrownBy(() -> new Answer.TooManyRequests(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryAfter");
    }

    @Test
    void anOutageAnswers500AndCountsItsArrivalsAndFirstAttempts() {
        FlakyDownstream down = Scenario.S1.downstream(time, time, 1, false)
                .withOutage(Duration.ofSeconds(1), Duration.ofSeconds(1));
        CompletableFuture<Answer> before = down.call(Request.of(-1, 1));
        time.advance(Duration.ofSeconds(1));
        CompletableFuture<Answer> first = down.call(Request.of(-1, 1));
        CompletableFuture<Answer> retry = down.call(Request.of(-1, 2));
        time.advance(Duration.ofSeconds(1));
        CompletableFuture<Answer> after = down.call(Request.of(-1, 3));
        time.runUntilIdle();
        assertThat(before.join()).isEqualTo(new Answer.Ok());
        assertThat(first.join()).isEqualTo(new Answer.ServerError(false));
        assertThat(retry.join()).isEqualTo(new Answer.ServerError(false));
        assertThat(after.join()).isEqualTo(new Answer.Ok());
        assertThat(down.outageArrivals()).containsExactly(2, 1);
    }
}
