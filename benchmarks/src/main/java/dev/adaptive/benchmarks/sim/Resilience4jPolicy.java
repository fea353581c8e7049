package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.ServerErrorException;
import dev.adaptive.benchmarks.model.TooManyRequestsException;
import dev.adaptive.benchmarks.time.SchedulerExecutorService;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Resilience4j 2.4.0 as a careful user would configure it for this workload: a
 * {@link Bulkhead} of fixed size around each attempt, and two {@link Retry} instances
 * decorating the asynchronous call (their real {@code decorateCompletionStage} code, waiting on
 * a virtual-time executor): the inner one retries 500s with the scenario's exponential backoff
 * and jitter, the outer one retries 429s after each answer's own Retry-After.
 *
 * <p>What is modelled rather than run: waiting for a bulkhead permit. Resilience4j's semaphore
 * bulkhead waits by blocking a thread (fair semaphore, {@code maxWaitDuration}); here an attempt
 * that finds the real bulkhead full waits in a first-in-first-out queue and takes the next
 * permit the bulkhead frees, which is what a fair semaphore with a long wait does. The jitter
 * of the backoff comes from the run's seeded random through an {@code intervalBiFunction}
 * rather than the library's {@code Math.random()}, so runs are reproducible.
 *
 * <p>A quirk of composing two retries, kept because a user would meet it: every outer (429)
 * retry starts a fresh inner context, so the error budget starts again after a 429.
 *
 * <p>Immutable; each run builds its own bulkhead, retries and executor.
 */
public final class Resilience4jPolicy implements Policy {

    private final int concurrency;

    /** @param concurrency the bulkhead's size, at least 1 */
    public Resilience4jPolicy(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        this.concurrency = concurrency;
    }

    @Override
    public String name() {
        return "resilience4j c=" + concurrency;
    }

    @Override
    public String family() {
        return "resilience4j";
    }

    @Override
    public void start(Run run) {
        SchedulerExecutorService executor = new SchedulerExecutorService(run.ticker(), run.scheduler());
        Bulkhead bulkhead = Bulkhead.of(name(), BulkheadConfig.custom()
                .maxConcurrentCalls(concurrency).maxWaitDuration(Duration.ZERO).build());
        Retry errors = Retry.of("errors", RetryConfig.<String>custom()
                .maxAttempts(run.scenario().retries() + 1)
                .retryOnException(e -> e instanceof ServerErrorException)
                .intervalBiFunction((attempt, either) -> run.backoff(attempt).toMillis())
                .build());
        Retry rateLimits = Retry.of("rate-limits", RetryConfig.<String>custom()
                .maxAttempts(Run.RATE_LIMIT_RETRIES + 1)
                .retryOnException(e -> e instanceof TooManyRequestsException)
                .intervalBiFunction((attempt, either) -> !(either.isLeft()
                        && either.getLeft() instanceof TooManyRequestsException t) ? 0L
                        // Without a Retry-After, the same backoff as after an error.
                        : t.announced() ? t.retryAfterMillis() : run.backoff(attempt).toMillis())
                .build());
        Permits permits = new Permits(bulkhead);
        Supplier<CompletionStage<String>> call = Retry.decorateCompletionStage(rateLimits, executor,
                Retry.decorateCompletionStage(errors, executor, () -> permits.call(run)));
        for (int i = 0; i < run.scenario().items(); i++) {
            call.get().whenComplete((value, error) -> run.itemDone(error == null));
        }
    }

    /** Attempts waiting for a permit of the real bulkhead; confined to the run's scheduler thread. */
    private static final class Permits {
        private final Bulkhead bulkhead;
        private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

        Permits(Bulkhead bulkhead) {
            this.bulkhead = bulkhead;
        }

        CompletionStage<String> call(Run run) {
            CompletableFuture<String> out = new CompletableFuture<>();
            Runnable attempt = () -> run.attempt().whenComplete((value, error) -> {
                bulkhead.onComplete();
                admitWaiting();
                if (error != null) {
                    out.completeExceptionally(error);
                } else {
                    out.complete(value);
                }
            });
            if (waiting.isEmpty() && bulkhead.tryAcquirePermission()) {
                attempt.run();
            } else {
                waiting.add(attempt);
            }
            return out;
        }

        private void admitWaiting() {
            while (!waiting.isEmpty() && bulkhead.tryAcquirePermission()) {
                waiting.poll().run();
            }
        }
    }
}
