package dev.adaptive;

import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.logging.CapturingLoggerFinder;
import dev.adaptive.logging.CapturingLoggerFinder.Line;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceEvent;
import dev.adaptive.trace.TraceListener;
import org.junit.jupiter.api.Test;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** The figures, events and log lines an operator reads a limiter by. */
class LimiterObservabilityTest {

    private final VirtualTime time = new VirtualTime();

    @Test
    void countsAttemptsByOutcomeAndShedAcquisitions() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(1)).maxQueueSize(0).time(time).build();
        limiter.tryAcquire().orElseThrow().release(Outcome.SUCCESS);
        limiter.tryAcquire().orElseThrow().release(Outcome.SUCCESS);
        limiter.tryAcquire().orElseThrow().release(Outcome.DROPPED);
        limiter.tryAcquire().orElseThrow().release(Outcome.IGNORED);
        Lease held = limiter.tryAcquire().orElseThrow();
        assertThat(limiter.tryAcquire()).isEmpty();
        assertThat(limiter.acquire()).isCompletedExceptionally();
        held.release(Outcome.rateLimited(Duration.ZERO));
        limiter.pause(); // a lifecycle refusal is not load shed
        assertThat(limiter.tryAcquire()).isEmpty();

        LimiterStats s = limiter.stats();
        assertThat(s.successes()).isEqualTo(2);
        assertThat(s.congestionEvents()).isEqualTo(1);
        assertThat(s.ignored()).isEqualTo(1);
        assertThat(s.rateLimitEvents()).isEqualTo(1);
        assertThat(s.attempts()).isEqualTo(5);
        assertThat(s.shed()).isEqualTo(2);
    }

    @Test
    void countsLimitIncreasesAndDecreases() {
        Limiter limiter = Limiter.builder().time(time)
                .limit(Aimd.builder().initialLimit(10).minLimit(1).maxLimit(100).build()).build();
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ZERO));
        int afterDrop = limiter.limit();
        assertThat(afterDrop).isLessThan(10);
        for (int i = 0; i < 200 && limiter.limit() <= afterDrop; i++) {
            List<Lease> full = new ArrayList<>(); // at the limit: an application-limited sample does not raise it
            for (var l = limiter.tryAcquire(); l.isPresent(); l = limiter.tryAcquire()) {
                full.add(l.get());
            }
            time.advance(Duration.ofMillis(10));
            full.forEach(l -> l.release(Outcome.SUCCESS));
        }
        assertThat(limiter.limit()).isGreaterThan(afterDrop);
        LimiterStats s = limiter.stats();
        assertThat(s.limitDecreases()).isEqualTo(1);
        assertThat(s.limitIncreases()).isPositive();
    }

    @Test
    void countsPausesOpenedAndShowsTheRemainingPauseAndTheLastRetryAfter() {
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(5)).maxRetryAfter(Duration.ofSeconds(30))
                .time(time).build();
        assertThat(limiter.stats().remainingPause()).isZero();
        assertThat(limiter.stats().lastRetryAfter()).isZero();
        limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(2)));
        limiter.pauseFor(Duration.ofSeconds(3)); // extends the open pause: not a new one
        time.advance(Duration.ofSeconds(1));
        LimiterStats open = limiter.stats();
        assertThat(open.pausesOpened()).isEqualTo(1);
        assertThat(open.remainingPause()).isEqualTo(Duration.ofSeconds(2));
        assertThat(limiter.remainingPause()).isEqualTo(Duration.ofSeconds(2));
        assertThat(open.lastRetryAfter()).isEqualTo(Duration.ofSeconds(3));
        time.advance(Duration.ofSeconds(2));
        assertThat(limiter.stats().remainingPause()).isZero();
        limiter.pauseFor(Duration.ofHours(1));
        assertThat(limiter.stats().pausesOpened()).isEqualTo(2);
        assertThat(limiter.stats().remainingPause()).isEqualTo(Duration.ofSeconds(30));
        assertThat(limiter.stats().lastRetryAfter()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void countsRetriesByCause() {
        Limiter limiter = Limiter.builder().name("retries").limit(FixedLimit.of(1)).time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).taskTimeout(Duration.ofSeconds(1))
                .retryPolicy(RetryPolicy.builder().retries(5).constant().minDelay(Duration.ofMillis(10)).noJitter()
                        .build())
                .build();
        int[] calls = {0};
        CompletableFuture<String> result = executor.execute(ctx -> switch (++calls[0]) {
            case 1 -> CompletableFuture.failedFuture(new IllegalStateException("boom"));
            case 2 -> new CompletableFuture<>(); // times out
            case 3 -> CompletableFuture.failedFuture(new RateLimitedException("429", Duration.ofMillis(100)));
            case 4 -> CompletableFuture.failedFuture(new RateLimitedException("429", Duration.ZERO));
            default -> CompletableFuture.completedFuture("ok");
        });
        time.runUntilIdle();
        assertThat(result).isCompletedWithValue("ok");
        LimiterStats s = limiter.stats();
        assertThat(s.errorRetries()).isEqualTo(1);
        assertThat(s.timeoutRetries()).isEqualTo(1);
        assertThat(s.rateLimitRetries()).isEqualTo(2);
        assertThat(s.retries()).isEqualTo(4);
    }

    @Test
    void traceEventsNameTheirLimiterAndListenersMayBeAddedAndRemovedAtRunTime() {
        Limiter limiter = Limiter.builder().name("named").limit(Aimd.builder().initialLimit(4).build())
                .time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).build();
        List<TraceEvent> events = new ArrayList<>();
        TraceListener listener = events::add;
        limiter.addTraceListener(listener);
        int[] calls = {0};
        executor.execute(ctx -> ++calls[0] == 1
                ? CompletableFuture.failedFuture(new RateLimitedException("429", Duration.ofSeconds(1)))
                : CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(events).extracting(e -> e.getClass().getSimpleName())
                .contains("TaskStart", "TaskEnd", "Decision", "ConcurrencyChange", "Retry", "RatePause");
        assertThat(events).allSatisfy(e -> assertThat(e.limiter()).isEqualTo("named"));

        assertThat(limiter.removeTraceListener(listener)).isTrue();
        assertThat(limiter.removeTraceListener(listener)).isFalse();
        int seen = events.size();
        executor.execute(ctx -> CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(events).hasSize(seen);
    }

    @Test
    void onlyTheKindsSomeListenerWantsAreBuilt() {
        Limiter limiter = Limiter.builder().name("narrow").limit(Aimd.builder().initialLimit(4).build())
                .time(time).build();
        AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).build();
        List<TraceEvent> ends = new ArrayList<>();
        TraceListener endsOnly = new TraceListener() {
            @Override
            public void onEvent(TraceEvent event) {
                ends.add(event);
            }

            @Override
            public boolean accepts(Class<? extends TraceEvent> kind) {
                return kind == TraceEvent.TaskEnd.class;
            }
        };
        limiter.addTraceListener(endsOnly);
        int[] calls = {0};
        executor.execute(ctx -> ++calls[0] == 1
                ? CompletableFuture.failedFuture(new RateLimitedException("429", Duration.ofSeconds(1)))
                : CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(ends).hasSize(2).allSatisfy(e -> assertThat(e).isInstanceOf(TraceEvent.TaskEnd.class));

        List<TraceEvent> all = new ArrayList<>();
        limiter.addTraceListener(all::add); // wants every kind: now every kind is built, for both
        executor.execute(ctx -> CompletableFuture.completedFuture("ok"));
        time.runUntilIdle();
        assertThat(all).extracting(e -> e.getClass().getSimpleName()).contains("TaskStart", "TaskEnd", "Decision");
    }

    @Test
    void logsPausesOpenedAndClosedAndLimitChanges() {
        try (CapturingLoggerFinder.Capture log = CapturingLoggerFinder.capture("'logged-pause'")) {
            Limiter limiter = Limiter.builder().name("logged-pause").maxRetryAfter(Duration.ofSeconds(30))
                    .limit(Aimd.builder().initialLimit(10).build()).time(time).build();
            limiter.tryAcquire().orElseThrow().release(Outcome.rateLimited(Duration.ofSeconds(2)));
            limiter.tryAcquire(); // shed during the pause; nothing logged for it
            time.advance(Duration.ofSeconds(2));
            limiter.pauseFor(Duration.ofHours(1));

            List<Line> lines = log.lines();
            assertThat(lines).allSatisfy(l -> assertThat(l.logger()).isEqualTo("dev.adaptive.limiter"));
            assertThat(lines).filteredOn(l -> l.level() == Level.DEBUG).extracting(Line::message)
                    .containsExactly("limiter 'logged-pause': limit 10 -> 5 (rate-limit)");
            assertThat(lines).filteredOn(l -> l.level() == Level.INFO).extracting(Line::message).containsExactly(
                    "limiter 'logged-pause': Retry-After pause opened, dispatch held for PT2S (asked PT2S, not capped"
                            + " by maxRetryAfter=PT30S)",
                    "limiter 'logged-pause': Retry-After pause closed after PT2S, dispatch resumes with 0 waiting",
                    "limiter 'logged-pause': Retry-After pause opened, dispatch held for PT30S (asked PT1H, capped"
                            + " by maxRetryAfter=PT30S)");
        }
    }

    @Test
    void aThrowingCallbackIsLoggedAtWarningOncePerKindThenAtDebug() {
        try (CapturingLoggerFinder.Capture log = CapturingLoggerFinder.capture("'logged-failures'")) {
            Limiter limiter = Limiter.builder().name("logged-failures").limit(FixedLimit.of(2)).time(time)
                    .traceListener(e -> {
                        throw new IllegalStateException("trace bug");
                    })
                    .build();
            limiter.addRatePauseListener(p -> {
                throw new AssertionError("pause bug");
            });
            AdaptiveExecutor executor = AdaptiveExecutor.builder(limiter).classifier((v, e) -> {
                throw new IllegalArgumentException("classifier bug");
            }).build();
            for (int i = 0; i < 3; i++) {
                executor.execute(ctx -> CompletableFuture.completedFuture("ok"));
                limiter.pauseFor(Duration.ofSeconds(1 + i));
            }
            time.runUntilIdle();

            List<Line> warnings = log.lines().stream().filter(l -> l.level() == Level.WARNING).toList();
            assertThat(warnings).extracting(Line::message).containsExactlyInAnyOrder(
                    "limiter 'logged-failures': a trace listener threw; the engine goes on (this is logged once at"
                            + " WARNING, later ones at DEBUG)",
                    "limiter 'logged-failures': a rate-pause listener threw; the engine goes on (this is logged once"
                            + " at WARNING, later ones at DEBUG)",
                    "limiter 'logged-failures': an outcome classifier threw; the engine goes on (this is logged"
                            + " once at WARNING, later ones at DEBUG)");
            assertThat(warnings).extracting(l -> l.thrown().getMessage())
                    .containsExactlyInAnyOrder("trace bug", "pause bug", "classifier bug");
            assertThat(log.lines()).filteredOn(l -> l.level() == Level.DEBUG && l.message().contains("threw again"))
                    .isNotEmpty();
            LimiterStats s = limiter.stats();
            assertThat(s.classifierFailures()).isEqualTo(3);
            assertThat(s.listenerFailures()).isGreaterThanOrEqualTo(3 + 6);
        }
    }
}
