package dev.adaptive.queue;

/**
 * The lifecycle of a {@link ThrottledQueue}; see the transition table in its documentation.
 *
 * <ul>
 *   <li>{@code RUNNING}: starts tasks at the current rate.</li>
 *   <li>{@code PAUSED}: starts nothing until {@link ThrottledQueue#resume()}; running tasks
 *       finish, their outcomes do not move the rate, and retries wait.</li>
 *   <li>{@code STOPPED}: as paused, with every timer cleared; the next
 *       {@link ThrottledQueue#submit} or {@link ThrottledQueue#resume()} restarts it. A queue
 *       halted by a failing rate strategy is stopped too, with
 *       {@link QueueState#haltCause()} set.</li>
 *   <li>{@code ABORTED}: terminal; pending work was failed, running tasks were signalled.</li>
 * </ul>
 */
public enum QueueStatus {
    /** Starting tasks. */
    RUNNING,
    /** Held by the caller until resume. */
    PAUSED,
    /** Timers cleared, work kept; a submit or resume restarts it. */
    STOPPED,
    /** Terminal. */
    ABORTED
}
