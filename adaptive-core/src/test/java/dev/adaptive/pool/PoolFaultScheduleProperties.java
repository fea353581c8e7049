package dev.adaptive.pool;

import dev.adaptive.RateLimitedException;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Limit;
import dev.adaptive.limit.Vegas;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pool under a random <em>fault schedule</em> in virtual time: the downstream goes through
 * phases (healthy, latency spike, error burst, 429 storm with random and hostile raw
 * {@code Retry-After} headers, black hole), tasks time out, the run is cancelled or hits its
 * deadline at a random instant, and someone pauses and resumes the run's limiter from outside.
 * After each run the invariants of docs/reliability.md hold and the stats agree with the trace.
 */
class PoolFaultScheduleProperties {

    /** Raw headers a hostile or buggy server may send; parsed against the epoch clock below. */
    private static final String[] HOSTILE_RETRY_AFTER = {
        "0", "1", "3", "-1", "-99999", "1.5", "1e3", "99999999999999999999", "9223372036854775807",
        "", "   ", "soon", "\u0661\u0662", "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
        "Thursday, 01-Jan-70 00:00:05 GMT", "Thu Jan  1 00:00:02 1970", "Thu, 01 Jan 1970 00:00:01 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT", "2", "600", "86400",
    };
    private static final Clock SERVER_CLOCK = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);
    private static final Duration MAX_RETRY_AFTER = Duration.ofMillis(1500);

    @Test
    void invariantsHoldUnderRandomFaultSchedules() {
        Property.forAll(200, Gen.longs(), PoolFaultScheduleProperties::check);
    }

    /** Seeds that once broke a run, kept as regression cases (see docs/reliability.md). */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {0L, 1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, 42L}) {
            check(seed);
        }
    }

    private static void check(long seed) {
        Random rnd = new Random(seed);
        VirtualPoolHarness h = new VirtualPoolHarness();
        int n = 1 + rnd.nextInt(120);
        int min = 1 + rnd.nextInt(3);
        int max = min + rnd.nextInt(10);
        int retries = rnd.nextInt(4);
        int rateLimitRetries = rnd.nextInt(5);
        FaultSchedule faults = FaultSchedule.random(rnd);

        ItemPool<Integer> pool = h.traced(ItemPool.of(IntStream.range(0, n).boxed().toArray(Integer[]::new)))
                .withAlgorithm(algorithm(rnd, min, max))
                .withRetryPolicy(RetryPolicy.builder().retries(retries).maxRateLimitRetries(rateLimitRetries)
                        .minDelay(Duration.ofMillis(20)).maxDelay(Duration.ofSeconds(1)).jitter(0.5)
                        .maxRetryAfter(MAX_RETRY_AFTER).random(rnd::nextDouble).build());
        boolean timeouts = rnd.nextInt(3) > 0;
        if (timeouts) {
            pool.withTaskTimeout(Duration.ofMillis(50 + rnd.nextInt(400)));
        } else {
            pool.withDeadline(Duration.ofMillis(2000 + rnd.nextInt(20_000)));
        }
        PoolRun<AdaptiveResult<Integer, Object>> run = pool.process(h.scripted((item, attempt) ->
                faults.reply(h.time.nanoTime(), item, rnd)));

        // Outside interference at random instants: pause/resume of the limiter, a cancellation.
        int pauses = rnd.nextInt(4);
        for (int i = 0; i < pauses; i++) {
            long at = rnd.nextInt(5000);
            long length = rnd.nextInt(2000);
            h.time.schedule(() -> run.limiter().pause(), Duration.ofMillis(at));
            h.time.schedule(() -> run.limiter().resume(), Duration.ofMillis(at + length));
        }
        if (rnd.nextInt(4) == 0) {
            h.time.schedule(run::cancel, Duration.ofMillis(rnd.nextInt(8000)));
        }

        AdaptiveResult<Integer, Object> r = h.finish(run);
        PoolStats s = r.stats();

        // 1. every accepted item ends exactly once (arrays: every item is accepted).
        Set<Long> seen = new HashSet<>();
        r.successes().forEach(x -> assertThat(seen.add(x.index())).as("duplicate %s", x).isTrue());
        r.errors().forEach(x -> assertThat(seen.add(x.index())).as("duplicate %s", x).isTrue());
        assertThat(s.accepted()).isEqualTo(n);
        assertThat(seen).containsExactlyInAnyOrderElementsOf(LongStream.range(0, n).boxed().toList());
        r.errors().forEach(x -> assertThat(x.error()).as("error entry has a cause").isNotNull());

        // 2. in flight 0 at idle (VirtualPoolHarness.finish), and nothing waits on the limiter.
        assertThat(run.limiter().waiting()).isZero();

        // 3. the limit stays within [min, max], as seen by every start and every change.
        assertThat(h.eventsOf(TraceEvent.ConcurrencyChange.class)).allSatisfy(c -> assertThat(c.to()).isBetween(min, max));
        assertThat(h.eventsOf(TraceEvent.TaskStart.class)).allSatisfy(t -> {
            assertThat(t.limit()).isBetween(min, max);
            assertThat(t.inflight()).isBetween(1, max);
        });
        assertThat(s.finalConcurrency()).isBetween(min, max);
        assertThat(s.maxConcurrencyReached()).isLessThanOrEqualTo(max);

        // 4. no attempt starts strictly inside an announced Retry-After window; every window capped.
        List<TraceEvent.RatePause> ratePauses = h.eventsOf(TraceEvent.RatePause.class);
        for (TraceEvent.TaskStart start : h.eventsOf(TraceEvent.TaskStart.class)) {
            for (TraceEvent.RatePause p : ratePauses) {
                assertThat(start.timeNanos() > p.timeNanos() && start.timeNanos() < p.untilNanos())
                        .as("attempt %s started inside pause %s", start, p).isFalse();
            }
        }
        ratePauses.forEach(p -> {
            assertThat(p.retryAfter()).isBetween(Duration.ZERO, MAX_RETRY_AFTER);
            assertThat(p.untilNanos() - p.timeNanos()).isLessThanOrEqualTo(MAX_RETRY_AFTER.toNanos());
        });

        // 5. while an outage lasts, attempts start one at a time: each once the one before it in
        // the outage has ended (at the same instant at the earliest: a release can grant the next
        // probe before its attempt's end is traced); the limiter counts each outage once.
        Map<String, Long> ends = new HashMap<>();
        h.eventsOf(TraceEvent.TaskEnd.class).forEach(e -> ends.put(e.index() + "/" + e.attempt(), e.timeNanos()));
        boolean outage = false;
        TraceEvent.TaskStart probe = null;
        int outages = 0;
        for (TraceEvent e : List.copyOf(h.events)) {
            if (e instanceof TraceEvent.Outage o) {
                outage = o.started();
                outages += o.started() ? 1 : 0;
                probe = null;
            } else if (outage && e instanceof TraceEvent.TaskStart t) {
                if (probe != null) {
                    // A probe without an end was cancelled by the run's stop, which frees its slot
                    // for a moment to a retry the stop cancels next.
                    Long end = ends.get(probe.index() + "/" + probe.attempt());
                    assertThat(end == null ? s.stopCause().isPresent() : end <= t.timeNanos())
                            .as("attempt %s started in an outage while the probe %s was out (ended at %s)", t, probe, end)
                            .isTrue();
                }
                probe = t;
            }
        }
        assertThat(run.limiter().stats().outages()).isEqualTo(outages);

        // 6. counters agree with the trace and with the per-item attempt counts.
        List<TraceEvent.TaskStart> starts = h.eventsOf(TraceEvent.TaskStart.class);
        assertThat(s.totalAttempts()).isEqualTo(starts.size()).isEqualTo(h.starts.size());
        long attempts = r.successes().stream().mapToLong(ItemResult::attempts).sum()
                + r.errors().stream().mapToLong(ItemError::attempts).sum();
        assertThat(attempts).isEqualTo(s.totalAttempts());
        // A Retry event announces a retry; a stop may come before it starts, so events >= retries.
        long started = r.successes().size() + r.errors().stream().filter(x -> x.attempts() > 0).count();
        assertThat(s.totalRetries()).isEqualTo(s.totalAttempts() - started)
                .isLessThanOrEqualTo(h.eventsOf(TraceEvent.Retry.class).size());
        if (s.completed()) {
            assertThat(s.totalRetries()).isEqualTo(h.eventsOf(TraceEvent.Retry.class).size());
        }
        assertThat(s.succeeded()).isEqualTo(r.successes().size());
        assertThat(s.failed()).isEqualTo(r.errors().size());
        long rateLimitedEnds = h.eventsOf(TraceEvent.TaskEnd.class).stream()
                .filter(e -> e.outcome() instanceof dev.adaptive.limit.Outcome.RateLimited).count();
        assertThat(s.rateLimitEvents()).isEqualTo(rateLimitedEnds);
        assertThat(h.eventsOf(TraceEvent.TaskEnd.class)).hasSizeLessThanOrEqualTo(starts.size());
        r.successes().forEach(x -> assertThat(x.attempts()).isBetween(1, 1 + retries + rateLimitRetries));
        r.errors().forEach(x -> assertThat(x.attempts()).isBetween(0, 1 + retries + rateLimitRetries));

        Property.collect("rate pauses", ratePauses.isEmpty() ? "none" : "some");
        Property.collect("outages", outages == 0 ? "none" : "some");
        Property.collect("ended by", s.stopCause().map(c -> c.reason().name()).orElse("input end"));
    }

    private static Limit algorithm(Random rnd, int min, int max) {
        int initial = min + rnd.nextInt(max - min + 1);
        return switch (rnd.nextInt(3)) {
            case 0 -> Vegas.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            case 1 -> Aimd.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
            default -> Gradient2.builder().initialLimit(initial).minLimit(min).maxLimit(max).build();
        };
    }

    /** The downstream's behaviour over time: consecutive phases of random kinds and lengths. */
    record FaultSchedule(long[] phaseEndsNanos, Phase[] phases) {

        enum Phase { HEALTHY, LATENCY_SPIKE, ERROR_BURST, RATE_LIMIT_STORM, BLACK_HOLE }

        static FaultSchedule random(Random rnd) {
            int count = 1 + rnd.nextInt(6);
            long[] ends = new long[count];
            Phase[] phases = new Phase[count];
            long t = 0;
            for (int i = 0; i < count; i++) {
                t += Duration.ofMillis(50 + rnd.nextInt(3000)).toNanos();
                ends[i] = t;
                phases[i] = Phase.values()[rnd.nextInt(Phase.values().length)];
            }
            return new FaultSchedule(ends, phases);
        }

        Phase at(long nanos) {
            for (int i = 0; i < phaseEndsNanos.length; i++) {
                if (nanos < phaseEndsNanos[i]) {
                    return phases[i];
                }
            }
            return Phase.HEALTHY; // the downstream always recovers, so a run without faults can finish
        }

        Reply reply(long nowNanos, Integer item, Random rnd) {
            return switch (at(nowNanos)) {
                case HEALTHY -> Reply.ok(1 + rnd.nextInt(40), item);
                case LATENCY_SPIKE -> Reply.ok(200 + rnd.nextInt(2000), item);
                case ERROR_BURST -> rnd.nextInt(5) == 0 ? Reply.ok(5, item)
                        : Reply.fail(1 + rnd.nextInt(20), new IllegalStateException("503 burst"));
                case RATE_LIMIT_STORM -> rnd.nextBoolean()
                        ? Reply.fail(1 + rnd.nextInt(5), new RateLimitedException("429",
                                HOSTILE_RETRY_AFTER[rnd.nextInt(HOSTILE_RETRY_AFTER.length)], SERVER_CLOCK))
                        : Reply.fail(1, new RateLimitedException(Duration.ofMillis(rnd.nextInt(5000))));
                case BLACK_HOLE -> rnd.nextInt(3) == 0 ? Reply.ok(10, item) : Reply.hang();
            };
        }
    }
}
