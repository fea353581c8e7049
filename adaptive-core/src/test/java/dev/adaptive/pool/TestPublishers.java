package dev.adaptive.pool;

import dev.adaptive.time.VirtualTime;

import java.time.Duration;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Small, honest publishers for the pool's publisher input. */
final class TestPublishers {

    private TestPublishers() {
    }

    /**
     * Publishes 0..n-1, each requested item after {@code delay} of virtual time (zero: inline,
     * inside {@code request}). Records demand, and checks the pool never has more than one item
     * requested and undelivered, and asks only while {@code slotFree} says a slot is free.
     */
    static final class Range implements Flow.Publisher<Integer> {
        final int n;
        final VirtualTime time;
        final Duration delay;
        final AtomicLong requested = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong maxOutstanding = new AtomicLong();
        final AtomicBoolean cancelled = new AtomicBoolean();
        final RuntimeException failAt;
        final int failIndex;
        volatile LongSupplier settled = () -> 0;
        volatile int limit = Integer.MAX_VALUE;
        volatile long maxAhead;

        Range(int n, VirtualTime time, Duration delay) {
            this(n, time, delay, -1, null);
        }

        Range(int n, VirtualTime time, Duration delay, int failIndex, RuntimeException failAt) {
            this.n = n;
            this.time = time;
            this.delay = delay;
            this.failIndex = failIndex;
            this.failAt = failAt;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super Integer> s) {
            s.onSubscribe(new Flow.Subscription() {
                long next;
                boolean done;

                @Override
                public void request(long k) {
                    long total = requested.addAndGet(k);
                    maxOutstanding.accumulateAndGet(total - delivered.get(), Math::max);
                    maxAhead = Math.max(maxAhead, total - settled.getAsLong());
                    for (long i = 0; i < k; i++) {
                        if (delay.isZero()) {
                            emit(s);
                        } else {
                            time.schedule(() -> emit(s), delay);
                        }
                    }
                }

                private void emit(Flow.Subscriber<? super Integer> s) {
                    if (done || cancelled.get()) {
                        return;
                    }
                    if (next == failIndex) {
                        done = true;
                        s.onError(failAt);
                        return;
                    }
                    if (next >= n) {
                        done = true;
                        s.onComplete();
                        return;
                    }
                    delivered.incrementAndGet();
                    s.onNext((int) next++);
                    if (next >= n && failIndex < 0) {
                        done = true;
                        s.onComplete();
                    }
                }

                @Override
                public void cancel() {
                    cancelled.set(true);
                }
            });
        }
    }
}
