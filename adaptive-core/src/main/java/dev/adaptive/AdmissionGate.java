package dev.adaptive;

import dev.adaptive.limit.Outcome;

/**
 * A gate in front of a {@link Limiter}: besides a free slot, every start needs the gate's
 * consent. The limiter asks the gate before each grant and tells it of each start and each end,
 * so that a gate can spread starts in time (a rate per interval, evenly spaced or in bursts),
 * spend a count (a quota a server announced), or hold starts until something it waits for has
 * happened (the attempts of an observation window settling). Installed with
 * {@link Limiter.Builder#gate(AdmissionGate)}; a limiter has at most one. Without one, the
 * limiter's acquire and release paths do not change at all.
 *
 * <p><b>Protocol.</b>
 * <ol>
 *   <li>{@link #admitAt(long, int)}: asked whenever the limiter could grant a queued acquisition
 *       (one is queued, the limiter is running or draining after a stop, and no Retry-After
 *       pause is open), before it takes a slot. The answer is a ticker reading: {@code nowNanos}
 *       or earlier admits one start now; a later reading means "no start before then", and the
 *       limiter wakes itself up then (on its {@code Scheduler}) and asks again; {@link #HOLD}
 *       means "no start until I say so", and the limiter arms nothing and waits for
 *       {@link Limiter#gateChanged()}. The limiter also asks again after every release, resume
 *       and end of a Retry-After pause. The answer is not a promise: the gate is asked again
 *       before every start, and may answer differently.</li>
 *   <li>{@link #started(Lease)}: the start it admitted happened; the lease is granted and its
 *       caller is told next. What the gate returns is the start's ticket, given back with its
 *       end.</li>
 *   <li>{@link #settled(Object, Outcome, Throwable, long)}: that start's lease was released,
 *       with its outcome and, from an {@link AdaptiveExecutor}, its failure. Called before the
 *       slot is freed, so that the next {@code admitAt} already sees it.</li>
 *   <li>{@link #unused(Object)}: instead of {@code settled}, when the acquisition the start was
 *       for had left (timed out, cancelled) as the slot was granted: the lease is given back
 *       unsampled, and the start did not really happen.</li>
 * </ol>
 * Every {@code started} is followed by exactly one {@code settled} or {@code unused} with its
 * ticket.
 *
 * <p><b>What a gate can express.</b> A time-based "not before": pacing answers the next slot
 * of its grid, a back-off or a server's announced reset answers its end. A count-based budget:
 * count the starts in {@code started} and answer the budget's renewal (or {@link #HOLD}) once
 * it is spent; {@code admitAt}'s {@code inflight} lets a gate hold while what a server says
 * remains of its quota is no more than what is already in flight, and {@code settled} lets it
 * take up what an answer announced. Which answers to spread and how is the gate's own policy.
 *
 * <p><b>Threads.</b> {@code admitAt} and {@code started} are called one at a time, never
 * concurrently with each other (the limiter's drain runs on one thread at a time).
 * {@code settled} and {@code unused} run on the thread that released the lease, at any time,
 * concurrently with the others: state they share needs guarding. None may block: each runs on
 * a thread that is granting or releasing a slot. Each may call {@link Limiter#gateChanged()}
 * (from inside the drain it only marks that the gate is to be asked again).
 *
 * <p><b>Failure.</b> A gate is user code. One whose {@code admitAt} throws (anything, an
 * {@code Error} included) admits that start: a broken gate must not stall the limiter. A throw
 * from {@code started} gives the start a {@code null} ticket; one from {@code settled} or
 * {@code unused} changes nothing else (the slot is freed all the same). Each is counted in
 * {@link LimiterStats#limitFailures()}.
 */
public interface AdmissionGate {

    /** The answer of {@link #admitAt(long, int)} that holds every start until {@link Limiter#gateChanged()}. */
    long HOLD = Long.MAX_VALUE;

    /**
     * @param nowNanos the limiter's ticker reading; also the granted lease's start if the gate admits
     * @param inflight leases granted and not released, not counting the one about to be granted
     * @return {@code nowNanos} or earlier to admit one start now; a later reading for "not
     *         before then"; {@link #HOLD} for "not until {@link Limiter#gateChanged()}"
     */
    long admitAt(long nowNanos, int inflight);

    /**
     * @param lease the lease just granted for the start admitted by the last {@code admitAt};
     *              its {@link Lease#startNanos()} is the {@code nowNanos} that was admitted
     * @return the start's ticket, passed back to {@link #settled} or {@link #unused}; may be {@code null}
     */
    Object started(Lease lease);

    /**
     * @param ticket   what {@link #started} returned for this start
     * @param outcome  the outcome the lease was released with
     * @param failure  the attempt's failure as an {@link AdaptiveExecutor} saw it (its error, a
     *                 {@link TaskTimeoutException}, a {@link ClassifiedFailureException} or
     *                 {@link RateLimitedException} for a result classified as a failure, the
     *                 reason of a cancellation); {@code null} for a success and for a lease
     *                 released directly with {@link Lease#release(Outcome)}
     * @param nowNanos the ticker reading at the release; the lease's start if the ticker threw
     *                 there (the release then goes on without a time)
     */
    void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos);

    /**
     * The start of {@code ticket} did not happen: its acquisition had left as the slot was
     * granted. The default does nothing.
     *
     * @param ticket what {@link #started} returned for it
     */
    default void unused(Object ticket) {
    }
}
