package dev.adaptive;

/**
 * An item's retry was refused by its limiter's {@link dev.adaptive.retry.RetryBudget}: too
 * many retries for the first attempts of the window, as when the downstream fails as a whole.
 * The item ends with this error; its {@link #getCause()} is the failure of its last attempt.
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
