package dev.adaptive.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * A cap on retries as a share of first attempts, shared by every retry of one limiter (after
 * errors, timeouts and rate-limit answers alike), so that a downstream that fails as a whole
 * does not receive every item's full retry count: with 1,000 items and 3 retries, an outage
 * would otherwise get 4,000 requests. Over a sliding {@link #window()}, a retry is allowed while
 * the retries in it stay below {@code ratio × first attempts in it + minPerSecond × window in
 * seconds}; the floor lets a client that sends little retry at all.
 *
 * <p>A retry after an error or a timeout asks the budget when its backoff is over, as it would be sent.
 * Refused, it counts as spent and the item waits its next backoff and asks again, so that an
 * item refused while the budget is spent (typically just after an outage, when every item that
 * failed in it wants its retry at once) still succeeds within its retry count once first attempts
 * have refilled the budget; once its retries are spent it ends with a
 * {@link dev.adaptive.RetryBudgetExhaustedException} caused by its last failure. A rate-limit
 * retry, and one without a backoff (a policy without delays), asks when it is decided; refused,
 * its item ends at once.
 *
 * <p>A {@link dev.adaptive.time.Ticker} that throws as the budget is asked does not decide for it:
 * the budget is asked as of the failed attempt's start, the latest reading the execution has (or
 * the newest time the budget has counted in, if later), and its answer holds. The throw is counted
 * in {@link dev.adaptive.LimiterStats#limitFailures()}. {@link #unlimited()} is not asked at all:
 * no reading is made for it.
 *
 * <p>Defaults ({@link #defaults()}): ratio {@value #DEFAULT_RATIO}, {@value #DEFAULT_MIN_PER_SECOND}
 * per second, a window of 10 s: the values of Finagle's and Linkerd's budgets. {@link #unlimited()}
 * refuses nothing.
 *
 * <p>Immutable value; the counting is the limiter's.
 *
 * @param ratio        retries allowed per first attempt in the window, {@code >= 0}; infinite for no budget
 * @param minPerSecond retries allowed per second of the window besides, {@code >= 0}
 * @param window       the sliding window, positive and at most one day
 */
public record RetryBudget(double ratio, double minPerSecond, Duration window) {

    /** The default share of first attempts that may be retried: 0.2. */
    public static final double DEFAULT_RATIO = 0.2;
    /** The default floor: 10 retries per second of the window. */
    public static final double DEFAULT_MIN_PER_SECOND = 10;
    /** The default window: 10 s. */
    public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);
    /** The longest window: one day. */
    public static final Duration MAX_WINDOW = Duration.ofDays(1);

    private static final RetryBudget DEFAULTS = new RetryBudget(DEFAULT_RATIO, DEFAULT_MIN_PER_SECOND, DEFAULT_WINDOW);
    private static final RetryBudget UNLIMITED = new RetryBudget(Double.POSITIVE_INFINITY, 0, DEFAULT_WINDOW);

    /**
     * Validates.
     *
     * @param ratio        retries per first attempt
     * @param minPerSecond the floor, per second
     * @param window       the window
     * @throws IllegalArgumentException naming the value out of range
     */
    public RetryBudget {
        if (!(ratio >= 0)) {
            throw new IllegalArgumentException("retryBudgetRatio must be >= 0: " + ratio);
        }
        if (!(minPerSecond >= 0) || Double.isInfinite(minPerSecond)) {
            throw new IllegalArgumentException("retryBudgetMinPerSecond must be a finite number >= 0: " + minPerSecond);
        }
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero() || window.compareTo(MAX_WINDOW) > 0) {
            throw new IllegalArgumentException("retryBudgetWindow must be positive and at most 1d: " + window);
        }
    }

    /** @return ratio 0.2, 10 per second, over 10 s */
    public static RetryBudget defaults() {
        return DEFAULTS;
    }

    /** @return a budget that allows every retry the retry policy allows */
    public static RetryBudget unlimited() {
        return UNLIMITED;
    }

    /** @return whether this budget refuses nothing */
    public boolean isUnlimited() {
        return Double.isInfinite(ratio);
    }
}
