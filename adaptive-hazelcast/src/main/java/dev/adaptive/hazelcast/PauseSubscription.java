package dev.adaptive.hazelcast;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryMergedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import dev.adaptive.fleet.FleetPause;
import dev.adaptive.internal.Listeners;

import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One {@link HazelcastCoordinator#subscribePauses} subscription: an entry listener on the key's
 * entry of the pauses map (added, updated, and merged after a split heals), registered off the
 * caller's thread, followed by one read of the stored pause. Registration completes only once
 * every member has it, so a pause stored after it fires an event to this subscription, and one
 * stored before is found by the read that follows.
 *
 * <p>Thread-safe; {@link #close()} is idempotent, and nothing is delivered after it.
 */
final class PauseSubscription implements AutoCloseable, EntryAddedListener<String, String>,
        EntryUpdatedListener<String, String>, EntryMergedListener<String, String> {

    private final HazelcastCoordinator owner;
    private final String key;
    private final Consumer<FleetPause> listener;
    private volatile boolean closed;
    // Guarded by this.
    private UUID registration;

    PauseSubscription(HazelcastCoordinator owner, String key, Consumer<FleetPause> listener) {
        this.owner = owner;
        this.key = key;
        this.listener = listener;
    }

    void start() {
        try {
            owner.executor().execute(this::register);
        } catch (RejectedExecutionException e) {
            owner.subscriptionFailed();
            retryLater();
        }
    }

    private void register() {
        if (closed) {
            return;
        }
        UUID id;
        try {
            id = blocking(() -> owner.pausesMap().addEntryListener(this, key, true));
        } catch (HazelcastInstanceNotActiveException stopped) {
            owner.subscriptionFailed();
            return; // nothing to retry against
        } catch (RuntimeException e) {
            owner.subscriptionFailed();
            retryLater();
            return;
        }
        boolean undo;
        synchronized (this) {
            undo = closed;
            if (!undo) {
                registration = id;
            }
        }
        if (undo) {
            deregister(id);
            return;
        }
        CompletionStage<String> read;
        try {
            read = owner.pausesMap().getAsync(key);
        } catch (RuntimeException e) {
            // The instance stopped (or failed) between the registration and the read: a listener
            // with no read behind it could miss a pause stored before it, so it is removed (if
            // the instance still answers) and the registration tried again if it still runs.
            // Nothing goes to the thread that ran this, which a direct executor makes the caller
            // of subscribePauses.
            owner.subscriptionFailed();
            boolean mine;
            synchronized (this) {
                mine = registration == id;
                if (mine) {
                    registration = null;
                }
            }
            if (mine) {
                deregister(id); // close() has not taken it: remove it here
            }
            retryLater();
            return;
        }
        read.whenComplete((json, error) -> {
            if (json != null) {
                deliver(json, true);
            }
        });
    }

    private void retryLater() {
        // A stopped instance has nothing to retry against: a member throws
        // HazelcastInstanceNotActiveException, a client that shut down another exception.
        if (!closed && owner.running()) {
            owner.scheduler().schedule(this::start, owner.resubscribeNanos());
        }
    }

    @Override
    public void close() {
        UUID id;
        synchronized (this) {
            closed = true;
            id = registration;
            registration = null;
        }
        if (id != null) {
            try {
                owner.executor().execute(() -> deregister(id));
            } catch (RejectedExecutionException e) {
                // The listener then stays registered, delivering to nobody, until the instance stops.
                owner.subscriptionFailed();
            }
        }
    }

    private void deregister(UUID id) {
        try {
            blocking(() -> owner.pausesMap().removeEntryListener(id));
        } catch (RuntimeException e) {
            owner.subscriptionFailed(); // a closed subscription ignores whatever still arrives
        }
    }

    @Override
    public void entryAdded(EntryEvent<String, String> event) {
        deliver(event.getValue(), false);
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> event) {
        deliver(event.getValue(), false);
    }

    @Override
    public void entryMerged(EntryEvent<String, String> event) {
        deliver(event.getValue(), false);
    }

    private void deliver(String json, boolean onlyIfRunning) {
        if (closed) {
            return;
        }
        FleetPause pause = ReportCodec.pause(json);
        if (pause == null || (onlyIfRunning && !pause.until().isAfter(owner.clock().instant()))) {
            return;
        }
        Listeners.tell(listener, pause, Consumer::accept, owner.listenerFailureCounter());
    }

    /** Runs a blocking Hazelcast call, telling a fork-join pool that it blocks. */
    private static <T> T blocking(Supplier<T> call) {
        final class Call implements ForkJoinPool.ManagedBlocker {
            private T result;
            private boolean done;

            @Override
            public boolean block() {
                result = call.get();
                done = true;
                return true;
            }

            @Override
            public boolean isReleasable() {
                return done;
            }
        }
        Call c = new Call();
        try {
            ForkJoinPool.managedBlock(c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while registering a pause listener", e);
        }
        return c.result;
    }

    @Override
    public String toString() {
        return "PauseSubscription[key=" + key + ", closed=" + closed + "]";
    }
}
