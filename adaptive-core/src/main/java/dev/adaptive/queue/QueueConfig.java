package dev.adaptive.queue;

import dev.adaptive.OutcomeClassifier;
import dev.adaptive.limit.Limit;
import dev.adaptive.retry.RetryBudget;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import dev.adaptive.trace.TraceListener;

import java.time.Duration;
import java.util.List;

/**
 * The validated, immutable options of one queue, as {@link ThrottledQueueBuilder#build()}
 * leaves them. {@code retryPolicy} carries retries, retryBackoff, the random source, the retry
 * classifier and the rate-limit budget; {@code concurrencyLimit} and {@code taskTimeout} are
 * {@code null} when none.
 */
record QueueConfig(String name, int minRate, int maxRate, Duration interval, boolean evenlySpaced,
                   int errorsPerInterval, boolean backOff, RetryPolicy retryPolicy, int concurrency,
                   Limit concurrencyLimit, int maxQueueSize, RateStrategy rateStrategy,
                   RateOutcomeClassifier rateOutcomeClassifier, AdjustmentTiming adjustmentTiming,
                   OutcomeClassifier classifier, RetryBudget retryBudget, List<RateChangeListener> rateListeners,
                   List<TraceListener> traceListeners, Duration taskTimeout, Ticker ticker, Scheduler scheduler) {

    QueueConfig {
        rateListeners = List.copyOf(rateListeners);
        traceListeners = List.copyOf(traceListeners);
    }

    long intervalNanos() {
        return interval.toNanos();
    }

    /** The midpoint of [minRate, maxRate], rounded down: where an adaptive rate starts. */
    int initialRate() {
        return minRate + (maxRate - minRate) / 2;
    }
}
