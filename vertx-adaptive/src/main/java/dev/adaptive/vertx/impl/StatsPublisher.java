package dev.adaptive.vertx.impl;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Publishes a limiter's stats on the event bus, periodically on a Vert.x timer and when told of
 * a change. Changes are coalesced: however many arrive before the context runs the
 * publication, one message goes out, so a limit that moves on every sample cannot flood the bus.
 * Thread-safe.
 */
final class StatsPublisher {

    private final Vertx vertx;
    private final Context context;
    private final String address;
    private final DeliveryOptions delivery;
    private final long intervalMillis;
    private final Supplier<JsonObject> stats;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicLong periodicId = new AtomicLong(-1);
    private volatile boolean stopped;

    StatsPublisher(Vertx vertx, Context context, String address, boolean localOnly, long intervalMillis,
                   Supplier<JsonObject> stats) {
        this.vertx = vertx;
        this.context = context;
        this.address = address;
        this.delivery = new DeliveryOptions().setLocalOnly(localOnly);
        this.intervalMillis = intervalMillis;
        this.stats = stats;
    }

    void start() {
        if (intervalMillis <= 0) {
            return;
        }
        context.runOnContext(v -> {
            if (!stopped) {
                periodicId.set(vertx.setPeriodic(intervalMillis, id -> publish()));
                if (stopped) {
                    cancelPeriodic();
                }
            }
        });
    }

    /**
     * Asks for one publication on the context, unless one is pending. A context that refuses it
     * (it runs nothing any more) throws its refusal to the caller, the limiter's listener, which
     * counts it; the publication then stays pending for good, so no later change asks again.
     */
    void changed() {
        if (!stopped && pending.compareAndSet(false, true)) {
            // pending is left set if this throws: a refused context never runs anything again,
            // and asking at each change would throw, and be counted, at each one. The close's
            // last message does not depend on it (stop() sends it from its own thread then).
            context.runOnContext(v -> {
                pending.set(false);
                publish();
            });
        }
    }

    void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        // One last message, so that listeners see the closed state.
        Runnable last = () -> {
            cancelPeriodic();
            vertx.eventBus().publish(address, stats.get(), delivery);
        };
        try {
            context.runOnContext(v -> last.run());
        } catch (Throwable refused) {
            // The context runs nothing any more (its worker pool shut down by an undeploy, say):
            // the message goes from here, as the event bus takes one from any thread. Thrown, the
            // refusal made the limiter's close() throw, with its meters left bound.
            try {
                last.run();
            } catch (Throwable noBus) {
                // Its Vert.x instance is closed too, and its event bus takes no message (it throws
                // the closed event loop's refusal): there is nobody left to tell, and the close
                // must still end.
            }
        }
    }

    private void cancelPeriodic() {
        long id = periodicId.getAndSet(-1);
        if (id >= 0) {
            vertx.cancelTimer(id);
        }
    }

    private void publish() {
        if (!stopped) {
            vertx.eventBus().publish(address, stats.get(), delivery);
        }
    }
}
