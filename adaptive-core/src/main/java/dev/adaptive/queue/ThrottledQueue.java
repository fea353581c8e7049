package dev.adaptive.queue;

import dev.adaptive.AsyncTask;

import java.util.concurrent.CompletableFuture;

/**
 * A queue that starts every submitted task, never dropping one, at a rate of between
 * {@code minRate} and {@code maxRate} starts per {@code interval}, for APIs that publish a rate
 * limit rather than a concurrency limit. The rate adapts to failures through a pure
 * {@link RateStrategy}; a rate-limited answer ({@link dev.adaptive.RateLimitedException}, or a
 * result classified {@link dev.adaptive.limit.Outcome.RateLimited}) holds the whole queue until its
 * Retry-After. Options and defaults: {@link ThrottledQueueBuilder}.
 *
 * <pre>{@code
 * ThrottledQueue queue = ThrottledQueue.builder()
 *         .minRate(5).maxRate(20).interval(Duration.ofSeconds(1))   // starts at 12 per second
 *         .retries(2).retryBackoff(Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(5)))
 *         .build();
 * CompletableFuture<String> body = queue.submit(ctx -> client.sendAsync(request, ofString())
 *         .thenApply(HttpResponse::body));
 * queue.awaitIdle().join();
 * }</pre>
 *
 * <p><b>Tasks.</b> A task is an {@link AsyncTask}: called once per attempt with a
 * {@link dev.adaptive.TaskContext} (submission index, attempt number from 1, and the attempt's
 * cancellation signal, which fires when the attempt runs past {@code taskTimeout} or on
 * {@link #abort()}), it must not block. An attempt fails if the task throws (anything, a
 * {@link StackOverflowError} included: the task was accepted, so its future ends with the error,
 * and the queue goes on), returns {@code null}, its stage fails, its value is classified as a
 * failure by the {@code classifier} (by default every value is a success), or it runs past
 * {@code taskTimeout} (default none): then it fails with
 * {@link dev.adaptive.TaskTimeoutException} at once, freeing its slot, and whatever the task
 * does later is ignored. Tasks are called on the thread that made them startable: a
 * submitter, the scheduler's thread, or the thread that completed another task.
 *
 * <p><b>Lifecycle.</b>
 * <table>
 *   <caption>call × state → next state</caption>
 *   <tr><th></th><th>RUNNING</th><th>PAUSED</th><th>STOPPED</th><th>ABORTED</th></tr>
 *   <tr><td>submit</td><td>accepted</td><td>accepted, pending</td><td>accepted, RUNNING</td><td>failed future</td></tr>
 *   <tr><td>pause</td><td>PAUSED</td><td>-</td><td>-</td><td>-</td></tr>
 *   <tr><td>resume</td><td>-</td><td>RUNNING</td><td>RUNNING</td><td>-</td></tr>
 *   <tr><td>stop</td><td>STOPPED</td><td>STOPPED</td><td>-</td><td>-</td></tr>
 *   <tr><td>abort</td><td>ABORTED</td><td>ABORTED</td><td>ABORTED</td><td>-</td></tr>
 * </table>
 * While PAUSED or STOPPED nothing starts; running tasks finish and complete their futures,
 * and their outcomes count in {@link #state()} but do not move the rate; a failed attempt that
 * is to be retried waits with its whole backoff delay frozen, and delayed retries freeze what
 * remains of theirs, until the queue runs again. STOPPED also clears every timer but the task
 * timeouts of attempts still running (a stopped queue schedules nothing else). Going back to
 * RUNNING gives fresh pacing (the first start may go at once) and a fresh observation window,
 * and ends a back-off; a Retry-After pause, the server's word, still holds until its deadline.
 * ABORTED fails every pending, delayed and running task with {@link QueueAbortedException},
 * fires the running attempts' cancellation signals, and ignores later settlements: they change
 * no counter and create no retry.
 *
 * <p><b>Rejection.</b> With {@code maxQueueSize} reached, {@link #submit} does not throw: it
 * returns a future already failed with {@link dev.adaptive.RejectedException}, so callers
 * handle refusal where they handle every other failure. The same goes for a submit after an
 * abort ({@link QueueAbortedException}).
 *
 * <p><b>Retries</b> follow the engine's signal contract: errors and task timeouts use
 * {@code retries} with {@code retryBackoff} if the {@code retryClassifier} agrees; rate-limited answers use their own
 * budget ({@code maxRateLimitRetries}) and wait out the Retry-After (capped by
 * {@code maxRetryAfter}); a {@link dev.adaptive.StopPoolException} is never retried and aborts
 * the queue. Every retry also asks the queue's retry budget
 * ({@link ThrottledQueueBuilder#retryBudget}, by default {@link dev.adaptive.retry.RetryBudget#defaults()}),
 * which caps retries as a share of first attempts. A retry goes before fresh tasks and is paced
 * like any start.
 *
 * <p><b>Engine.</b> The queue is the engine's {@link dev.adaptive.Limiter} and
 * {@link dev.adaptive.AdaptiveExecutor} with its rate as the limiter's
 * {@link dev.adaptive.AdmissionGate}: every task waits for its lease in the limiter's queue
 * (retries ahead of fresh tasks), the gate admits each start when the pacing, the back-off,
 * the observation window and the lifecycle allow, the limiter's limit is the concurrency bound
 * and its Retry-After pause the queue's, and the executor carries out retries, task timeouts
 * and classification as it does for the pool and the Camel and Vert.x faces.
 *
 * <p>Thread-safe: every method may be called from any thread, and the queue holds no thread of
 * its own; it waits only through its {@link dev.adaptive.time.Scheduler}.
 */
