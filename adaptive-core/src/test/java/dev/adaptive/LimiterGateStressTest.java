package dev.adaptive;

import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Outcome;
import dev.adaptive.time.Scheduler;
import dev.adaptive.time.Ticker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real threads on a limiter with a gate that paces starts a few microseconds apart on the real
 * clock: acquisitions, shed tryAcquires, cancellations and releases from other threads. The
 * gate's admitAt and started never overlap, every start ends once (settled or unused) with its
 * own ticket, and at the end nothing is in flight or queued.
 */
class LimiterGateStressTest {

    private static final int THREADS = 4;
    private static final int CALLS_PER_THREAD = 20_000;

    /** Paces one start per 2 µs and checks the protocol. */
    private static final class CheckingGate implements AdmissionGate {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final ConcurrentHashMap<Object, Boolean> open = new ConcurrentHashMap<>();
        final AtomicLong ends = new AtomicLong();
        final AtomicInteger protocolErrors = new AtomicInteger();
        final AtomicLong tickets = new AtomicLong();
        private long next;

        @Override
        public long admitAt(long nowNanos, int inflight) {
            enter();
            try {
                return next;
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public Object started(Lease lease) {
            enter();
            try {
                next = lease.startNanos() + 2_000;
                Object ticket = tickets.incrementAndGet();
                open.put(ticket, Boolean.TRUE);
                return ticket;
            } finally {
                inside.decrementAndGet();
            }
        }

        @Override
        public void settled(Object ticket, Outcome outcome, Throwable failure, long nowNanos) {
            end(ticket);
        }

        @Override
        public void unused(Object ticket) {
            end(ticket);
        }

        private void enter() {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
        }

        private void end(Object ticket) {
            if (open.remove(ticket) == null) {
                protocolErrors.incrementAndGet();
            }
            ends.incrementAndGet();
        }
    }

    @Test
    @Timeout(120)
    void theProtocolHoldsUnderContention() throws Exception {
        CheckingGate gate = new CheckingGate();
        Limiter limiter = Limiter.builder().limit(FixedLimit.of(8)).ticker(Ticker.system()).scheduler(Scheduler.system())
                .gate(gate).maxQueueSize(THREADS * CALLS_PER_THREAD).build();
        CountDownLatch go = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<CompletableFuture<Lease>> futures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = t;
            Thread th = new Thread(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                try {
                    go.await();
                    for (int i = 0; i < CALLS_PER_THREAD; i++) {
                        int op = rnd.nextInt(10);
                        if (op < 2) {
                            limiter.tryAcquire().ifPresent(l -> l.release(Outcome.SUCCESS));
                            continue;
                        }
                        CompletableFuture<Lease> f = limiter.acquire();
                        futures.add(f);
                        if (op < 4) {
                            // Races with the grant: a grant after it is given back unused, one
                            // before it is this caller's to release.
                            if (!f.cancel(false)) {
                                f.thenAccept(l -> l.release(Outcome.IGNORED));
                            }
                        } else {
                            // Released on whichever thread completes the grant.
                            f.thenAccept(l -> l.release(rnd.nextInt(5) == 0 ? Outcome.DROPPED : Outcome.SUCCESS));
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "gate-stress-" + t);
            threads.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : threads) {
            th.join();
        }
        for (CompletableFuture<Lease> f : futures) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (java.util.concurrent.CancellationException cancelled) {
                // withdrawn
            }
        }
        assertThat(errors).isEmpty();
        assertThat(gate.overlaps).as("admitAt and started never overlap").hasValue(0);
        assertThat(gate.protocolErrors).as("each ticket ends once").hasValue(0);
        assertThat(gate.open).as("every start ended").isEmpty();
        assertThat(gate.ends.get()).isEqualTo(gate.tickets.get());
        assertThat(limiter.inflight()).isZero();
        assertThat(limiter.waiting()).isZero();
    }
}
