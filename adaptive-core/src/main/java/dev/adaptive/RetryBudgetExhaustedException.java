package dev.adaptive;

/**
 * An item's retries were refused by its limiter's {@link dev.adaptive.retry.RetryBudget}: too
 * many retries for the first attempts of the window, as when the downstream fails as a whole. A
 * retry after a backoff that the budget refuses waits its next backoff and asks again while the
 * retry policy has retries left; the item ends with this error once they are spent (a retry
 * without a backoff, or after a rate limit, ends it at the first refusal). Its {@link #getCause()} is the failure of the
 * item's last attempt.
 */
public class RetryBudgetExhaustedException extends AdaptiveException {

    /**
     * @param message what the budget held
     * @param cause   the last attempt's failure
     */
    public RetryBudgetExhaustedException(String message, Throwable cause) {
        super(message, cause);
    }
}
