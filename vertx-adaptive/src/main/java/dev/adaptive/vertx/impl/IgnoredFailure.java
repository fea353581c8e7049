package dev.adaptive.vertx.impl;

import dev.adaptive.limit.Outcome;

/**
 * An attempt's failure that says nothing of the downstream's capacity and would only come back
 * if the call were sent again: one this client makes before anything is sent (a body the event
 * bus has no codec for, a streamed request body the first attempt already read), or a client
 * error whose body the request's codec cannot read. The executors of this module's clients
 * ({@link AdaptiveLimiterImpl#executor(dev.adaptive.OutcomeClassifier, java.util.function.BiFunction)})
 * give the limit no sample for it ({@link Outcome#IGNORED}) and never retry it ({@link #isIgnored},
 * the one test of that, which the limiter's own executor uses too), and the caller gets its cause
 * ({@link #unwrap}). Internal.
 */
class IgnoredFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param cause what the caller gets */
    IgnoredFailure(Throwable cause) {
        this(String.valueOf(cause.getMessage()), cause);
    }

    IgnoredFailure(String message, Throwable cause) {
        super(message, cause, false, false);
    }

    /**
     * The one test of an ignored failure, for every executor of this module: this class, or an
     * attempt its call's context refused ({@link ContextGoneException}, which stays a
     * {@link java.util.concurrent.RejectedExecutionException} for the caller, and so is not one of
     * these).
     *
     * @param error an attempt's failure, or {@code null}
     * @return whether the executors give the limit no sample for it and never retry it
     */
    static boolean isIgnored(Throwable error) {
        return error instanceof IgnoredFailure || error instanceof ContextGoneException;
    }

    /** @return the failure the caller gets: the cause of an ignored one, any other as it is */
    static Throwable unwrap(Throwable error) {
        return error instanceof IgnoredFailure ignored ? ignored.getCause() : error;
    }
}
