package dev.adaptive.vertx.impl;

import dev.adaptive.limit.Outcome;

import java.util.concurrent.RejectedExecutionException;

/**
 * A call's attempt that its context refused: the context runs nothing any more (its worker pool
 * shut down by an undeploy, or its event loop by the close of its Vert.x instance), so no
 * attempt of that call can run again. The attempt never reached the downstream: the limiter's
 * executors give the limit no sample for it ({@link Outcome#IGNORED}) and end the call with it,
 * with no retry of any kind; its cause is the context's own refusal. Internal; callers see a
 * {@link RejectedExecutionException}.
 */
final class ContextGoneException extends RejectedExecutionException {
    private static final long serialVersionUID = 1L;

    /**
     * @param limiter the limiter's name
     * @param attempt the attempt refused, 1 for the first
     * @param refusal what the context threw
     */
    ContextGoneException(String limiter, int attempt, Throwable refusal) {
        super("adaptive limiter '" + limiter + "': the call's context runs nothing any more and refused its attempt "
                + attempt + "; the call ends with it, not retried", refusal);
    }
}
