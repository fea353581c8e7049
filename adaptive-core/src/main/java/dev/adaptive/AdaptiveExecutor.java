package dev.adaptive;

import dev.adaptive.limit.Outcome;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.spi.Execution;
import dev.adaptive.spi.ExecutionHooks;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs asynchronous tasks through a {@link Limiter} with retries, task timeouts and outcome
 * classification: the one place where the signal contract is carried out, shared by the pool,
 * the Camel component and the Vert.x module.
 *
 * <p>Per task: wait for a lease (never blocking a thread), run the attempt, classify it,
 * release the lease with the outcome, then
 * <ul>
 *   <li>success: complete;</li>
 *   <li>a failure the retry policy's veto accepts ({@link RetryPolicy#abortIf()}, by default
 *       none): fail with it, no retry of any kind, whatever the budgets and the classifier
 *       say (the lease is still released with the attempt's own outcome, so a rate limit
 *       still pauses the limiter);</li>
 *   <li>rate-limited: the limiter is already paused until Retry-After; queue again on the
 *       rate-limit budget ({@link RetryPolicy#maxRateLimitRetries()}), not consuming
 *       {@code retries};</li>
 *   <li>other failure or task timeout (classified like any failure, {@link Outcome#DROPPED} by
 *       default): if the retry classifier agrees and {@code retries} remain, wait the backoff
 *       (with jitter) and queue again;</li>
 *   <li>{@link StopPoolException}: never retried;</li>
 *   <li>otherwise fail with the last cause.</li>
 * </ul>
 * A retry queues for its lease in arrival order, unless the runner's {@link ExecutionHooks}
 * put retries first.
 *
 * <p>A {@link dev.adaptive.time.Ticker} that throws (anything, an {@code Error} included) where
 * an attempt reads it does not stop the task: an attempt's end read for its
 * {@link dev.adaptive.trace.TraceEvent.TaskEnd} event, or a retry's time for its
 * {@link dev.adaptive.trace.TraceEvent.Retry} event, drops only that event, and the lease is
 * released and the task goes on (retried, or completed) as with a reading (the ticker is read
 * for these events only with a listener for them); the retry budget asked for a retry is asked
 * all the same, as of the failed attempt's start, the latest reading the execution has, and its
 * answer holds (only a refusal's {@link dev.adaptive.trace.TraceEvent.RetryRefused} event is
 * dropped). Each such throw is counted in {@link LimiterStats#limitFailures()}.
 *
 * <p>Thread-safe; holds no threads. Defaults: {@link RetryPolicy#defaults()}, no task timeout,
 * {@link OutcomeClassifier#defaults()}.
 */
public final class AdaptiveExecutor {

    private final Limiter limiter;
    private final RetryPolicy retryPolicy;
    private final Duration taskTimeout;
    private final OutcomeClassifier classifier;
    private final AtomicLong sequence = new AtomicLong();

    private AdaptiveExecutor(Builder b) {
        this.limiter = b.limiter;
        this.retryPolicy = b.retryPolicy;
        this.taskTimeout = b.taskTimeout;
        this.classifier = b.classifier;
    }

    /**
     * @param limiter the gate every attempt passes
     * @return a builder
     */
    public static Builder builder(Limiter limiter) {
        return new Builder(limiter);
    }

    /**
     * Runs a task with retries.
     *
     * @param task the task
     * @param <R>  its result type
     * @return its final result, or its last failure
     */
    public <R> CompletableFuture<R> execute(AsyncTask<R> task) {
        return start(sequence.getAndIncrement(), task, null).result();
    }

    /**
     * Starts a task and returns a handle on it, for runners that track attempts and cancel.
     *
     * @param index      the item's index, for the trace and the task context
     * @param task       the task
     * @param firstLease a lease already held for the first attempt, or {@code null} to acquire one
     * @param <R>        its result type
     * @return the running execution
     */
    public <R> Execution<R> start(long index, AsyncTask<R> task, Lease firstLease) {
        return start(index, task, firstLease, ExecutionHooks.NONE);
    }

    /**
     * Starts a task for a runner that follows its executions through {@link ExecutionHooks}.
     *
     * @param index      the item's index, for the trace and the task context
     * @param task       the task
     * @param firstLease a lease already held for the first attempt, or {@code null} to acquire one
     * @param hooks      told when the execution is over, and waits out its retry delays
     * @param <R>        its result type
     * @return the running execution
     */
    public <R> Execution<R> start(long index, AsyncTask<R> task, Lease firstLease, ExecutionHooks hooks) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(hooks, "hooks");
        ExecutionImpl<R> e = new ExecutionImpl<>(this, index, task, hooks);
        e.begin(firstLease);
        return e;
    }

    /** @return the limiter */
    public Limiter limiter() {
        return limiter;
    }

    /** @return the retry policy */
    public RetryPolicy retryPolicy() {
        return retryPolicy;
    }

    /** @return the task timeout, or {@code null} for none */
    public Duration taskTimeout() {
        return taskTimeout;
    }

    /** @return the classifier */
    public OutcomeClassifier classifier() {
        return classifier;
    }

    /**
     * Builds an {@link AdaptiveExecutor}. Not thread-safe.
     */
    public static final class Builder {
        private final Limiter limiter;
        private RetryPolicy retryPolicy = RetryPolicy.defaults();
        private Duration taskTimeout;
        private OutcomeClassifier classifier = OutcomeClassifier.defaults();

        private Builder(Limiter limiter) {
            this.limiter = Objects.requireNonNull(limiter, "limiter");
        }

        /**
         * @param policy retries and backoff; default {@link RetryPolicy#defaults()}
         * @return this
         */
        public Builder retryPolicy(RetryPolicy policy) {
            this.retryPolicy = Objects.requireNonNull(policy, "retryPolicy");
            return this;
        }

        /**
         * @param timeout per-attempt timeout, positive, or {@code null} for none (default)
         * @return this
         */
        public Builder taskTimeout(Duration timeout) {
            if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
                throw new IllegalArgumentException("taskTimeout must be positive: " + timeout);
            }
            this.taskTimeout = timeout;
            return this;
        }

        /**
         * @param classifier outcome classifier; default {@link OutcomeClassifier#defaults()}
         * @return this
         */
        public Builder classifier(OutcomeClassifier classifier) {
            this.classifier = Objects.requireNonNull(classifier, "classifier");
            return this;
        }

        /** @return the executor */
        public AdaptiveExecutor build() {
            return new AdaptiveExecutor(this);
        }
    }
}