public final class ThrottledQueue {

    private final QueueCore core;

    ThrottledQueue(QueueConfig config) {
        this.core = new QueueCore(config);
    }

    /** @return a builder; {@code minRate} and {@code interval} are required */
    public static ThrottledQueueBuilder builder() {
        return new ThrottledQueueBuilder();
    }

    /**
     * The limiter the queue's attempts run through, named as the queue: for its stats, trace
     * listeners and meters (bind it with {@code adaptive-micrometer}'s {@code LimiterMetrics}).
     * Acquiring leases from it directly takes slots from the queue's own work.
     *
     * @return the queue's limiter
     */
    public dev.adaptive.Limiter limiter() {
        return core.limiter();
    }

    /**
     * Accepts a task; it runs when pacing, the concurrency bounds and the lifecycle allow.
     * Cancelling the returned future withdraws the task if it has not started, and stops its
     * retries if it has (a running attempt is not interrupted).
     *
     * @param task the task
     * @param <R>  its result type
     * @return its result: the value of its first successful attempt, or the failure of its
     *         last; already failed with {@link dev.adaptive.RejectedException} if the queue is
     *         full, or with {@link QueueAbortedException} if it was aborted. A submit to a
     *         stopped queue restarts it; if the ticker throws when read for that, the future is
     *         already failed with what it threw, the task not accepted and the queue unchanged
     */
    public <R> CompletableFuture<R> submit(AsyncTask<R> task) {
        return core.submit(task);
    }

    /**
     * Holds every start until {@link #resume()}; does nothing unless running. If the ticker throws
     * when read for it, this throws what it threw and nothing is changed.
     */
    public void pause() {
        core.pause();
    }

    /**
     * Runs again after {@link #pause()} or {@link #stop()}, or after a halt; does nothing otherwise.
     * If the ticker throws when read for it, this throws what it threw and nothing is changed.
     */
    public void resume() {
        core.resume();
    }

    /**
     * Clears every timer and keeps all work; the next submit or resume restarts. Does nothing once
     * stopped or aborted. If the ticker throws when read for it, this throws what it threw and
     * nothing is changed.
     */
    public void stop() {
        core.stop();
    }

    /** Terminal: fails all unfinished work with {@link QueueAbortedException} and signals running tasks. Idempotent. */
    public void abort() {
        core.abort();
    }

    /**
     * @return a future that completes when nothing is pending, running or waiting to retry
     *         (at once if that is so now). A failed attempt about to be retried is never
     *         idle. While the queue is halted by its {@link RateStrategy}, it fails with
     *         the {@link RateStrategyException}; while paused or stopped with work left, it
     *         waits. After {@link #abort()} it completes normally
     */
    public CompletableFuture<Void> awaitIdle() {
        return core.awaitIdle();
    }

    /**
     * An immutable, consistent snapshot. Never throws: if the ticker throws when read to tell
     * whether a back-off or a Retry-After pause still holds, the failure is counted in the
     * returned {@link QueueState#limitFailures()}, and {@link QueueState#holdUntilNanos()} shows
     * each hold not yet seen to end to its end (at most the whole wait, as
     * {@link dev.adaptive.Limiter#stats()} shows an open pause without a reading).
     *
     * @return the snapshot
     */
    public QueueState state() {
        return core.state();
    }

    /** @return tasks waiting to start (fresh ones and retries whose delay is over) */
    public int pending() {
        return core.pending();
    }

    /** @return the current rate, in starts per interval */
    public int rate() {
        return core.rate();
    }

    /** @return the name given at build time */
    public String name() {
        return core.config().name();
    }

    @Override
    public String toString() {
        return "ThrottledQueue[" + name() + ", " + state() + "]";
    }
}
