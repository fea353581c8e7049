package dev.adaptive.pool;

import dev.adaptive.TaskContext;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs a pool over a huge lazy input in the streaming form and prints what it counted. Started
 * by {@link HugeInputTest} in its own JVM with a small heap ({@code -Xmx64m}): the run can only
 * finish if the pool keeps O(concurrency) items in memory, since retaining even 16 bytes per
 * item of 10 million would not fit.
 *
 * <p>Usage: {@code HugeInputMain <items> <iterator|publisher>}. Prints one line,
 * {@code accepted=.. succeeded=.. failed=.. sum=.. limit=.. millis=..}, and exits 0.
 */
public final class HugeInputMain {

    private HugeInputMain() {
    }

    public static void main(String[] args) {
        long n = Long.parseLong(args[0]);
        String kind = args[1];
        long start = System.nanoTime();
        ItemPool<Long> pool = kind.equals("publisher") ? ItemPool.of(new Counting(n)) : ItemPool.of(iterator(n));
        AtomicLong succeeded = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicLong sum = new AtomicLong();
        PoolStats s = pool.withLimits(4, 1, 16)
                .stream((Long i, TaskContext ctx) -> CompletableFuture.completedFuture(i),
                        PoolListener.<Long, Long>of(r -> {
                            succeeded.incrementAndGet();
                            sum.addAndGet(r.value());
                        }, e -> failed.incrementAndGet()))
                .join();
        System.out.printf("accepted=%d succeeded=%d failed=%d sum=%d listenerSucceeded=%d limit=%d millis=%d%n",
                s.accepted(), s.succeeded(), s.failed(), sum.get(), succeeded.get(), s.finalConcurrency(),
                (System.nanoTime() - start) / 1_000_000);
    }

    private static Iterator<Long> iterator(long n) {
        return new Iterator<>() {
            private long next;

            @Override
            public boolean hasNext() {
                return next < n;
            }

            @Override
            public Long next() {
                if (next >= n) {
                    throw new NoSuchElementException();
                }
                return next++;
            }
        };
    }

    /** A synchronous publisher of 0..n-1 that honours demand. */
    private static final class Counting implements Flow.Publisher<Long> {
        private final long n;

        Counting(long n) {
            this.n = n;
        }

        @Override
        public void subscribe(Flow.Subscriber<? super Long> s) {
            s.onSubscribe(new Flow.Subscription() {
                private long next;
                private long demand;
                private boolean emitting;
                private boolean done;

                @Override
                public void request(long k) {
                    demand += k;
                    if (emitting) {
                        return; // re-entrant request: the loop below picks it up
                    }
                    emitting = true;
                    while (demand > 0 && !done) {
                        if (next >= n) {
                            done = true;
                            s.onComplete();
                            break;
                        }
                        demand--;
                        s.onNext(next++);
                    }
                    if (next >= n && !done) {
                        done = true;
                        s.onComplete();
                    }
                    emitting = false;
                }

                @Override
                public void cancel() {
                    done = true;
                }
            });
        }
    }
}
