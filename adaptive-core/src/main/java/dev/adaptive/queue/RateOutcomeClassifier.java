package dev.adaptive.queue;

import dev.adaptive.limit.Outcome;

/**
 * Decides whether one failed attempt counts against the rate, that is towards
 * {@code errorsPerInterval} and the strategy's {@link RateObservation#failed()}. It never
 * changes whether the task is retried or how it ends.
 *
 * <p>The {@linkplain #defaults() default} counts every failure except those the outcome
 * classifier called {@link Outcome#IGNORED} ("not about capacity"); with the queue's default
 * outcome classifier no failure is ignored, so every failure counts. A classifier that throws
 * counts the failure: a broken classifier then errs towards a slower rate, never a faster one.
 *
 * <p>Implementations must be thread-safe and fast: they run on the thread that completed the
 * attempt.
 */
@FunctionalInterface
public interface RateOutcomeClassifier {

    /**
     * @param outcome how the attempt was classified: {@link Outcome#DROPPED},
     *                {@link Outcome.RateLimited} or {@link Outcome#IGNORED}
     * @param cause   the failure: the task's exception, or a
     *                {@link dev.adaptive.ClassifiedFailureException} /
     *                {@link dev.adaptive.RateLimitedException} for a failure result; never null
     * @return {@code true} if the failure lowers the rate
     */
    boolean lowersRate(Outcome outcome, Throwable cause);

    /** @return the default described above */
    static RateOutcomeClassifier defaults() {
        return (outcome, cause) -> !(outcome instanceof Outcome.Ignored);
    }
}
