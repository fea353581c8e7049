package dev.adaptive.internal;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The things a runner has started and not yet seen end (executions, exchanges), so that a stop
 * can cancel every one of them: the pool's run, the Vert.x limiter and the Camel pool each keep
 * one. Owners {@link #add} a member when it starts and {@link #remove} it when it ends;
 * {@link #close} cancels every member, and every member added afterwards at once, so a member
 * that starts while a close sweeps the set is never missed (the add writes the set and then reads
 * the close; the close writes itself and then reads the set: one of the two sees the other). A
 * member may be cancelled twice in that race, so cancellation must be idempotent.
 *
 * <p>Not API: its package is internal and may change without notice. Thread-safe; members are
 * compared by identity unless they override {@code equals}.
 *
 * @param <E> the member type
 * @param <C> what a cancellation carries (the failure members end with, or the words of it)
 */
public final class LiveSet<E, C> {

    private final Set<E> members = ConcurrentHashMap.newKeySet();
    private final BiConsumer<? super E, ? super C> cancel;
    private volatile C closedWith;

    /**
     * @param cancel ends a member with a cause; must be idempotent; what it throws reaches the
     *               caller of {@link #close}, {@link #cancelIf} or {@link #add}
     */
    public LiveSet(BiConsumer<? super E, ? super C> cancel) {
        this.cancel = Objects.requireNonNull(cancel, "cancel");
    }

    /**
     * Adds a member that has started; once the set is closed, cancels it at once (it stays in
     * the set until its owner removes it, as its end comes through the owner's usual path).
     *
     * @param member the member
     * @return {@code false} if the set was closed and the member was cancelled
     */
    public boolean add(E member) {
        members.add(member);
        C c = closedWith;
        if (c != null) {
            cancel.accept(member, c);
            return false;
        }
        return true;
    }

    /**
     * @param member a member that ended
     * @return whether it was in the set (once per member: owners may count on it)
     */
    public boolean remove(E member) {
        return members.remove(member);
    }

    /**
     * Cancels every member with {@code cause}, and every member added from now on. Only the
     * first close counts.
     *
     * @param cause what the members end with
     * @return {@code true} if this call closed the set
     */
    public boolean close(C cause) {
        Objects.requireNonNull(cause, "cause");
        synchronized (this) {
            if (closedWith != null) {
                return false;
            }
            closedWith = cause;
        }
        for (E m : members) {
            cancel.accept(m, cause);
        }
        return true;
    }

    /**
     * Cancels the members that {@code which} picks now, without closing the set.
     *
     * @param which picks members
     * @param cause what they end with
     * @return how many were picked
     */
    public int cancelIf(Predicate<? super E> which, C cause) {
        int n = 0;
        for (E m : members) {
            if (which.test(m)) {
                cancel.accept(m, cause);
                n++;
            }
        }
        return n;
    }

    /** @return whether {@link #close} has run */
    public boolean isClosed() {
        return closedWith != null;
    }

    /** @return the members now, for views and tests */
    public int size() {
        return members.size();
    }
}
