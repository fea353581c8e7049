package dev.adaptive.micrometer;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.RateLimitedException;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.guard.ConcurrencyGuard;
import dev.adaptive.guard.GuardLease;
import dev.adaptive.limit.Aimd;
import dev.adaptive.queue.ThrottledQueue;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LimiterMetricsTest {

    private final VirtualTime time = new VirtualTime();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @Test
    void theScrapeShowsThePauseTheDecreaseAndTheRetryOfARateLimitedAttempt() {
        Limiter limiter = Limiter.builder().name("orders").time(time)
                .limit(Aimd.builder().initialLimit(10).build()).build();
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).tag("app", "shop").build();
        metrics.bindTo(registry);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).build();
        int[] calls = {0};
        CompletableFuture<String> result = executor.execute(ctx -> {
            time.advance(Duration.ofMillis(20));
            return ++calls[0] == 1
                    ? CompletableFuture.failedFuture(new RateLimitedException("429", Duration.ofSeconds(2)))
                    : CompletableFuture.completedFuture("ok");
        });
        time.advance(Duration.ofMillis(500));

        String paused = registry.scrape();
        assertThat(paused)
                .contains("adaptive_limiter_paused{app=\"shop\",name=\"orders\"} 1.0")
                .contains("adaptive_limiter_pause_remaining_seconds{app=\"shop\",name=\"orders\"} 1.5")
                .contains("adaptive_limiter_pauses_total{app=\"shop\",name=\"orders\"} 1.0")
                .contains("adaptive_limiter_limit{app=\"shop\",name=\"orders\"} 5.0")
                .contains("adaptive_limiter_limit_changes_total{app=\"shop\",direction=\"decrease\",name=\"orders\"} 1.0")
                .contains("adaptive_limiter_retries_total{app=\"shop\",cause=\"rate_limited\",name=\"orders\"} 1.0")
                .contains("adaptive_limiter_attempts_total{app=\"shop\",name=\"orders\",outcome=\"rate_limited\"} 1.0")
                .contains("adaptive_limiter_waiting{app=\"shop\",name=\"orders\"} 1.0");

        time.runUntilIdle();
        assertThat(result).isCompletedWithValue("ok");
        String after = registry.scrape();
        assertThat(after)
                .contains("adaptive_limiter_paused{app=\"shop\",name=\"orders\"} 0.0")
                .contains("adaptive_limiter_pause_remaining_seconds{app=\"shop\",name=\"orders\"} 0.0")
                .contains("adaptive_limiter_attempts_total{app=\"shop\",name=\"orders\",outcome=\"success\"} 1.0")
                .contains("adaptive_limiter_attempt_rtt_seconds_count{app=\"shop\",name=\"orders\",outcome=\"success\"} 1")
                .contains("adaptive_limiter_attempt_rtt_seconds_sum{app=\"shop\",name=\"orders\",outcome=\"success\"} 0.02")
                .contains("adaptive_limiter_inflight{app=\"shop\",name=\"orders\"} 0.0");

        metrics.close();
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
        executor.execute(ctx -> CompletableFuture.completedFuture("after close"));
        time.runUntilIdle(); // the trace listener is gone: nothing left to feed
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void theScrapeShowsAnOutageWhileItHoldsDispatchToProbesAndCountsIt() {
        Limiter limiter = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        metrics.bindTo(registry);
        boolean[] down = {true};
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter)
                .retryPolicy(RetryPolicy.builder().retries(5).constant().minDelay(Duration.ofMillis(50)).noJitter().build())
                .build();
        List<CompletableFuture<String>> results = IntStream.range(0, 10).mapToObj(i -> executor.execute(ctx -> {
            CompletableFuture<String> f = new CompletableFuture<>();
            time.schedule(() -> {
                if (down[0]) {
                    f.completeExceptionally(new IllegalStateException("500"));
                } else {
                    f.complete("ok");
                }
            }, Duration.ofMillis(10));
            return f;
        })).toList();
        // Ten calls sent together fail at 10 ms: one look at the server. Their retries, sent at
        // 60 ms after those failures were read, fail too at 70 ms: that is an outage.
        time.advance(Duration.ofMillis(80));

        assertThat(registry.scrape())
                .contains("adaptive_limiter_outage{name=\"orders\"} 1.0")
                .contains("adaptive_limiter_outages_total{name=\"orders\"} 1.0");

        down[0] = false;
        time.runUntilIdle();
        assertThat(results).allSatisfy(r -> assertThat(r).isCompletedWithValue("ok"));
        assertThat(registry.scrape())
                .contains("adaptive_limiter_outage{name=\"orders\"} 0.0")
                .contains("adaptive_limiter_outages_total{name=\"orders\"} 1.0");
        metrics.close();
    }

    @Test
    void retriesTheBudgetRefusesAreCounted() {
        // No share of first attempts and a floor of 1 per second over 2 s: 2 retries sent; the
        // third is scheduled, refused when its backoff is over, and asked again after each of the
        // next backoffs until the item's 10 retries are spent: 8 refusals, all within the window.
        Limiter limiter = Limiter.builder().name("billing").time(time).limit(FixedLimit.of(4))
                .retryBudget(new RetryBudget(0, 1, Duration.ofSeconds(2))).build();
        LimiterMetrics.builder(limiter).build().bindTo(registry);
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).retryPolicy(RetryPolicy.builder().retries(10)
                .constant().minDelay(Duration.ofMillis(10)).noJitter().build()).build();
        CompletableFuture<String> result = executor.execute(ctx -> CompletableFuture.failedFuture(
                new IllegalStateException("500")));
        time.runUntilIdle();

        assertThat(result).isCompletedExceptionally();
        assertThat(registry.scrape())
                .contains("adaptive_limiter_retries_total{cause=\"error\",name=\"billing\"} 3.0")
                .contains("adaptive_limiter_retries_refused_total{name=\"billing\"} 8.0")
                .contains("adaptive_limiter_quota_holds_total{name=\"billing\"} 0.0");
    }

    @Test
    void shedCountsATryAcquireRefusedDuringAPauseAsItsDescriptionSays() {
        Limiter limiter = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        try (LimiterMetrics metrics = LimiterMetrics.bind(limiter, registry)) {
            limiter.pauseFor(Duration.ofSeconds(1));
            assertThat(limiter.tryAcquire()).isEmpty(); // ten free slots, but a Retry-After pause is open
            assertThat(limiter.inflight()).isZero();
            assertThat(registry.scrape())
                    .contains("adaptive_limiter_shed_total{name=\"orders\"} 1.0")
                    .containsPattern("# HELP adaptive_limiter_shed_total .*Retry-After pause");
        }
    }

    @Test
    void aQueueAndAGuardAreMeteredThroughTheirLimiters() {
        ThrottledQueue queue = ThrottledQueue.builder().name("exports").minRate(100).interval(Duration.ofSeconds(1))
                .time(time).build();
        ConcurrencyGuard guard = ConcurrencyGuard.builder().name("inbound").time(time).build();
        LimiterMetrics.builder(queue.limiter()).build().bindTo(registry);
        LimiterMetrics.builder(guard.limiter()).build().bindTo(registry);
        CompletableFuture<String> done = queue.submit(ctx -> CompletableFuture.completedFuture("ok"));
        GuardLease lease = guard.acquire();
        time.runUntilIdle();

        assertThat(done).isCompletedWithValue("ok");
        assertThat(registry.scrape())
                .contains("adaptive_limiter_attempts_total{name=\"exports\",outcome=\"success\"} 1.0")
                .contains("adaptive_limiter_inflight{name=\"inbound\"} 1.0");
        lease.release();
        assertThat(registry.scrape()).contains("adaptive_limiter_inflight{name=\"inbound\"} 0.0");
    }

    @Test
    void fleetGaugesCarryTheFleetKey() {
        Limiter limiter = Limiter.builder().name("billing").time(time).build();
        InMemoryCoordinator coordinator = new InMemoryCoordinator(time);
        FleetMember member = FleetMember.builder(limiter, coordinator).key("billing-api").nodeId("n1").join();
        time.advance(Duration.ofSeconds(2));
        try (LimiterMetrics m = LimiterMetrics.builder(limiter).fleet(member).attemptTimer(false).build()) {
            m.bindTo(registry);
            var s = member.stats();
            assertThat(s.liveNodes()).isEqualTo(1);
            assertThat(registry.scrape())
                    .contains("adaptive_fleet_ceiling{fleet=\"billing-api\",name=\"billing\"} "
                            + (double) s.globalCeiling())
                    .contains("adaptive_fleet_nodes{fleet=\"billing-api\",name=\"billing\"} 1.0")
                    .contains("adaptive_fleet_share{fleet=\"billing-api\",name=\"billing\"} " + (double) s.share())
                    .doesNotContain("adaptive_limiter_attempt_rtt");
        } finally {
            member.close();
        }
    }

    @Test
    void aSecondLimiterOfTheSameNameIsRefusedAndTheFirstKeepsItsMeters() {
        Limiter first = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        LimiterMetrics firstMetrics = LimiterMetrics.bind(first, registry);
        Limiter second = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(20)).build();
        LimiterMetrics secondMetrics = LimiterMetrics.builder(second).build();
        assertThatThrownBy(() -> secondMetrics.bindTo(registry)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("limiter named 'orders'").hasMessageContaining("two limiters share that name");
        secondMetrics.close(); // registered nothing: removes nothing
        assertThat(registry.scrape()).contains("adaptive_limiter_limit{name=\"orders\"} 10.0");
        // Under a name of its own, both are there.
        Limiter renamed = Limiter.builder().name("orders-b").time(time).limit(FixedLimit.of(30)).build();
        try (LimiterMetrics other = LimiterMetrics.bind(renamed, registry)) {
            assertThat(registry.scrape()).contains("adaptive_limiter_limit{name=\"orders-b\"} 30.0")
                    .contains("adaptive_limiter_limit{name=\"orders\"} 10.0");
        }
        firstMetrics.close();
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
    }

    @Test
    void bindingTwiceToOneRegistryRegistersOnceAndCountsEachAttemptOnce() {
        Limiter limiter = Limiter.builder().name("orders").time(time).limit(FixedLimit.of(10)).build();
        LimiterMetrics metrics = LimiterMetrics.builder(limiter).build();
        metrics.bindTo(registry);
        metrics.bindTo(registry);
        AdaptiveExecutor.builder(limiter).build().execute(ctx -> CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(registry.scrape())
                .contains("adaptive_limiter_attempts_total{name=\"orders\",outcome=\"success\"} 1.0")
                .contains("adaptive_limiter_attempt_rtt_seconds_count{name=\"orders\",outcome=\"success\"} 1\n");
        metrics.close();
        assertThat(registry.scrape()).doesNotContain("adaptive_limiter");
    }
}
