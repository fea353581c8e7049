package dev.adaptive.internal;

/**
 * An acquisition whose slot may still be on its way back after the acquisition ended. A
 * limiter that grants a queued acquisition counts a slot for it, then completes it with the
 * lease; an acquisition withdrawn in between (cancelled, timed out) ends at once, as a
 * {@link java.util.concurrent.Future} must, and the limiter gives that slot back a moment
 * later, on the thread that was granting it. Whoever waits for everything it acquired to be
 * back (a pool run that ends once no slot of its own is counted) asks to hear of that moment.
 *
 * <p>Not API: its package is internal and may change without notice. Thread-safe.
 */
public interface SlotReturn {

    /**
     * Runs {@code action} once no grant holds a slot for this acquisition: at once, on the
     * calling thread, if none does (the acquisition was withdrawn before any grant took it, or
     * it holds its lease, which is then its holder's to release), else on the granting thread
     * right after that slot is given back. An acquisition that has not ended yet runs it once it
     * has, by the same rule. Runs it exactly once.
     *
     * @param action what to run; must not throw (it may run inside the limiter's grant)
     */
    void whenSlotBack(Runnable action);

    /**
     * Runs {@code action} once no grant holds a slot for {@code acquisition}: through
     * {@link #whenSlotBack} if it is a {@link SlotReturn}, else at once (a future that no limiter
     * queue made holds no slot of anyone's).
     *
     * @param acquisition an acquisition, ended or not
     * @param action      what to run; must not throw
     */
    static void whenSlotBack(Object acquisition, Runnable action) {
        if (acquisition instanceof SlotReturn r) {
            r.whenSlotBack(action);
        } else {
            action.run();
        }
    }
}
