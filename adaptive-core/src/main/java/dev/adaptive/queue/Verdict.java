package dev.adaptive.queue;

import dev.adaptive.ClassifiedFailureException;
import dev.adaptive.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.StopPoolException;

import java.time.Duration;

/**
 * How one attempt ended, as the queue judges it. Made outside the queue's lock, because every
 * classifier it asks is user code; each one that throws has a documented fallback.
 *
 * @param outcome           the outcome classifier's answer (the default's, if it threw or
 *                          returned {@code null})
 * @param error             the task's own failure, or {@code null}
 * @param cause             why the attempt failed, or {@code null} if it succeeded
 * @param countsAgainstRate whether the rate classifier counts the failure
 * @param retryWanted       whether the retry classifier wants an error retried and the
 *                          {@code retries} budget allows it
 */
record Verdict(Outcome outcome, Throwable error, Throwable cause, boolean countsAgainstRate, boolean retryWanted) {

    static Verdict of(QueueConfig cfg, Attempt<?> a, Object value, Throwable error) {
        Outcome outcome = classify(cfg, value, error);
        boolean failed = error != null || outcome instanceof Outcome.RateLimited || outcome instanceof Outcome.Dropped;
        if (!failed) {
            return new Verdict(outcome, error, null, false, false);
        }
        Throwable cause = error != null ? error
                : outcome instanceof Outcome.RateLimited r
                ? new RateLimitedException("result classified as rate-limited: " + value, r.retryAfter())
                : new ClassifiedFailureException(value, outcome);
        // Rate-limit answers have their own budget and a StopPoolException is never retried,
        // so the retry classifier is not asked about them.
        boolean retryWanted = !(outcome instanceof Outcome.RateLimited) && !(cause instanceof StopPoolException)
                && a.job.retriesUsed < cfg.retryPolicy().retries()
                && cfg.retryPolicy().shouldRetry(cause, a.number);
        return new Verdict(outcome, error, cause, countsAgainstRate(cfg, outcome, cause), retryWanted);
    }

    boolean failed() {
        return cause != null;
    }

    /**
     * @return the outcome to release the concurrency limiter's lease with. The queue holds
     *         Retry-After pauses itself: one in the limiter too would make its
     *         {@code tryAcquire} fail with nothing to wake the queue when it ends
     */
    Outcome forLimiter() {
        return outcome instanceof Outcome.RateLimited ? Outcome.rateLimited(Duration.ZERO) : outcome;
    }

    private static Outcome classify(QueueConfig cfg, Object value, Throwable error) {
        Outcome o;
        try {
            o = cfg.classifier().classify(value, error);
        } catch (Throwable brokenClassifier) {
            o = null;
        }
        return o != null ? o : QueueClassifier.defaults().classify(value, error);
    }

    private static boolean countsAgainstRate(QueueConfig cfg, Outcome outcome, Throwable cause) {
        try {
            return cfg.rateOutcomeClassifier().lowersRate(outcome, cause);
        } catch (Throwable brokenClassifier) {
            return true; // err towards a slower rate, never a faster one
        }
    }
}
