package dev.adaptive.pool;

import dev.adaptive.AdaptiveException;

import java.util.Objects;

/**
 * Why a run ended before its input did. It is the {@link ItemError#error()} of every item that
 * a stop ended (in flight, waiting to retry, or accepted and never started) and the
 * {@link PoolStats#stopCause()} of the run; {@link #getCause()} is what triggered it, if
 * anything did: the {@link dev.adaptive.StopPoolException}, the cancellation's failure or
 * reason, or the input's failure. Immutable once thrown.
 */
public class PoolAbortedException extends AdaptiveException {

    /** What ended the run early. */
    public enum Reason {
        /**
         * A task threw {@link dev.adaptive.StopPoolException}: dispatch stopped and every other
         * unfinished item was cancelled.
         */
        STOPPED,
        /**
         * The run was cancelled ({@link PoolRun#cancel()}, a cancellation stage or signal, or a
         * subscriber of the output publisher cancelling): every unfinished item was cancelled.
         */
        CANCELLED,
        /** The pool-level deadline passed: every unfinished item was cancelled. */
        DEADLINE,
        /**
         * The input failed (its iterator threw, or the publisher signalled an error): no more
         * items were pulled, and the items already accepted finished normally.
         */
        INPUT_FAILED
    }

    /** What ended the run. */
    private final Reason reason;

    /**
     * @param reason what ended the run
     * @param cause  what triggered it, or {@code null}
     */
    public PoolAbortedException(Reason reason, Throwable cause) {
        super(message(Objects.requireNonNull(reason, "reason"), cause), cause);
        this.reason = reason;
    }

    private static String message(Reason reason, Throwable cause) {
        String what = switch (reason) {
            case STOPPED -> "pool stopped by a task";
            case CANCELLED -> "pool cancelled";
            case DEADLINE -> "pool deadline passed";
            case INPUT_FAILED -> "pool input failed";
        };
        return cause == null ? what : what + ": " + cause;
    }

    /** @return what ended the run */
    public Reason reason() {
        return reason;
    }
}
