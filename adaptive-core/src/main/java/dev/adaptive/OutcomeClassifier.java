package dev.adaptive;

import dev.adaptive.internal.Causes;
import dev.adaptive.limit.Outcome;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Decides what an attempt's result or failure means for capacity. The outcome also decides
 * whether the attempt failed: {@link Outcome.RateLimited} and {@link Outcome#DROPPED} are
 * failures even when the task returned a value (an HTTP response object with status 429, say),
 * {@link Outcome#SUCCESS} is a success, and {@link Outcome#IGNORED} is a failure if there is an
 * error and a success otherwise.
 *
 * <p>The {@linkplain #defaults() default}: no error is a success; a
 * {@link RateLimitedException} anywhere in the cause chain is rate-limited with its
 * Retry-After; every other error is a drop. A classifier that throws falls back to the
 * default for that attempt.
 */
@FunctionalInterface
public interface OutcomeClassifier {

    /**
     * @param result the task's value, or {@code null} on failure
     * @param error  the failure, or {@code null} on success
     * @return the outcome; {@code null} means "as the default says"
     */
    Outcome classify(Object result, Throwable error);

    /** @return the default classifier described above */
    static OutcomeClassifier defaults() {
        return (result, error) -> {
            if (error == null) {
                return Outcome.SUCCESS;
            }
            RateLimitedException rl = findRateLimited(error);
            if (rl != null) {
                return Outcome.rateLimited(rl.retryAfter().orElse(null));
            }
            return Outcome.DROPPED;
        };
    }

    /**
     * @param error a failure
     * @return the first {@link RateLimitedException} in its cause chain, or {@code null}; a
     *         chain that loops ({@code a -> b -> a}, legal with {@code initCause}) is walked
     *         once, and at most 64 links deep
     */
    static RateLimitedException findRateLimited(Throwable error) {
        return Causes.find(error, RateLimitedException.class);
    }

    /**
     * @param error a failure from a future
     * @return the cause inside {@link CompletionException} / {@link ExecutionException} wrappers;
     *         {@code error} itself if the wrappers only wrap each other in a loop
     */
    static Throwable unwrap(Throwable error) {
        Throwable inner = Causes.first(error, t -> isWrapper(t) && Causes.causeOf(t) != null ? null : t);
        return inner != null ? inner : error;
    }

    private static boolean isWrapper(Throwable t) {
        return (t instanceof CompletionException || t instanceof ExecutionException)
                && !(t instanceof CancellationException);
    }
}
