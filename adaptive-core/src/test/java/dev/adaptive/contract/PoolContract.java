package dev.adaptive.contract;

import dev.adaptive.LimiterClosedException;
import dev.adaptive.RateLimitedException;
import dev.adaptive.StopPoolException;
import dev.adaptive.TaskContext;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.contract.PoolFace.Input;
import dev.adaptive.contract.PoolFace.Run;
import dev.adaptive.contract.PoolFace.Setup;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.ItemError;
import dev.adaptive.pool.ItemResult;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.PoolAbortedException;
import dev.adaptive.pool.Settled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batch runner's contract, the same for every face: a subclass gives a {@link PoolFace}
 * (the plain Java pool in virtual time, the Vert.x pool on a real Vert.x) and inherits these
 * tests. Every accepted item ends once, as a result or an error with its attempts; stops
 * (a task's {@link StopPoolException}, a cancellation, the deadline, a closed limiter) end
 * every accepted item and cancel what runs; retries, task timeouts and Retry-After pauses; lazy
 * inputs pulled one per free slot, in memory bounded by the concurrency; processors and inputs
 * that break.
 */
public abstract class PoolContract {

    private static final Duration MS = Duration.ofMillis(1);

    /** The face under test, made afresh for each test. */
    protected PoolFace face;

    /** @return a new face for one test */
    protected abstract PoolFace newFace();

    @BeforeEach
    void makeFace() {
        face = newFace();
    }

    @AfterEach
    void closeFace() {
        face.close();
    }

    // ---- helpers -------------------------------------------------------------------------

    private static List<Integer> range(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    /** A lazy iterable (not a collection) over 0..n-1 that counts what was pulled. */
    private static final class Lazy implements Iterable<Integer> {
        final int n;
        final AtomicInteger pulled = new AtomicInteger();

        Lazy(int n) {
            this.n = n;
        }

        @Override
        public Iterator<Integer> iterator() {
            return new Iterator<>() {
                int next;

                @Override
                public boolean hasNext() {
                    return next < n;
                }

                @Override
                public Integer next() {
                    pulled.incrementAndGet();
                    return next++;
                }
            };
        }
    }

    /** Answers with {@code value} after {@code delay}, tracking how many answers are outstanding. */
    private final class Downstream {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();

        <R> CompletionStage<R> answer(Duration delay, R value, Throwable failure) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            CompletableFuture<R> f = new CompletableFuture<>();
            face.schedule(() -> {
                inside.decrementAndGet();
                if (failure != null) {
                    f.completeExceptionally(failure);
                } else {
                    f.complete(value);
                }
            }, delay);
            return f;
        }

        <R> CompletionStage<R> ok(Duration delay, R value) {
            return answer(delay, value, null);
        }

        <R> CompletionStage<R> fail(Duration delay, Throwable failure) {
            return answer(delay, null, failure);
        }
    }

    /** A task that never answers; counts the cancellations that fire, and keeps their reasons. */
    private static final class Hanging {
        final List<Throwable> reasons = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger started = new AtomicInteger();
        final CompletableFuture<Void> twoStarted = new CompletableFuture<>();

        <R> CompletionStage<R> hang(TaskContext ctx) {
            ctx.cancellation().onCancel(() -> reasons.add(ctx.cancellation().reason()));
            if (started.incrementAndGet() == 2) {
                twoStarted.complete(null);
            }
            return new CompletableFuture<>();
        }
    }

    private static <T, R> void assertEveryItemOnce(AdaptiveResult<T, R> r, List<T> items) {
        List<T> seen = new ArrayList<>();
        r.successes().forEach(s -> seen.add(s.item()));
        r.errors().forEach(e -> seen.add(e.item()));
        assertThat(seen).as("every item once, as a result or an error").containsExactlyInAnyOrderElementsOf(items);
        assertThat(r.stats().accepted()).isEqualTo(items.size());
        assertThat(r.stats().succeeded()).isEqualTo(r.successes().size());
        assertThat(r.stats().failed()).isEqualTo(r.errors().size());
    }

    private static void assertStoppedBy(PoolStats stats, PoolAbortedException.Reason reason) {
        assertThat(stats.stopCause()).get().extracting(PoolAbortedException::reason).isEqualTo(reason);
        assertThat(stats.completed()).isFalse();
    }

    // ---- every item ends once ------------------------------------------------------------

    @Test
    void everyItemEndsOnceWithItsAttempts() {
        List<Integer> items = range(200);
        Downstream down = new Downstream();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(4).retries(2), Input.of(items),
                (item, ctx) -> {
                    if (item % 7 == 0) {
                        return down.fail(MS, new IllegalStateException("bad " + item));
                    }
                    if (item % 5 == 0 && ctx.attempt() == 1) {
                        return down.fail(MS, new IllegalStateException("flaky " + item));
                    }
                    return down.ok(Duration.ofMillis(1 + item % 3), item * 2);
                });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertEveryItemOnce(r, items);
        assertThat(r.errors()).hasSize(29).allSatisfy(e -> {
            assertThat(e.item() % 7).isZero();
            assertThat(e.attempts()).as("1 + 2 retries").isEqualTo(3);
            assertThat(e.index()).as("index is the input position").isEqualTo(e.item().longValue());
            assertThat(e.error()).isInstanceOf(IllegalStateException.class).hasMessage("bad " + e.item());
        });
        assertThat(r.successes()).allSatisfy(s -> {
            assertThat(s.value()).isEqualTo(s.item() * 2);
            assertThat(s.index()).isEqualTo(s.item().longValue());
            assertThat(s.attempts()).isEqualTo(s.item() % 5 == 0 ? 2 : 1);
        });
        long attempts = r.successes().stream().mapToLong(ItemResult::attempts).sum()
                + r.errors().stream().mapToLong(ItemError::attempts).sum();
        assertThat(r.stats().totalAttempts()).isEqualTo(attempts);
        assertThat(r.stats().totalRetries()).isEqualTo(attempts - items.size());
        // 29 items fail 3 times; 34 (multiples of 5, not of 7) fail once.
        assertThat(r.stats().congestionEvents()).isEqualTo(29 * 3 + 34);
        assertThat(r.stats().completed()).isTrue();
        assertThat(down.maxInside.get()).as("calls at once").isLessThanOrEqualTo(4);
        assertThat(run.inflight()).isZero();
    }

    // ---- lazy inputs and memory ----------------------------------------------------------

    @Test
    void aLazyInputIsPulledOnlyWhenASlotIsFree() {
        AtomicInteger answered = new AtomicInteger();
        AtomicInteger maxAhead = new AtomicInteger();
        Lazy lazy = new Lazy(300);
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(4), Input.of(lazy), (item, ctx) -> {
            maxAhead.accumulateAndGet(lazy.pulled.get() - answered.get(), Math::max);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            face.schedule(() -> {
                answered.incrementAndGet();
                f.complete(item);
            }, MS);
            return f;
        });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(r.successes()).hasSize(300);
        assertThat(lazy.pulled).hasValue(300);
        assertThat(maxAhead.get()).as("items pulled and not answered").isLessThanOrEqualTo(4);
    }

    @Test
    void itemsWaitingForARetryCountAgainstThePendingBound() {
        // Every first attempt fails at once and waits 100 ms for its retry: its slot is free
        // meanwhile, but the item still counts, so intake stops at twice the limit.
        AtomicInteger ended = new AtomicInteger();
        AtomicInteger maxAhead = new AtomicInteger();
        Lazy lazy = new Lazy(60);
        Downstream down = new Downstream();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(
                Setup.fixed(3).retries(1).backoff(Duration.ofMillis(100)), Input.of(lazy), (item, ctx) -> {
                    maxAhead.accumulateAndGet(lazy.pulled.get() - ended.get(), Math::max);
                    if (ctx.attempt() == 1) {
                        return down.fail(MS, new IllegalStateException("transient " + item));
                    }
                    return down.ok(MS, item).whenComplete((v, e) -> ended.incrementAndGet());
                });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(r.successes()).hasSize(60).allSatisfy(s -> assertThat(s.attempts()).isEqualTo(2));
        // Plus one: every first attempt failing at once is an outage to the limiter (five drops and
        // no success), whose first probe takes one item beyond the bound; a later probe's success
        // ends it, and the next first attempts begin another.
        assertThat(maxAhead.get()).as("items accepted and not ended").isLessThanOrEqualTo(2 * 3 + 1);
        assertThat(r.stats().outages()).as("the run's stats count the outages").isPositive();
    }

    @Test
    void aHugeLazyInputRunsInBoundedMemory() {
        // Streaming, nothing kept: what bounds memory is the items accepted and not handed
        // over, at most twice the limit whatever the input's length.
        int n = 200_000;
        Lazy lazy = new Lazy(n);
        AtomicLong handedOver = new AtomicLong();
        AtomicLong maxAhead = new AtomicLong();
        BitSet seen = new BitSet(n);
        AtomicInteger twice = new AtomicInteger();
        Run<PoolStats> run = face.stream(Setup.fixed(8), Input.of(lazy), (item, ctx) -> {
            maxAhead.accumulateAndGet(lazy.pulled.get() - handedOver.get(), Math::max);
            if (item % 1_000 == 0) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                face.schedule(() -> f.complete(item), MS);
                return f;
            }
            return CompletableFuture.completedFuture(item);
        }, (Settled<Integer, Integer> settled) -> {
            int index = (int) settled.index();
            if (seen.get(index)) {
                twice.incrementAndGet();
            }
            seen.set(index);
            handedOver.incrementAndGet();
        });
        PoolStats stats = run.await();

        assertThat(stats.accepted()).isEqualTo(n);
        assertThat(stats.succeeded()).isEqualTo(n);
        assertThat(seen.cardinality()).isEqualTo(n);
        assertThat(twice).hasValue(0);
        assertThat(maxAhead.get()).as("items accepted and not handed over").isLessThanOrEqualTo(2 * 8);
    }

    // ---- stops -----------------------------------------------------------------------------

    @Test
    void aStopPoolExceptionStopsTheRunAndCancelsWhatRuns() {
        Lazy lazy = new Lazy(1_000);
        Hanging hanging = new Hanging();
        Downstream down = new Downstream();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(4).retries(3), Input.of(lazy),
                (item, ctx) -> {
                    if (item == 10) {
                        return down.fail(Duration.ofMillis(5), new StopPoolException("quota exhausted"));
                    }
                    return item < 10 ? CompletableFuture.completedFuture(item) : hanging.hang(ctx);
                });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(r.resultsInInputOrder()).isEqualTo(range(10));
        assertThat(r.errors()).filteredOn(e -> e.item() == 10).singleElement().satisfies(e -> {
            assertThat(e.error()).isInstanceOf(StopPoolException.class).hasMessage("quota exhausted");
            assertThat(e.attempts()).as("never retried").isEqualTo(1);
        });
        List<ItemError<Integer>> stopped = r.errors().stream().filter(e -> e.item() != 10).toList();
        assertThat(stopped).isNotEmpty().hasSize(hanging.started.get()).allSatisfy(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOfSatisfying(PoolAbortedException.class, stop -> {
                assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.STOPPED);
                assertThat(stop.getCause()).hasMessage("quota exhausted");
            });
        });
        assertThat(hanging.reasons).as("running calls cancelled").hasSize(hanging.started.get())
                .allSatisfy(reason -> assertThat(reason).isInstanceOf(PoolAbortedException.class));
        assertStoppedBy(r.stats(), PoolAbortedException.Reason.STOPPED);
        assertThat(r.stats().accepted()).as("a lazy input's unpulled items are not part of the run")
                .isEqualTo(lazy.pulled.get());
        assertThat(lazy.pulled.get()).isLessThanOrEqualTo(11 + 4);
        assertThat(run.inflight()).isZero();
    }

    @Test
    void aCancellationEndsEveryAcceptedItemAndCancelsWhatRuns() {
        List<Integer> items = range(20);
        Hanging hanging = new Hanging();
        CompletableFuture<Void> cancel = new CompletableFuture<>();
        IllegalStateException why = new IllegalStateException("user pressed stop");
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(2).cancel(cancel), Input.of(items),
                (item, ctx) -> hanging.hang(ctx));
        face.await(hanging.twoStarted);
        cancel.completeExceptionally(why);
        AdaptiveResult<Integer, Integer> r = run.await();

        assertEveryItemOnce(r, items);
        assertThat(r.errors()).hasSize(20).allSatisfy(e -> assertThat(e.error())
                .isInstanceOfSatisfying(PoolAbortedException.class, stop -> {
                    assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
                    assertThat(stop.getCause()).isSameAs(why);
                }));
        assertThat(r.errors()).filteredOn(e -> e.attempts() == 1).hasSize(2);
        assertThat(r.errors()).as("a collection is accepted whole: the rest end unstarted")
                .filteredOn(e -> e.attempts() == 0).hasSize(18);
        assertThat(hanging.started).hasValue(2);
        assertThat(hanging.reasons).hasSize(2).allSatisfy(reason -> assertThat(reason)
                .isInstanceOf(PoolAbortedException.class));
        assertStoppedBy(r.stats(), PoolAbortedException.Reason.CANCELLED);
        assertThat(run.inflight()).isZero();
    }

    @Test
    void theDeadlineEndsTheRunAndCancelsWhatRuns() {
        Lazy lazy = new Lazy(10);
        Hanging hanging = new Hanging();
        long start = face.nanoTime();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(2).deadline(Duration.ofMillis(200)),
                Input.of(lazy), (item, ctx) -> hanging.hang(ctx));
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(face.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(r.stats().elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThat(r.successes()).isEmpty();
        assertThat(r.errors()).hasSize(lazy.pulled.get()).allSatisfy(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOfSatisfying(PoolAbortedException.class,
                    stop -> assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.DEADLINE));
        });
        assertThat(hanging.reasons).hasSize(hanging.started.get()).hasSize(2);
        assertStoppedBy(r.stats(), PoolAbortedException.Reason.DEADLINE);
        assertThat(run.inflight()).isZero();
    }

    @Test
    void aClosedLimiterEndsTheRunAndItsRunningItems() {
        Lazy lazy = new Lazy(100);
        Hanging hanging = new Hanging();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(2), Input.of(lazy),
                (item, ctx) -> hanging.hang(ctx));
        face.await(hanging.twoStarted);
        run.closeLimiter();
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(lazy.pulled).as("a slot first, then the item: no third pulled").hasValue(2);
        assertThat(r.errors()).hasSize(2).allSatisfy(e -> {
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(e.error()).isInstanceOf(LimiterClosedException.class);
        });
        assertThat(hanging.reasons).hasSize(2);
        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.CANCELLED);
            assertThat(stop.getCause()).isInstanceOf(LimiterClosedException.class);
        });
        assertThat(run.inflight()).isZero();
    }

    // ---- retries, timeouts and pauses ------------------------------------------------------

    @Test
    void aRateLimitPausesEveryDispatchUntilItsRetryAfter() {
        List<Integer> items = range(12);
        Duration retryAfter = Duration.ofMillis(300);
        AtomicLong rateLimitedAt = new AtomicLong(-1);
        List<Long> startsAfterIt = Collections.synchronizedList(new ArrayList<>());
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(3), Input.of(items), (item, ctx) -> {
            if (rateLimitedAt.get() >= 0) {
                startsAfterIt.add(face.nanoTime());
            }
            CompletableFuture<Integer> f = new CompletableFuture<>();
            if (item == 0 && ctx.attempt() == 1) {
                face.schedule(() -> {
                    rateLimitedAt.set(face.nanoTime());
                    f.completeExceptionally(new RateLimitedException(retryAfter));
                }, Duration.ofMillis(5));
            } else {
                face.schedule(() -> f.complete(item), Duration.ofMillis(20));
            }
            return f;
        });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertEveryItemOnce(r, items);
        assertThat(r.errors()).as("the rate-limit budget, not retries (0), pays the retry").isEmpty();
        assertThat(r.successes()).filteredOn(s -> s.item() == 0).singleElement()
                .extracting(ItemResult::attempts).isEqualTo(2);
        assertThat(startsAfterIt).as("attempts after the 429").isNotEmpty()
                .allSatisfy(t -> assertThat(t - rateLimitedAt.get()).as("started inside the pause")
                        .isGreaterThanOrEqualTo(retryAfter.toNanos()));
        assertThat(r.stats().rateLimitEvents()).isEqualTo(1);
        assertThat(r.stats().congestionEvents()).isZero();
        assertThat(r.stats().totalRetries()).isEqualTo(1);
    }

    @Test
    void aTimedOutAttemptIsCancelledAndRetried() {
        List<Integer> items = range(3);
        List<Throwable> timeouts = Collections.synchronizedList(new ArrayList<>());
        Downstream down = new Downstream();
        Run<AdaptiveResult<Integer, Integer>> run = face.process(
                Setup.fixed(3).retries(1).taskTimeout(Duration.ofMillis(50)), Input.of(items), (item, ctx) -> {
                    if (item == 1 && ctx.attempt() == 1) {
                        ctx.cancellation().onCancel(() -> timeouts.add(ctx.cancellation().reason()));
                        return new CompletableFuture<>();
                    }
                    return down.ok(MS, item);
                });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertEveryItemOnce(r, items);
        assertThat(r.successes()).allSatisfy(s -> assertThat(s.attempts()).isEqualTo(s.item() == 1 ? 2 : 1));
        assertThat(timeouts).singleElement().isInstanceOf(TaskTimeoutException.class);
        assertThat(r.stats().congestionEvents()).isEqualTo(1);
        assertThat(run.inflight()).isZero();
    }

    // ---- what breaks -------------------------------------------------------------------------

    @Test
    void aProcessorThatThrowsOrReturnsNullFailsOnlyItsItem() {
        List<Integer> items = range(10);
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(2).retries(1), Input.of(items),
                (item, ctx) -> switch (item) {
                    case 2 -> throw new IllegalStateException("processor bug");
                    case 4 -> throw new LinkageError("processor broke badly");
                    case 6 -> null;
                    default -> CompletableFuture.completedFuture(item);
                });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertEveryItemOnce(r, items);
        assertThat(r.errors()).hasSize(3).allSatisfy(e -> assertThat(e.attempts()).isEqualTo(2));
        assertThat(r.errors()).filteredOn(e -> e.item() == 2).singleElement().extracting(ItemError::error)
                .isInstanceOf(IllegalStateException.class);
        assertThat(r.errors()).filteredOn(e -> e.item() == 4).singleElement().extracting(ItemError::error)
                .isInstanceOf(LinkageError.class);
        assertThat(r.errors()).filteredOn(e -> e.item() == 6).singleElement().extracting(ItemError::error)
                .isInstanceOf(NullPointerException.class);
        assertThat(r.successes()).hasSize(7).allSatisfy(s -> assertThat(s.attempts()).isEqualTo(1));
        assertThat(r.stats().completed()).isTrue();
        assertThat(run.inflight()).isZero();
    }

    @Test
    void anInputThatFailsEndsIntakeOnceTheTakenItemsFinish() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        Iterable<Integer> broken = () -> new Iterator<>() {
            int n;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Integer next() {
                if (n == 7) {
                    throw new IllegalStateException("disk gone");
                }
                return n++;
            }
        };
        Run<AdaptiveResult<Integer, Integer>> run = face.process(Setup.fixed(3), Input.of(broken), (item, ctx) -> {
            started.incrementAndGet();
            CompletableFuture<Integer> f = new CompletableFuture<>();
            face.schedule(() -> {
                answered.incrementAndGet();
                f.complete(item);
            }, Duration.ofMillis(5));
            return f;
        });
        AdaptiveResult<Integer, Integer> r = run.await();

        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.INPUT_FAILED);
            assertThat(stop.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("disk gone");
        });
        assertThat(r.resultsInInputOrder()).isEqualTo(range(7));
        assertThat(answered.get()).as("the items taken finished").isEqualTo(started.get()).isEqualTo(7);
    }

    @Test
    void anIterableWhoseIteratorThrowsIsAFailedInput() {
        Iterable<Integer> broken = () -> {
            throw new IllegalStateException("no iterator today");
        };
        AdaptiveResult<Integer, Integer> r = face.process(Setup.fixed(2), Input.of(broken),
                (Integer item, TaskContext ctx) -> CompletableFuture.completedFuture(item)).await();

        assertThat(r.stats().accepted()).isZero();
        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.INPUT_FAILED);
            assertThat(stop.getCause()).hasMessage("no iterator today");
        });
    }

    // ---- pushed inputs -----------------------------------------------------------------------

    @Test
    void aPushedInputIsAskedForOneItemPerFreeSlot() {
        List<Integer> items = range(100);
        PushedInput<Integer> pushed = new PushedInput<>(face, items, false, -1);
        Downstream down = new Downstream();
        AdaptiveResult<Integer, Integer> r = face.process(Setup.fixed(4), Input.pushed(pushed),
                (Integer item, TaskContext ctx) -> down.ok(MS, item)).await();

        assertEveryItemOnce(r, items);
        assertThat(pushed.maxDemand()).as("outstanding demand").isEqualTo(1);
        assertThat(down.maxInside.get()).isLessThanOrEqualTo(4);
    }

    @Test
    void itemsAPushedInputSendsUnaskedAreProcessedUnderTheLimit() {
        List<Integer> items = range(60);
        PushedInput<Integer> unruly = new PushedInput<>(face, items, true, -1);
        Downstream down = new Downstream();
        AdaptiveResult<Integer, Integer> r = face.process(Setup.fixed(3), Input.pushed(unruly),
                (Integer item, TaskContext ctx) -> down.ok(MS, item)).await();

        assertEveryItemOnce(r, items);
        assertThat(down.maxInside.get()).isLessThanOrEqualTo(3);
    }

    @Test
    void aPushedInputThatFailsEndsIntakeOnceTheTakenItemsFinish() {
        PushedInput<Integer> breaking = new PushedInput<>(face, range(30), false, 12);
        Downstream down = new Downstream();
        AdaptiveResult<Integer, Integer> r = face.process(Setup.fixed(3), Input.pushed(breaking),
                (Integer item, TaskContext ctx) -> down.ok(MS, item)).await();

        assertThat(r.resultsInInputOrder()).isEqualTo(range(12));
        assertThat(r.errors()).isEmpty();
        assertThat(r.stats().stopCause()).get().satisfies(stop -> {
            assertThat(stop.reason()).isEqualTo(PoolAbortedException.Reason.INPUT_FAILED);
            assertThat(stop.getCause()).hasMessageContaining("broke after 12 items");
        });
        assertThat(down.inside).hasValue(0);
    }
}
