package dev.adaptive.examples.demo;

import dev.adaptive.limit.Outcome;
import dev.adaptive.RateLimitedException;
import dev.adaptive.trace.TraceEvent;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The usual way, for comparison: a fixed number of workers, each retrying its own request.
 * A 429 waits that request's {@code Retry-After} (up to 10 times) while the other workers
 * carry on; any other failure is retried after an exponential backoff (100 ms base, 20%
 * jitter, 3 retries). It does not use the engine; it emits the engine's trace events so its
 * charts compare with the adaptive runs.
 */
public final class FixedConcurrencyRun implements DemoRun {

    private static final int RETRIES = 3;
    private static final int RATE_LIMIT_RETRIES = 10;
    private static final long BACKOFF_BASE_MS = 100;

    private final int concurrency;

    /** @param concurrency the number of workers, &ge; 1 */
    public FixedConcurrencyRun(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        this.concurrency = concurrency;
    }

    @Override
    public String name() {
        return "fixed c=" + concurrency;
    }

    @Override
    public int initialConcurrency() {
        return concurrency;
    }

    @Override
    public String description() {
        return concurrency + " workers, each retrying its own request (429: after its Retry-After; "
                + "errors: exponential backoff)";
    }

    @Override
    public RunCounts run(Target target, int items, TraceRecorder trace) {
        // As many client threads as the adaptive run's, so the two differ only in how they send.
        ExecutorService io = Executors.newFixedThreadPool(8, Threads.daemon("fixed-http"));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(Threads.daemon("fixed-timer"));
        try {
            HttpClient client = HttpClient.newBuilder().executor(io).connectTimeout(Duration.ofSeconds(5)).build();
            Job job = new Job(client, timers, target, items, trace);
            trace.begin();
            CompletableFuture<?>[] workers = new CompletableFuture<?>[concurrency];
            for (int w = 0; w < concurrency; w++) {
                workers[w] = job.worker();
            }
            CompletableFuture.allOf(workers).join();
            return new RunCounts(job.ok.get(), job.failed.get(), concurrency);
        } finally {
            timers.shutdownNow();
            io.shutdownNow();
        }
    }

    private final class Job {
        final HttpClient client;
        final ScheduledExecutorService timers;
        final Target target;
        final int items;
        final TraceRecorder trace;
        final AtomicInteger next = new AtomicInteger();
        final AtomicInteger inflight = new AtomicInteger();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        Job(HttpClient client, ScheduledExecutorService timers, Target target, int items, TraceRecorder trace) {
            this.client = client;
            this.timers = timers;
            this.target = target;
            this.items = items;
            this.trace = trace;
        }

        /** A worker takes items one after the other until none is left. */
        CompletableFuture<Void> worker() {
            CompletableFuture<Void> finished = new CompletableFuture<>();
            takeNext(finished);
            return finished;
        }

        private void takeNext(CompletableFuture<Void> finished) {
            int index = next.getAndIncrement();
            if (index >= items) {
                finished.complete(null);
                return;
            }
            attempt(index, 1, 0, 0, finished);
        }

        private void attempt(int index, int attempt, int errors, int rateLimits, CompletableFuture<Void> finished) {
            long start = trace.ticker().nanoTime();
            trace.onEvent(new TraceEvent.TaskStart(name(), start, index, attempt, concurrency, inflight.incrementAndGet()));
            Http.get(client, target.uri(index)).whenComplete((body, error) -> {
                long end = trace.ticker().nanoTime();
                inflight.decrementAndGet();
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                if (cause == null) {
                    trace.onEvent(new TraceEvent.TaskEnd(name(), end, index, attempt, end - start, Outcome.SUCCESS, null));
                    ok.incrementAndGet();
                    trace.itemDone();
                    takeNext(finished);
                } else if (cause instanceof RateLimitedException limited) {
                    Duration wait = limited.retryAfter().orElse(Duration.ofSeconds(1));
                    trace.onEvent(new TraceEvent.TaskEnd(name(), end, index, attempt, end - start,
                            Outcome.rateLimited(wait), cause));
                    retryOrFail(index, attempt, errors, rateLimits + 1, rateLimits < RATE_LIMIT_RETRIES,
                            wait, true, cause, finished);
                } else {
                    trace.onEvent(new TraceEvent.TaskEnd(name(), end, index, attempt, end - start, Outcome.DROPPED, cause));
                    long ms = BACKOFF_BASE_MS << Math.min(errors, 16);
                    Duration wait = Duration.ofMillis(Math.round(ms * (0.8 + 0.4 * ThreadLocalRandom.current().nextDouble())));
                    retryOrFail(index, attempt, errors + 1, rateLimits, errors < RETRIES, wait, false, cause, finished);
                }
            });
        }

        private void retryOrFail(int index, int attempt, int errors, int rateLimits, boolean withinBudget,
                                 Duration wait, boolean rateLimited, Throwable cause, CompletableFuture<Void> finished) {
            if (!withinBudget) {
                failed.incrementAndGet();
                trace.itemDone();
                takeNext(finished);
                return;
            }
            long now = trace.ticker().nanoTime();
            trace.onEvent(new TraceEvent.Retry(name(), now, index, attempt, cause, wait, now + wait.toNanos(), rateLimited));
            timers.schedule(() -> attempt(index, attempt + 1, errors, rateLimits, finished),
                    wait.toNanos(), TimeUnit.NANOSECONDS);
        }
    }
}
