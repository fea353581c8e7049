package dev.adaptive;

/**
 * The lifecycle of a {@link Limiter}.
 *
 * <ul>
 *   <li>{@code RUNNING}: grants leases.</li>
 *   <li>{@code PAUSED}: grants none; waiters stay queued; {@link Limiter#resume()} goes back.</li>
 *   <li>{@code STOPPED}: refuses new acquisitions; waiters already queued are still served as
 *       slots free up (a graceful drain). Terminal.</li>
 *   <li>{@code ABORTED}: refuses new acquisitions and fails every queued waiter at once.
 *       Terminal.</li>
 * </ul>
 * In every state, leases already granted are released normally.
 */
public enum LimiterState {
    /** Granting leases. */
    RUNNING,
    /** Paused by the user. */
    PAUSED,
    /** Draining queued waiters, refusing new ones. */
    STOPPED,
    /** Refusing everything. */
    ABORTED
}
