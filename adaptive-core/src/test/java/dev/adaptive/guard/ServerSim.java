package dev.adaptive.guard;

import dev.adaptive.time.VirtualTime;

import java.time.Duration;

/**
 * A server guarded by a {@link ConcurrencyGuard}, in virtual time: requests arrive at a fixed
 * rate; an admitted one takes {@code base * max(1, n / capacity)}, {@code n} being the
 * requests in flight when it was admitted (a server that queues past its capacity); a shed one
 * costs nothing.
 */
final class ServerSim {

    final VirtualTime time;
    final ConcurrencyGuard guard;
    volatile Duration base;
    volatile int capacity;
    long served;
    long shed;
    long maxLatencyNanos;
    int maxInflight;

    ServerSim(VirtualTime time, ConcurrencyGuard guard, Duration base, int capacity) {
        this.time = time;
        this.guard = guard;
        this.base = base;
        this.capacity = capacity;
    }

    /** Sends one request every {@code every} until {@code duration} from now. */
    void load(Duration every, Duration duration) {
        long end = time.nanoTime() + duration.toNanos();
        arrive(every.toNanos(), end);
    }

    private void arrive(long everyNanos, long end) {
        if (time.nanoTime() - end >= 0) {
            return;
        }
        GuardLease lease = guard.acquire();
        if (lease.admitted()) {
            int n = guard.inflight();
            maxInflight = Math.max(maxInflight, n);
            long latency = (long) (base.toNanos() * Math.max(1.0, (double) n / capacity));
            maxLatencyNanos = Math.max(maxLatencyNanos, latency);
            time.schedule(() -> {
                lease.release();
                served++;
            }, latency);
        } else {
            shed++;
        }
        time.schedule(() -> arrive(everyNanos, end), everyNanos);
    }

    void resetCounters() {
        served = 0;
        shed = 0;
        maxLatencyNanos = 0;
        maxInflight = 0;
    }
}
