package dev.adaptive;

import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.Quota;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** A quota the server announces with its answers bounds what the limiter sends, in virtual time. */
class LimiterQuotaTest {

    private final VirtualTime time = new VirtualTime();
    private final List<TraceEvent> events = new ArrayList<>();

    private Limiter.Builder limiter(int n) {
        return Limiter.builder().limit(FixedLimit.of(n)).time(time).traceListener(events::add);
    }

    private static Outcome ok(long remaining, Duration reset) {
        return Outcome.SUCCESS.withQuota(new Quota(remaining, reset));
    }

    private static long s(long seconds) {
        return Duration.ofSeconds(seconds).toNanos();
    }

    @Test
    void noQuotaLeftHoldsEveryStartUntilTheReset() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(0, Duration.ofSeconds(5)));

        assertThat(l.tryAcquire()).isEmpty();
        CompletableFuture<Lease> waiting = l.acquire();
        time.advance(Duration.ofMillis(4_999));
        assertThat(waiting).isNotDone();
        time.advance(Duration.ofMillis(1));
        assertThat(waiting).isCompleted();
        assertThat(l.quotaRemaining()).isEqualTo(-1);
        assertThat(l.stats().quotaHolds()).isEqualTo(1);
        assertThat(events).filteredOn(TraceEvent.QuotaHold.class::isInstance).singleElement()
                .isEqualTo(new TraceEvent.QuotaHold(l.name(), 0, 0, s(5)));
        assertThat(l.isRatePaused()).as("a quota hold is not a Retry-After pause").isFalse();
    }

    @Test
    void whatRemainsBoundsWhatIsInFlight() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(3, Duration.ofSeconds(10)));
        Lease a = l.tryAcquire().orElseThrow();
        l.tryAcquire().orElseThrow();
        l.tryAcquire().orElseThrow();
        assertThat(l.tryAcquire()).as("3 remain and 3 are in flight").isEmpty();

        a.release(ok(2, Duration.ofSeconds(10)));
        assertThat(l.inflight()).isEqualTo(2);
        assertThat(l.tryAcquire()).as("2 remain and 2 are in flight").isEmpty();
        assertThat(l.stats().quotaHolds()).isEqualTo(1);
    }

    @Test
    void anAnswerWithoutAnAnnouncementSpendsOneOfTheQuota() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(2, Duration.ofSeconds(10)));
        l.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        assertThat(l.quotaRemaining()).isEqualTo(1);
        l.tryAcquire().orElseThrow();
        assertThat(l.tryAcquire()).isEmpty();
    }

    @Test
    void theLowestCountOfAWindowWinsAndItsEarliestResetEndsIt() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(5, Duration.ofSeconds(10)));
        time.advance(Duration.ofSeconds(1));
        // An answer that overtook an earlier one: more remaining, a reset rounded up further.
        l.tryAcquire().orElseThrow().release(ok(8, Duration.ofSeconds(10)));
        assertThat(l.quotaRemaining()).isEqualTo(5);
        assertThat(l.quotaResetNanos()).isEqualTo(s(10));
        // A later answer whose rounding lands closer to the server's renewal moves it earlier.
        time.advance(Duration.ofSeconds(1));
        l.tryAcquire().orElseThrow().release(ok(7, Duration.ofMillis(7_500)));
        assertThat(l.quotaResetNanos()).isEqualTo(s(2) + Duration.ofMillis(7_500).toNanos());
        time.advance(Duration.ofMillis(7_499));
        assertThat(l.quotaRemaining()).isEqualTo(5);
        time.advance(Duration.ofMillis(1));
        assertThat(l.quotaRemaining()).isEqualTo(-1);
        // The timer armed for the first reset finds no window of its own to close.
        l.tryAcquire().orElseThrow().release(ok(3, Duration.ofSeconds(5)));
        time.advance(Duration.ofMillis(500));
        assertThat(l.quotaRemaining()).isEqualTo(3);
    }

    @Test
    void aNewWindowTakesTheCountItAnnounces() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(1, Duration.ofSeconds(1)));
        time.advance(Duration.ofSeconds(2));
        l.tryAcquire().orElseThrow().release(ok(9, Duration.ofSeconds(1)));
        assertThat(l.quotaRemaining()).isEqualTo(9);
    }

    @Test
    void aResetOfZeroHoldsNothing() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(ok(0, Duration.ZERO));
        assertThat(l.tryAcquire()).isPresent();
        assertThat(l.stats().quotaHolds()).isZero();
    }

    @Test
    void aHostileResetIsCappedByMaxRetryAfter() {
        Limiter l = limiter(10).maxRetryAfter(Duration.ofSeconds(2)).build();
        l.tryAcquire().orElseThrow().release(ok(0, Duration.ofDays(365)));
        CompletableFuture<Lease> waiting = l.acquire();
        time.advance(Duration.ofSeconds(2));
        assertThat(waiting).isCompleted();
    }

    @Test
    void aRefusalCarriesItsQuotaToo() {
        Limiter l = limiter(10).build();
        l.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(1))
                .withQuota(new Quota(0, Duration.ofSeconds(3))));
        CompletableFuture<Lease> waiting = l.acquire();
        time.advance(Duration.ofSeconds(1));
        assertThat(waiting).as("the Retry-After ended, the quota has not renewed").isNotDone();
        time.advance(Duration.ofSeconds(2));
        assertThat(waiting).isCompleted();
    }

    @Test
    void spreadingSpacesWhatRemainsOverTheTimeToTheReset() {
        Limiter l = limiter(10).quotaSpread(true).build();
        l.tryAcquire().orElseThrow().release(ok(4, Duration.ofSeconds(4)));
        List<Long> starts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            l.acquire().thenAccept(lease -> starts.add(lease.startNanos()));
        }
        time.advance(Duration.ofSeconds(4));
        // 4 left over 4 s, none answered yet: the first goes at once, the others evenly after it.
        assertThat(starts).containsExactly(0L, s(1), s(2), s(3));
    }

    /** A server with a fixed window of 10 requests per second, 429 past it, through an executor. */
    @Test
    void anExecutorAgainstAFixedWindowNeverMeetsTheRefusal() {
        int q = 10;
        long w = s(1);
        long[] used = new long[2]; // window index, count
        int[] refusals = new int[1];
        Limiter l = limiter(8).build();
        AdaptiveExecutor ex = AdaptiveExecutor.builder(l).retryPolicy(RetryPolicy.builder().noJitter().build())
                .classifier((value, error) -> (Outcome) value).build();
        List<CompletableFuture<Outcome>> results = new ArrayList<>();
        long[] lastEnd = new long[1];
        for (int i = 0; i < 3 * q; i++) {
            results.add(ex.<Outcome>execute(ctx -> {
                long now = time.nanoTime();
                long window = now / w;
                if (window != used[0]) {
                    used[0] = window;
                    used[1] = 0;
                }
                Duration reset = Duration.ofNanos((window + 1) * w - now);
                Outcome answer;
                if (used[1] >= q) {
                    refusals[0]++;
                    answer = Outcome.rateLimited(reset).withQuota(new Quota(0, reset));
                } else {
                    used[1]++;
                    answer = Outcome.SUCCESS.withQuota(new Quota(q - used[1], reset));
                }
                return Replies.<Outcome>after(time, Duration.ofMillis(20), answer);
            }).whenComplete((v, e) -> lastEnd[0] = time.nanoTime()));
        }
        time.runUntilIdle();
        assertThat(refusals[0]).isZero();
        assertThat(results).allSatisfy(r -> assertThat(r).isCompleted());
        // 30 items at 10 per second: the third window opens at 2 s; each reset is read when its
        // answer arrives, 20 ms after the server wrote it, and the last answers take 20 ms more.
        assertThat(lastEnd[0]).isBetween(s(2), s(2) + Duration.ofMillis(60).toNanos());
    }
}
