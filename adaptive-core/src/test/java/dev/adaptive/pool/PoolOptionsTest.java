package dev.adaptive.pool;

import dev.adaptive.Limiter;
import dev.adaptive.RateLimitedException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static dev.adaptive.pool.VirtualPoolHarness.ms;
import static dev.adaptive.pool.VirtualPoolHarness.noJitter;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad options fail fast with a clear message; hostile Retry-After values are capped or ignored. */
class PoolOptionsTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    @Test
    void badLimitsNameTheBoundAndTheValue() {
        ItemPool<String> pool = ItemPool.of("a");
        assertThatThrownBy(() -> pool.withLimits(1, 0, 5)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("minLimit must be >= 1: 0");
        assertThatThrownBy(() -> pool.withLimits(5, 1, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("initialLimit must be within [minLimit, maxLimit] = [1, 3]: 5");
        assertThatThrownBy(() -> pool.withLimits(2, 4, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxLimit must be >= minLimit (4): 3");
    }

    @Test
    void badDurationsAndCountsNameTheOption() {
        ItemPool<String> pool = ItemPool.of("a");
        assertThatThrownBy(() -> pool.withTaskTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("taskTimeout must be positive: PT0S");
        assertThatThrownBy(() -> pool.withDeadline(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("deadline must be positive: PT-1S");
        assertThatThrownBy(() -> pool.withMaxPending(-2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxPending must be >= 0: -2");
        assertThatThrownBy(() -> pool.withName(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must not be blank: ' '");
        assertThatThrownBy(() -> pool.withTaskTimeout(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("taskTimeout");
        assertThatThrownBy(() -> pool.withAlgorithm(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> pool.withCancellation((CompletableFuture<?>) null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aPoolRunsOnce() {
        ItemPool<String> pool = ItemPool.of("a").withVirtualTime(h.time);
        pool.process((item, ctx) -> CompletableFuture.completedFuture(item));
        assertThatThrownBy(() -> pool.process((item, ctx) -> CompletableFuture.completedFuture(item)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already run");
        assertThatThrownBy(() -> pool.publish((item, ctx) -> CompletableFuture.completedFuture(item)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void joinOnAnUnfinishedVirtualTimeRunFailsInsteadOfHanging() {
        PoolRun<AdaptiveResult<String, Object>> run = ItemPool.of("a").withVirtualTime(h.time)
                .process(h.scripted((item, attempt) -> Reply.ok(10, item)));
        assertThatThrownBy(run::join).isInstanceOf(IllegalStateException.class).hasMessageContaining("VirtualTime");
        h.time.runUntilIdle();
        assertThat(run.join().results()).containsExactly("a");
    }

    @Test
    void withLimitsBuildsVegasWithThoseBoundsAndWithAlgorithmWins() {
        PoolRun<AdaptiveResult<String, Object>> vegas = ItemPool.of("a").withVirtualTime(h.time)
                .withLimits(7, 2, 9).process(h.scripted((item, attempt) -> Reply.ok(10, item)));
        assertThat(vegas.limiter().algorithm()).isInstanceOfSatisfying(Vegas.class, v -> {
            assertThat(v.initialLimit()).isEqualTo(7);
            assertThat(v.minLimit()).isEqualTo(2);
            assertThat(v.maxLimit()).isEqualTo(9);
        });
        PoolRun<AdaptiveResult<String, Object>> fixed = ItemPool.of("a").withVirtualTime(h.time)
                .withLimits(7, 2, 9).withAlgorithm(FixedLimit.of(3))
                .process(h.scripted((item, attempt) -> Reply.ok(10, item)));
        assertThat(fixed.limiter().limit()).isEqualTo(3);
        PoolOptions defaults = PoolOptions.defaults();
        assertThat(defaults.limit()).isInstanceOfSatisfying(Vegas.class, v -> {
            assertThat(v.initialLimit()).isEqualTo(Limiter.DEFAULT_INITIAL_LIMIT);
            assertThat(v.maxLimit()).isEqualTo(Limiter.DEFAULT_MAX_LIMIT);
        });
        h.time.runUntilIdle();
    }

    @Test
    void optionsRoundTripThroughToBuilder() {
        PoolOptions o = PoolOptions.builder().name("x").limits(3, 1, 4).maxPending(9)
                .taskTimeout(Duration.ofSeconds(2)).deadline(Duration.ofMinutes(1)).time(new VirtualTime()).build();
        PoolOptions copy = o.toBuilder().build();
        assertThat(copy.name()).isEqualTo("x");
        assertThat(copy.maxLimit()).isEqualTo(4);
        assertThat(copy.maxPending()).isEqualTo(9);
        assertThat(copy.taskTimeout()).contains(Duration.ofSeconds(2));
        assertThat(copy.deadline()).contains(Duration.ofMinutes(1));
        assertThat(copy.ticker()).isSameAs(o.ticker());
        assertThat(ItemPool.of("a").withOptions(o).options().name()).isEqualTo("x");
    }

    // ---- hostile Retry-After -----------------------------------------------------------

    private AdaptiveResult<String, Object> oneRateLimitThenOk(RateLimitedException first, Duration maxRetryAfter) {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("a"))
                .withAlgorithm(FixedLimit.of(1))
                .withRetryPolicy(noJitter().retries(0).maxRetryAfter(maxRetryAfter).build())
                .process(h.scripted((item, attempt) -> attempt == 1 ? Reply.fail(10, first) : Reply.ok(10, "ok")));
        return h.finish(run);
    }

    @Test
    void aHugeRetryAfterDurationIsCappedByMaxRetryAfter() {
        AdaptiveResult<String, Object> r = oneRateLimitThenOk(
                new RateLimitedException(Duration.ofSeconds(1_000_000_000_000L)), Duration.ofSeconds(5));
        assertThat(h.startTimesOf("a")).containsExactly(0L, ms(5010));
        assertThat(h.eventsOf(TraceEvent.RatePause.class)).singleElement()
                .satisfies(p -> assertThat(p.retryAfter()).isEqualTo(Duration.ofSeconds(5)));
        assertThat(r.results()).containsExactly("ok");
    }

    @Test
    void aHugeRetryAfterHeaderIsCappedAtTheParserAndPolicyCap() {
        RateLimitedException huge = new RateLimitedException("429", "99999999999999999999999",
                h.time.clock(Instant.parse("2025-01-01T00:00:00Z")));
        oneRateLimitThenOk(huge, Duration.ofMinutes(10));
        assertThat(h.startTimesOf("a")).containsExactly(0L, ms(10) + Duration.ofMinutes(10).toNanos());
    }

    @Test
    void aRetryAfterDateIn1970OrGarbageIsIgnoredAndTheRetryUsesBackoffOnTheRateLimitBudget() {
        for (String hostile : List.of("Thu, 01 Jan 1970 00:00:00 GMT", "soon", "-5", "1e9")) {
            VirtualPoolHarness local = new VirtualPoolHarness();
            RateLimitedException e = new RateLimitedException("429", hostile,
                    local.time.clock(Instant.parse("2025-01-01T00:00:00Z")));
            PoolRun<AdaptiveResult<String, Object>> run = local.traced(ItemPool.of("a"))
                    .withAlgorithm(FixedLimit.of(1))
                    .withRetryPolicy(noJitter().retries(0).build())
                    .process(local.scripted((item, attempt) -> attempt == 1 ? Reply.fail(10, e) : Reply.ok(10, "ok")));
            AdaptiveResult<String, Object> r = local.finish(run);
            assertThat(r.results()).as(hostile).containsExactly("ok");
            assertThat(local.eventsOf(TraceEvent.RatePause.class)).as(hostile).isEmpty();
            // No pause: first backoff step (100 ms) on the rate-limit budget, retries(0) untouched.
            assertThat(local.startTimesOf("a")).as(hostile).containsExactly(0L, ms(110));
            assertThat(r.stats().rateLimitEvents()).isEqualTo(1);
        }
    }
}
