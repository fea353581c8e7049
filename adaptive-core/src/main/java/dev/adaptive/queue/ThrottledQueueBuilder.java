package dev.adaptive.queue;

import dev.adaptive.limit.Outcome;
import dev.adaptive.OutcomeClassifier;
import dev.adaptive.TaskTimeoutException;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.Backoff;
import dev.adaptive.retry.RetryAfter;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryClassifier;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Builds a {@link ThrottledQueue}. Setters take any value (objects must not be {@code null});
 * {@link #build()} checks them all and throws {@link IllegalArgumentException} naming the first
 * bad option and its value. Not thread-safe; {@code build()} copies every option, so a builder
 * may build several queues.
 *
 * <table>
 *   <caption>Options and defaults</caption>
 *   <tr><th>option</th><th>default</th></tr>
 *   <tr><td>{@link #minRate(int)}</td><td>required, at least 1</td></tr>
 *   <tr><td>{@link #maxRate(int)}</td><td>= minRate (a fixed rate)</td></tr>
 *   <tr><td>{@link #interval(Duration)}</td><td>required, positive</td></tr>
 *   <tr><td>{@link #evenlySpaced(boolean)}</td><td>true</td></tr>
 *   <tr><td>{@link #errorsPerInterval(int)}</td><td>5</td></tr>
 *   <tr><td>{@link #backOff(boolean)}</td><td>false</td></tr>
 *   <tr><td>{@link #retries(int)}</td><td>0</td></tr>
 *   <tr><td>{@link #retryBackoff(Backoff)}</td><td>none: a retry is ready at once</td></tr>
 *   <tr><td>{@link #random(DoubleSupplier)}</td><td>{@link ThreadLocalRandom}</td></tr>
 *   <tr><td>{@link #concurrency(int)}</td><td>unlimited</td></tr>
 *   <tr><td>{@link #concurrencyLimit(Limit)}</td><td>none</td></tr>
 *   <tr><td>{@link #maxQueueSize(int)}</td><td>unlimited</td></tr>
 *   <tr><td>{@link #rateStrategy(RateStrategy)}</td><td>{@link RateStrategy#linear()}</td></tr>
 *   <tr><td>{@link #rateOutcomeClassifier(RateOutcomeClassifier)}</td><td>every failure counts</td></tr>
 *   <tr><td>{@link #retryClassifier(RetryClassifier)}</td><td>retry all</td></tr>
 *   <tr><td>{@link #adjustmentTiming(AdjustmentTiming)}</td><td>{@link AdjustmentTiming#INTERVAL}</td></tr>
 *   <tr><td>{@link #onRateChange(RateChangeListener)}</td><td>none</td></tr>
 *   <tr><td>{@link #classifier(OutcomeClassifier)}</td><td>{@link OutcomeClassifier#defaults()}: a value is a success</td></tr>
 *   <tr><td>{@link #maxRateLimitRetries(int)}</td><td>10</td></tr>
 *   <tr><td>{@link #maxRetryAfter(Duration)}</td><td>10 minutes</td></tr>
 *   <tr><td>{@link #retryBudget(RetryBudget)}</td><td>{@link RetryBudget#defaults()}: ratio 0.2, 10 per second, 10 s window</td></tr>
 *   <tr><td>{@link #taskTimeout(Duration)}</td><td>none: an attempt may run forever</td></tr>
 *   <tr><td>{@link #traceListener(TraceListener)}</td><td>none</td></tr>
 *   <tr><td>{@link #ticker(Ticker)}, {@link #scheduler(Scheduler)}</td><td>system time</td></tr>
 * </table>
 */
public final class ThrottledQueueBuilder {

    /** The default of {@link #errorsPerInterval(int)}: 5. */
    public static final int DEFAULT_ERRORS_PER_INTERVAL = 5;
    /** The default of {@link #maxRateLimitRetries(int)}: 10. */
    public static final int DEFAULT_MAX_RATE_LIMIT_RETRIES = RetryPolicy.DEFAULT_MAX_RATE_LIMIT_RETRIES;

    private static final Backoff NO_BACKOFF = Backoff.constant(Duration.ZERO);
    private static final DoubleSupplier THREAD_LOCAL_RANDOM = () -> ThreadLocalRandom.current().nextDouble();

    private String name = "queue";
    private Integer minRate;
    private Integer maxRate;
    private Duration interval;
    private boolean evenlySpaced = true;
    private int errorsPerInterval = DEFAULT_ERRORS_PER_INTERVAL;
    private boolean backOff;
    private int retries;
    private Backoff retryBackoff = NO_BACKOFF;
    private DoubleSupplier random = THREAD_LOCAL_RANDOM;
    private int concurrency = Integer.MAX_VALUE;
    private Limit concurrencyLimit;
    private int maxQueueSize = Integer.MAX_VALUE;
    private RateStrategy rateStrategy = RateStrategy.linear();
    private RateOutcomeClassifier rateOutcomeClassifier = RateOutcomeClassifier.defaults();
    private RetryClassifier retryClassifier = RetryClassifier.all();
    private AdjustmentTiming adjustmentTiming = AdjustmentTiming.INTERVAL;
    private OutcomeClassifier classifier = OutcomeClassifier.defaults();
    private int maxRateLimitRetries = DEFAULT_MAX_RATE_LIMIT_RETRIES;
    private Duration maxRetryAfter = RetryAfter.DEFAULT_MAX;
    private RetryBudget retryBudget = RetryBudget.defaults();
    private Duration taskTimeout;
    private final List<RateChangeListener> rateListeners = new ArrayList<>();
    private final List<TraceListener> traceListeners = new ArrayList<>();
    private Ticker ticker = Ticker.system();
    private Scheduler scheduler = Scheduler.system();

    ThrottledQueueBuilder() {
    }

    /**
     * @param name used in messages and as the concurrency limiter's name; default {@code "queue"}
     * @return this
     */
    public ThrottledQueueBuilder name(String name) {
        this.name = Objects.requireNonNull(name, "name");
        return this;
    }

    /**
     * @param minRate the lowest rate, in starts per interval; required, at least 1
     * @return this
     */
    public ThrottledQueueBuilder minRate(int minRate) {
        this.minRate = minRate;
        return this;
    }

    /**
     * @param maxRate the highest rate; default {@code minRate}. Above {@code minRate}, the rate
     *                adapts, starting at the midpoint {@code minRate + (maxRate - minRate) / 2}
     * @return this
     */
    public ThrottledQueueBuilder maxRate(int maxRate) {
        this.maxRate = maxRate;
        return this;
    }

    /**
     * @param interval the period the rate counts starts in; required, positive
     * @return this
     */
    public ThrottledQueueBuilder interval(Duration interval) {
        this.interval = interval;
        return this;
    }

    /**
     * @param evenlySpaced {@code true} (default): starts go on a grid of slots
     *                     {@code interval / rate} apart (a start a timer delayed keeps the
     *                     grid); {@code false}: up to {@code rate} starts at once at the start
     *                     of each interval. Either way no window of one interval holds more
     *                     than {@code rate} starts
     * @return this
     */
    public ThrottledQueueBuilder evenlySpaced(boolean evenlySpaced) {
        this.evenlySpaced = evenlySpaced;
        return this;
    }

    /**
     * @param errorsPerInterval counted failures in one window that are "too many"; default 5, at least 1
     * @return this
     */
    public ThrottledQueueBuilder errorsPerInterval(int errorsPerInterval) {
        this.errorsPerInterval = errorsPerInterval;
        return this;
    }

    /**
     * @param backOff on a decision that says "too many errors", start nothing for one full interval; default false.
     *                A decision on an interval in which nothing started or settled (the back-off's own
     *                interval, say) never backs off again, so a strategy that always asks for it
     *                slows the queue but cannot stall it
     * @return this
     */
    public ThrottledQueueBuilder backOff(boolean backOff) {
        this.backOff = backOff;
        return this;
    }

    /**
     * @param retries retries of a failed task (rate-limit answers have their own budget); default 0, at least 0
     * @return this
     */
    public ThrottledQueueBuilder retries(int retries) {
        this.retries = retries;
        return this;
    }

    /**
     * @param retryBackoff the delay before the {@code i}-th retry (1-based): fixed
     *                     ({@link Backoff.Kind#CONSTANT}) = base, linear = base × i,
     *                     exponential = base × 2^(i−1); capped at maxDelay, then symmetric
     *                     jitter, capped again. Default: none, the retry is ready at once and
     *                     waits only for its slot
     * @return this
     */
    public ThrottledQueueBuilder retryBackoff(Backoff retryBackoff) {
        this.retryBackoff = Objects.requireNonNull(retryBackoff, "retryBackoff");
        return this;
    }

    /**
     * @param random the jitter source, uniform in [0, 1); one that throws or returns anything
     *               else means "no jitter" for that delay; default {@link ThreadLocalRandom}
     * @return this
     */
    public ThrottledQueueBuilder random(DoubleSupplier random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /**
     * @param concurrency the bound on attempts running at once; default unlimited, at least 1
     * @return this
     */
    public ThrottledQueueBuilder concurrency(int concurrency) {
        this.concurrency = concurrency;
        return this;
    }

    /**
     * An adaptive concurrency limit on top of the rate, for APIs that publish both: each start
     * also needs a lease from a {@link dev.adaptive.Limiter} running {@code limit}, which
     * learns from every attempt's RTT and outcome. Default none.
     *
     * @param limit the algorithm, for example {@link dev.adaptive.limit.Vegas#defaults()}
     * @return this
     */
    public ThrottledQueueBuilder concurrencyLimit(Limit limit) {
        this.concurrencyLimit = Objects.requireNonNull(limit, "concurrencyLimit");
        return this;
    }

    /**
     * @param maxQueueSize the bound on tasks accepted and not finished (pending, running,
     *                     waiting to retry); when reached, {@code submit} returns a future
     *                     failed with {@link dev.adaptive.RejectedException}. Default
     *                     unlimited, at least 1
     * @return this
     */
    public ThrottledQueueBuilder maxQueueSize(int maxQueueSize) {
        this.maxQueueSize = maxQueueSize;
        return this;
    }

    /**
     * @param rateStrategy the policy that moves the rate; default {@link RateStrategy#linear()}
     * @return this
     */
    public ThrottledQueueBuilder rateStrategy(RateStrategy rateStrategy) {
        this.rateStrategy = Objects.requireNonNull(rateStrategy, "rateStrategy");
        return this;
    }

    /**
     * @param classifier which failures lower the rate; default {@link RateOutcomeClassifier#defaults()}
     * @return this
     */
    public ThrottledQueueBuilder rateOutcomeClassifier(RateOutcomeClassifier classifier) {
        this.rateOutcomeClassifier = Objects.requireNonNull(classifier, "rateOutcomeClassifier");
        return this;
    }

    /**
     * @param classifier {@code (cause, attempt) -> boolean}: only {@code true} retries, within
     *                   the {@code retries} budget; one that throws means "retry". Default:
     *                   retry all. Rate-limit answers are retried on their own budget without
     *                   asking it
     * @return this
     */
    public ThrottledQueueBuilder retryClassifier(RetryClassifier classifier) {
        this.retryClassifier = Objects.requireNonNull(classifier, "retryClassifier");
        return this;
    }

    /**
     * @param timing when the rate strategy decides; default {@link AdjustmentTiming#INTERVAL}
     * @return this
     */
    public ThrottledQueueBuilder adjustmentTiming(AdjustmentTiming timing) {
        this.adjustmentTiming = Objects.requireNonNull(timing, "adjustmentTiming");
        return this;
    }

    /**
     * @param listener told of every applied rate change; may be called several times
     * @return this
     */
    public ThrottledQueueBuilder onRateChange(RateChangeListener listener) {
        rateListeners.add(Objects.requireNonNull(listener, "onRateChange"));
        return this;
    }

    /**
     * @param classifier maps an attempt's value or error to an {@link Outcome}, which also
     *                   decides failure: {@link Outcome#DROPPED} and
     *                   {@link Outcome.RateLimited} fail even with a value. {@code null} from
     *                   it, or an exception, means the default,
     *                   {@link OutcomeClassifier#defaults()}, the executor's: every value is a
     *                   success ({@code false} included: a value means what the task says it
     *                   means), a {@link dev.adaptive.RateLimitedException} is rate-limited,
     *                   any other error a drop
     * @return this
     */
    public ThrottledQueueBuilder classifier(OutcomeClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "classifier");
        return this;
    }

    /**
     * @param maxRateLimitRetries retries after rate-limit answers, apart from {@code retries}; default 10, at least 0
     * @return this
     */
    public ThrottledQueueBuilder maxRateLimitRetries(int maxRateLimitRetries) {
        this.maxRateLimitRetries = maxRateLimitRetries;
        return this;
    }

    /**
     * @param maxRetryAfter the cap on one Retry-After pause; default 10 minutes, positive
     * @return this
     */
    public ThrottledQueueBuilder maxRetryAfter(Duration maxRetryAfter) {
        this.maxRetryAfter = maxRetryAfter;
        return this;
    }

    /**
     * Caps the queue's retries, after errors, timeouts and rate limits alike, as a share of its
     * tasks' first attempts over a sliding window, so that a downstream that fails as a whole
     * does not get every task's full retry count. A retry after a backoff asks when its backoff
     * is over: refused, it counts as spent and waits its next backoff, and once the task's
     * {@code retries} are spent the task fails with a
     * {@link dev.adaptive.RetryBudgetExhaustedException} caused by its last failure; a
     * rate-limit retry, or one without a backoff, is refused at once and fails its task so.
     * Each refusal is counted in the {@link ThrottledQueue#limiter() limiter}'s
     * {@link dev.adaptive.LimiterStats#retriesRefused()}.
     *
     * @param retryBudget the cap on retries, shared by every retry of the queue (after errors
     *                    and rate limits alike); default {@link RetryBudget#defaults()};
     *                    {@link RetryBudget#unlimited()} for none
     * @return this
     */
    public ThrottledQueueBuilder retryBudget(RetryBudget retryBudget) {
        this.retryBudget = Objects.requireNonNull(retryBudget, "retryBudget");
        return this;
    }

    /**
     * Bounds each attempt, so that a task that never completes cannot hold a concurrency slot
     * and its future forever. When an attempt has run {@code taskTimeout} since it started,
     * the queue fires the attempt's {@link dev.adaptive.TaskContext#cancellation()} with a
     * {@link TaskTimeoutException} and fails the attempt with it, as any failure: the outcome
     * classifier sees it ({@link Outcome#DROPPED} by default), it counts against the rate as
     * the rate classifier says, and it is retried within {@code retries} if the retry
     * classifier agrees. Whatever the task does later is ignored. The timer keeps running
     * while the queue is paused or stopped, since the attempt does.
     *
     * @param taskTimeout the bound on one attempt, positive; {@code null} for none (default)
     * @return this
     */
    public ThrottledQueueBuilder taskTimeout(Duration taskTimeout) {
        this.taskTimeout = taskTimeout;
        return this;
    }

    /**
     * @param listener receives TaskStart, TaskEnd, Retry, RetryRefused and RatePause events (and the concurrency limiter's); may be called several times
     * @return this
     */
    public ThrottledQueueBuilder traceListener(TraceListener listener) {
        traceListeners.add(Objects.requireNonNull(listener, "traceListener"));
        return this;
    }

    /**
     * @param ticker the time source; default {@link Ticker#system()}
     * @return this
     */
    public ThrottledQueueBuilder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        return this;
    }

    /**
     * @param scheduler the waits; default {@link Scheduler#system()}
     * @return this
     */
    public ThrottledQueueBuilder scheduler(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        return this;
    }

    /**
     * Sets ticker and scheduler from one object, such as {@link dev.adaptive.time.VirtualTime}.
     *
     * @param time both
     * @param <T>  a ticker that is also a scheduler
     * @return this
     */
    public <T extends Ticker & Scheduler> ThrottledQueueBuilder time(T time) {
        return ticker(time).scheduler(time);
    }

    /**
     * @return a new queue, running
     * @throws IllegalArgumentException naming the first bad option and its value
     */
    public ThrottledQueue build() {
        if (minRate == null || minRate < 1) {
            throw new IllegalArgumentException("minRate must be a positive integer (required): " + minRate);
        }
        int max = maxRate == null ? minRate : maxRate;
        if (max < minRate) {
            throw new IllegalArgumentException("maxRate must be >= minRate (" + minRate + "): " + max);
        }
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be a positive duration (required): " + interval);
        }
        try {
            interval.toNanos();
        } catch (ArithmeticException tooLong) {
            throw new IllegalArgumentException("interval must fit in a long of nanoseconds: " + interval, tooLong);
        }
        if (errorsPerInterval < 1) {
            throw new IllegalArgumentException("errorsPerInterval must be >= 1: " + errorsPerInterval);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        if (maxQueueSize < 1) {
            throw new IllegalArgumentException("maxQueueSize must be >= 1: " + maxQueueSize);
        }
        if (maxRetryAfter == null) {
            throw new IllegalArgumentException("maxRetryAfter must be positive: null");
        }
        if (taskTimeout != null && (taskTimeout.isNegative() || taskTimeout.isZero())) {
            throw new IllegalArgumentException("taskTimeout must be a positive duration or null for none: "
                    + taskTimeout);
        }
        // RetryPolicy checks retries, maxRateLimitRetries and maxRetryAfter, naming each.
        RetryPolicy policy = RetryPolicy.builder()
                .retries(retries)
                .backoff(retryBackoff)
                .random(random)
                .retryOn(retryClassifier)
                .maxRateLimitRetries(maxRateLimitRetries)
                .maxRetryAfter(maxRetryAfter)
                .build();
        return new ThrottledQueue(new QueueConfig(name, minRate, max, interval, evenlySpaced, errorsPerInterval,
                backOff, policy, concurrency, concurrencyLimit, maxQueueSize, rateStrategy, rateOutcomeClassifier,
                adjustmentTiming, classifier, retryBudget, rateListeners, traceListeners, taskTimeout, ticker,
                scheduler));
    }
}
