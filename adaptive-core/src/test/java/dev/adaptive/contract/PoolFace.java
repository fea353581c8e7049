package dev.adaptive.contract;

import dev.adaptive.TaskContext;
import dev.adaptive.pool.AdaptiveResult;
import dev.adaptive.pool.PoolStats;
import dev.adaptive.pool.Settled;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * One face's pool, as {@link PoolContract} drives it: how a run is set up, started, awaited and
 * disturbed, and the face's time. The plain Java face runs in virtual time; the Vert.x face on a
 * real Vert.x, in real time, so the contract asserts only what holds in both (orders, counts,
 * lower bounds on waits), never exact durations.
 */
public abstract class PoolFace {

    private final Ticker ticker;
    private final Scheduler scheduler;

    /**
     * @param ticker    the face's clock: what its runs' tickers read
     * @param scheduler the face's waits: where a downstream's answers arrive
     */
    protected PoolFace(Ticker ticker, Scheduler scheduler) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** @return the face's clock in nanoseconds */
    public final long nanoTime() {
        return ticker.nanoTime();
    }

    /** Releases what the face made for its test (limiters); default nothing. */
    public void close() {
    }

    /**
     * Runs {@code task} after {@code delay} of the face's time, where a downstream's answer
     * would arrive (the run's context in Vert.x); a zero delay runs it soon, never on the
     * calling stack.
     *
     * @param task  what to run
     * @param delay how long from now
     */
    public final void schedule(Runnable task, Duration delay) {
        scheduler.schedule(task, delay);
    }

    /**
     * Lets the face's time run until {@code event} has happened.
     *
     * @param event completes when what the test waits for happened
     * @throws AssertionError if it never does
     */
    public abstract void await(CompletableFuture<?> event);

    /**
     * Starts a collecting run.
     *
     * @param setup the pool's options
     * @param input the items
     * @param task  the work per item
     * @param <T>   the item type
     * @param <R>   the result type
     * @return the running pool
     */
    public abstract <T, R> Run<AdaptiveResult<T, R>> process(Setup setup, Input<T> input, Task<T, R> task);

    /**
     * Starts a streaming run.
     *
     * @param setup  the pool's options
     * @param input  the items
     * @param task   the work per item
     * @param onItem receives each settled item
     * @param <T>    the item type
     * @param <R>    the result type
     * @return the running pool
     */
    public abstract <T, R> Run<PoolStats> stream(Setup setup, Input<T> input, Task<T, R> task,
                                                 Consumer<Settled<T, R>> onItem);

    /**
     * A running pool.
     *
     * @param <V> its outcome
     */
    public interface Run<V> {
        /** @return the outcome, once the run ended (the face's time runs meanwhile) */
        V await();

        /** Closes the run's limiter: Vert.x {@code AdaptiveLimiter.close()}, the core limiter's {@code abort()}. */
        void closeLimiter();

        /** @return calls the run's limiter has in flight now */
        int inflight();
    }

    /**
     * The work for one item, as both faces' processors wrap it: returns a stage, may throw an
     * unchecked exception or an {@link Error}, may return {@code null}.
     *
     * @param <T> the item type
     * @param <R> the result type
     */
    @FunctionalInterface
    public interface Task<T, R> {
        /**
         * @param item the item
         * @param ctx  its attempt's context
         * @return the attempt's answer
         */
        CompletionStage<R> run(T item, TaskContext ctx);
    }

    /**
     * What a run takes items from.
     *
     * @param <T> the item type
     */
    public sealed interface Input<T> permits Input.Items, Input.Pushed {
        /**
         * @param items an iterable; a {@link java.util.Collection} is accepted whole
         * @param <T>   the item type
         * @return the input
         */
        static <T> Input<T> of(Iterable<T> items) {
            return new Items<>(items);
        }

        /**
         * @param items a push input, as the face's stream type (a {@code Flow.Publisher}, a
         *              {@code ReadStream})
         * @param <T>   the item type
         * @return the input
         */
        static <T> Input<T> pushed(PushedInput<T> items) {
            return new Pushed<>(items);
        }

        /**
         * An iterable.
         *
         * @param items the items
         * @param <T>   the item type
         */
        record Items<T>(Iterable<T> items) implements Input<T> {
        }

        /**
         * A push input.
         *
         * @param items the items
         * @param <T>   the item type
         */
        record Pushed<T>(PushedInput<T> items) implements Input<T> {
        }
    }

    /**
     * A pool's options, in the terms both faces have: a fixed concurrency, the retry budgets
     * and backoff (no jitter), a task timeout, and what stops a run early.
     *
     * @param limit               the fixed concurrency
     * @param retries             the error budget
     * @param maxRateLimitRetries the rate-limit budget
     * @param backoff             the constant delay before a retry after an error
     * @param taskTimeout         per attempt, or {@code null}
     * @param deadline            per run, or {@code null}
     * @param cancel              cancels the run when it completes, or {@code null}
     */
    public record Setup(int limit, int retries, int maxRateLimitRetries, Duration backoff, Duration taskTimeout,
                 Duration deadline, CompletableFuture<?> cancel) {

        /**
         * @param limit the fixed concurrency
         * @return a setup: no retries, 10 rate-limit retries, a 1 ms backoff, nothing else
         */
        public static Setup fixed(int limit) {
            return new Setup(limit, 0, 10, Duration.ofMillis(1), null, null, null);
        }

        /** @param n the error budget @return a copy */
        public Setup retries(int n) {
            return new Setup(limit, n, maxRateLimitRetries, backoff, taskTimeout, deadline, cancel);
        }

        /** @param d the backoff @return a copy */
        public Setup backoff(Duration d) {
            return new Setup(limit, retries, maxRateLimitRetries, d, taskTimeout, deadline, cancel);
        }

        /** @param d the task timeout @return a copy */
        public Setup taskTimeout(Duration d) {
            return new Setup(limit, retries, maxRateLimitRetries, backoff, d, deadline, cancel);
        }

        /** @param d the deadline @return a copy */
        public Setup deadline(Duration d) {
            return new Setup(limit, retries, maxRateLimitRetries, backoff, taskTimeout, d, cancel);
        }

        /** @param trigger the cancellation @return a copy */
        public Setup cancel(CompletableFuture<?> trigger) {
            return new Setup(limit, retries, maxRateLimitRetries, backoff, taskTimeout, deadline,
                    Objects.requireNonNull(trigger));
        }
    }
}
