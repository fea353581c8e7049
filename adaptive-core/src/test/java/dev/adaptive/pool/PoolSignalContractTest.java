package dev.adaptive.pool;

import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.trace.TraceEvent;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static dev.adaptive.pool.VirtualPoolHarness.Reply;
import static dev.adaptive.pool.VirtualPoolHarness.ms;
import static dev.adaptive.pool.VirtualPoolHarness.noJitter;
import static org.assertj.core.api.Assertions.assertThat;

/** The signal contract (docs/core.md, "The signal contract"), row by row, at the level of a whole pool, in virtual time. */
class PoolSignalContractTest {

    private final VirtualPoolHarness h = new VirtualPoolHarness();

    @Test
    void successIsOneAttemptAndFreesTheSlotForTheNextItem() {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("a", "b", "c"))
                .withAlgorithm(FixedLimit.of(2))
                .process(h.scripted((item, attempt) -> Reply.ok(100, item.toUpperCase())));
        AdaptiveResult<String, Object> r = h.finish(run);

        assertThat(r.results()).containsExactly("A", "B", "C");
        assertThat(r.successes()).extracting(ItemResult::attempts).containsOnly(1);
        assertThat(r.errors()).isEmpty();
        assertThat(h.startTimesOf("a")).containsExactly(0L);
        assertThat(h.startTimesOf("b")).containsExactly(0L);
        assertThat(h.startTimesOf("c")).containsExactly(ms(100));
        PoolStats s = r.stats();
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(200));
        assertThat(s.totalAttempts()).isEqualTo(3);
        assertThat(s.totalRetries()).isZero();
        assertThat(s.congestionEvents()).isZero();
        assertThat(s.rateLimitEvents()).isZero();
        assertThat(s.accepted()).isEqualTo(3);
        assertThat(s.succeeded()).isEqualTo(3);
        assertThat(s.performanceData()).containsExactly(new ConcurrencySegment(2, Duration.ofMillis(200)));
        assertThat(s.completed()).isTrue();
        assertThat(r.allSucceeded()).isTrue();
    }

    @Test
    void rateLimitPausesTheWholePoolUntilRetryAfterAndDoesNotConsumeRetries() {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("a", "b", "c"))
                .withAlgorithm(FixedLimit.of(2))
                .withRetryPolicy(noJitter().retries(0).build())
                .process(h.scripted((item, attempt) -> item.equals("a") && attempt == 1
                        ? Reply.fail(10, new RateLimitedException(Duration.ofSeconds(1)))
                        : Reply.ok(10, item)));
        AdaptiveResult<String, Object> r = h.finish(run);

        // b finished at 10 ms inside the pause: its slot, and the queued c, waited until 1010 ms.
        assertThat(h.startTimesOf("a")).containsExactly(0L, ms(1010));
        assertThat(h.startTimesOf("b")).containsExactly(0L);
        assertThat(h.startTimesOf("c")).containsExactly(ms(1010));
        assertThat(r.results()).containsExactly("b", "c", "a");
        assertThat(r.successes()).filteredOn(s -> s.item().equals("a")).singleElement()
                .extracting(ItemResult::attempts).isEqualTo(2);
        PoolStats s = r.stats();
        assertThat(s.rateLimitEvents()).isEqualTo(1);
        assertThat(s.congestionEvents()).isZero();
        assertThat(s.totalRetries()).isEqualTo(1);
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(1020));
        assertThat(h.eventsOf(TraceEvent.RatePause.class)).singleElement().satisfies(p -> {
            assertThat(p.timeNanos()).isEqualTo(ms(10));
            assertThat(p.untilNanos()).isEqualTo(ms(1010));
            assertThat(p.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        });
        assertThat(h.eventsOf(TraceEvent.Retry.class)).singleElement().satisfies(rt -> {
            assertThat(rt.index()).isZero();
            assertThat(rt.attempt()).isEqualTo(1);
            assertThat(rt.rateLimited()).isTrue();
            assertThat(rt.delay()).isEqualTo(Duration.ofSeconds(1));
            assertThat(rt.readyAtNanos()).isEqualTo(ms(1010));
            assertThat(rt.cause()).isInstanceOf(RateLimitedException.class);
        });
    }

    @Test
    void rateLimitBudgetIsCappedByMaxRateLimitRetries() {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("a"))
                .withAlgorithm(FixedLimit.of(1))
                .withRetryPolicy(noJitter().retries(5).maxRateLimitRetries(2).build())
                .process(h.scripted((item, attempt) -> Reply.fail(10, new RateLimitedException(Duration.ofSeconds(1)))));
        AdaptiveResult<String, Object> r = h.finish(run);

        assertThat(h.startTimesOf("a")).containsExactly(0L, ms(1010), ms(2020));
        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.attempts()).isEqualTo(3);
            assertThat(e.error()).isInstanceOf(RateLimitedException.class);
            assertThat(e.item()).isEqualTo("a");
            assertThat(e.index()).isZero();
        });
        assertThat(r.stats().rateLimitEvents()).isEqualTo(3);
        assertThat(r.stats().totalRetries()).isEqualTo(2);
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofMillis(2030));
    }

    @Test
    void otherErrorsConsumeRetriesWithBackoffThenSucceedOrLandInErrors() {
        IllegalStateException last = new IllegalStateException("third");
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("flaky", "broken"))
                .withAlgorithm(FixedLimit.of(2))
                .withRetryPolicy(noJitter().retries(2).build())
                .process(h.scripted((item, attempt) -> item.equals("flaky")
                        ? (attempt < 3 ? Reply.fail(10, new IllegalStateException("try " + attempt)) : Reply.ok(10, "ok"))
                        : Reply.fail(10, attempt == 3 ? last : new IllegalStateException("again"))));
        AdaptiveResult<String, Object> r = h.finish(run);

        // attempt at 0 fails at 10; +100 ms -> 110, fails at 120; +200 ms -> 320
        assertThat(h.startTimesOf("flaky")).containsExactly(0L, ms(110), ms(320));
        assertThat(h.startTimesOf("broken")).containsExactly(0L, ms(110), ms(320));
        assertThat(r.successes()).singleElement().satisfies(s -> {
            assertThat(s.item()).isEqualTo("flaky");
            assertThat(s.attempts()).isEqualTo(3);
        });
        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.item()).isEqualTo("broken");
            assertThat(e.attempts()).isEqualTo(3);
            assertThat(e.error()).isSameAs(last);
        });
        assertThat(r.stats().congestionEvents()).isEqualTo(5);
        assertThat(r.stats().totalRetries()).isEqualTo(4);
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofMillis(330));
        assertThat(h.eventsOf(TraceEvent.Retry.class)).extracting(TraceEvent.Retry::delay)
                .containsExactly(Duration.ofMillis(100), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(200));
    }

    @Test
    void jitterSpreadsTheBackoffWithTheInjectedRandom() {
        // random() = 1.0 - tiny: the delay is stretched by almost the full jitter of 0.5
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("a"))
                .withAlgorithm(FixedLimit.of(1))
                .withRetryPolicy(noJitter().retries(1).jitter(0.5).random(() -> 0.0).build())
                .process(h.scripted((item, attempt) -> attempt == 1
                        ? Reply.fail(10, new IllegalStateException("x")) : Reply.ok(10, "ok")));
        h.finish(run);
        TraceEvent.Retry retry = h.eventsOf(TraceEvent.Retry.class).get(0);
        assertThat(h.startTimesOf("a")).containsExactly(0L, ms(10) + retry.delay().toNanos());
        assertThat(retry.delay()).isNotEqualTo(Duration.ofMillis(100));
    }

    @Test
    void taskTimeoutFiresTheCancellationCountsAsADropAndConsumesARetry() {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("slow"))
                .withAlgorithm(FixedLimit.of(1))
                .withTaskTimeout(Duration.ofMillis(200))
                .withRetryPolicy(noJitter().constant().retries(1).build())
                .process(h.scripted((item, attempt) -> Reply.hang()));
        AdaptiveResult<String, Object> r = h.finish(run);

        assertThat(h.startTimesOf("slow")).containsExactly(0L, ms(300));
        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.error()).isInstanceOf(TaskTimeoutException.class);
            assertThat(e.attempts()).isEqualTo(2);
        });
        assertThat(h.contexts).hasSize(2).allSatisfy(c -> {
            assertThat(c.cancellation().isCancelled()).isTrue();
            assertThat(c.cancellation().reason()).isInstanceOf(TaskTimeoutException.class);
        });
        assertThat(r.stats().congestionEvents()).isEqualTo(2);
        assertThat(r.stats().elapsed()).isEqualTo(Duration.ofMillis(500));
        assertThat(h.eventsOf(TraceEvent.TaskEnd.class)).extracting(TraceEvent.TaskEnd::outcome)
                .containsExactly(Outcome.DROPPED, Outcome.DROPPED);
    }

    @Test
    void ignoredOutcomeGivesNoSampleAndIsRetriedOnlyIfTheRetryClassifierSaysSo() {
        PoolRun<AdaptiveResult<String, Object>> run = h.traced(ItemPool.of("missing", "flaky"))
                .withAlgorithm(FixedLimit.of(2))
                .withClassifier((result, error) -> error instanceof IllegalArgumentException ? Outcome.IGNORED : null)
                .withRetryPolicy(noJitter().retries(3).retryOn(RetryClassifier.on(IllegalStateException.class)).build())
                .process(h.scripted((item, attempt) -> item.equals("missing")
                        ? Reply.fail(10, new IllegalArgumentException("404"))
                        : attempt == 1 ? Reply.fail(10, new IllegalStateException("503")) : Reply.ok(10, "ok")));
        AdaptiveResult<String, Object> r = h.finish(run);

        assertThat(r.errors()).singleElement().satisfies(e -> {
            assertThat(e.item()).isEqualTo("missing");
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOf(IllegalArgumentException.class);
        });
        assertThat(r.results()).containsExactly("ok");
        // Only flaky's first attempt (a drop) and its success were sampled; the 404 was not.
        assertThat(r.stats().congestionEvents()).isEqualTo(1);
        assertThat(h.eventsOf(TraceEvent.Decision.class)).hasSize(2)
                .noneMatch(d -> d.sample().outcome() instanceof Outcome.Ignored);
    }

    @Test
    void stopPoolExceptionStopsDispatchCancelsInFlightAndEndsTheRestAsErrors() {
        PoolRun<AdaptiveResult<Integer, Object>> run = h.traced(ItemPool.of(0, 1, 2, 3, 4, 5))
                .withAlgorithm(FixedLimit.of(2))
                .withRetryPolicy(noJitter().retries(3).build())
                .process(h.scripted((item, attempt) -> item == 1
                        ? Reply.fail(50, new StopPoolException("quota gone"))
                        : Reply.ok(100, item)));
        AdaptiveResult<Integer, Object> r = h.finish(run);

        assertThat(r.successes()).isEmpty();
        assertThat(r.errors()).hasSize(6);
        assertThat(r.errors()).filteredOn(e -> e.item() == 1).singleElement().satisfies(e -> {
            assertThat(e.error()).isInstanceOf(StopPoolException.class);
            assertThat(e.attempts()).isEqualTo(1);
        });
        assertThat(r.errors()).filteredOn(e -> e.item() == 0).singleElement().satisfies(e -> {
            assertThat(e.error()).isInstanceOfSatisfying(PoolAbortedException.class,
                    p -> assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.STOPPED));
            assertThat(e.attempts()).isEqualTo(1);
        });
        assertThat(r.errors()).filteredOn(e -> e.item() >= 2).hasSize(4)
                .allSatisfy(e -> assertThat(e.attempts()).isZero())
                .allSatisfy(e -> assertThat(e.error()).isInstanceOf(PoolAbortedException.class));
        // The slot item 1 freed was not given to item 2: dispatch stopped at once.
        assertThat(h.starts).extracting(VirtualPoolHarness.Start::item).containsExactly(0, 1);
        assertThat(h.contexts.get(0).cancellation().reason()).isInstanceOf(PoolAbortedException.class);
        PoolStats s = r.stats();
        assertThat(s.accepted()).isEqualTo(6);
        assertThat(s.failed()).isEqualTo(6);
        assertThat(s.elapsed()).isEqualTo(Duration.ofMillis(50));
        assertThat(s.stopCause()).get().satisfies(p -> {
            assertThat(p.reason()).isEqualTo(PoolAbortedException.Reason.STOPPED);
            assertThat(p.getCause()).isInstanceOf(StopPoolException.class).hasMessage("quota gone");
        });
        assertThat(h.eventsOf(TraceEvent.Retry.class)).isEmpty();
    }

    @Test
    void stopPoolExceptionThrownSynchronouslyStopsTooAndLeavesALazyInputUnpulled() {
        CountingIterator input = new CountingIterator(100);
        PoolRun<AdaptiveResult<Integer, Object>> run = ItemPool.of(input)
                .withVirtualTime(h.time)
                .withAlgorithm(FixedLimit.of(3))
                .process((item, ctx) -> {
                    if (item == 4) {
                        throw new StopPoolException("enough");
                    }
                    return h.scripted((Integer i, Integer a) -> Reply.ok(100, i)).process(item, ctx);
                });
        AdaptiveResult<Integer, Object> r = h.finish(run);

        // 0..2 start at 0 and answer at 100. 0's answer frees a slot for 3; 1's for 4, which
        // throws at once: dispatch stops and 5 is never pulled. 2's answer, due at the same
        // instant, still counts; 3 is cancelled.
        assertThat(input.pulled()).isEqualTo(5);
        assertThat(r.stats().accepted()).isEqualTo(5);
        assertThat(r.results()).containsExactly(0, 1, 2);
        assertThat(r.errors()).extracting(ItemError::item).containsExactlyInAnyOrder(3, 4);
        assertThat(r.errors()).filteredOn(e -> e.item() == 3).singleElement().satisfies(e -> {
            assertThat(e.error()).isInstanceOf(PoolAbortedException.class);
            assertThat(e.attempts()).isEqualTo(1);
        });
        assertThat(r.errors()).filteredOn(e -> e.item() == 4).singleElement()
                .extracting(ItemError::error).isInstanceOf(StopPoolException.class);
    }

    /** An iterator over 0..n-1 that counts how many items were pulled. */
    static final class CountingIterator implements java.util.Iterator<Integer> {
        private final int n;
        private int next;

        CountingIterator(int n) {
            this.n = n;
        }

        @Override
        public synchronized boolean hasNext() {
            return next < n;
        }

        @Override
        public synchronized Integer next() {
            if (next >= n) {
                throw new java.util.NoSuchElementException();
            }
            return next++;
        }

        synchronized int pulled() {
            return next;
        }
    }
}
