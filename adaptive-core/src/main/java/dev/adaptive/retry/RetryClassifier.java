package dev.adaptive.retry;

/**
 * Decides whether a failed attempt is worth retrying. It says only "worth it or not"; the
 * retry budget is checked separately by the engine. The same shape serves as a retry policy's
 * veto ({@link RetryPolicy.Builder#abortIf}), where {@code true} means "end the task now":
 * {@link #on} then names the errors that abort.
 *
 * <p>Implementations must be thread-safe and should be fast and side-effect free: they are
 * called on the thread that completed the attempt. If one throws (anything, an {@code Error}
 * included), {@link RetryPolicy} treats the error as retryable (see {@link RetryPolicy#shouldRetry}).
 */
@FunctionalInterface
public interface RetryClassifier {

    /**
     * @param error   the failure of the attempt, never {@code null}
     * @param attempt the number of the attempt that failed, 1 for the first
     * @return {@code true} to retry (within budget), {@code false} to fail now
     */
    boolean shouldRetry(Throwable error, int attempt);

    /** @return a classifier that retries every error; the default; thread-safe */
    static RetryClassifier all() {
        return AllClassifier.INSTANCE;
    }

    /**
     * @param types the error types worth retrying
     * @return a classifier that retries when the error, or any error in its cause chain, is an
     *         instance of one of {@code types}; thread-safe (the array is copied)
     * @throws NullPointerException     if {@code types} or one of its elements is null
     * @throws IllegalArgumentException if {@code types} is empty
     */
    @SafeVarargs
    static RetryClassifier on(Class<? extends Throwable>... types) {
        return new TypeClassifier(types);
    }
}
