package dev.adaptive.benchmarks.sim;

import dev.adaptive.benchmarks.model.ServerErrorException;
import dev.adaptive.benchmarks.model.TooManyRequestsException;
import dev.adaptive.benchmarks.time.SchedulerExecutorService;
import dev.failsafe.Bulkhead;
import dev.failsafe.Failsafe;
import dev.failsafe.RetryPolicy;

import java.time.Duration;

/**
 * Failsafe 3.3.2, its real asynchronous code throughout: {@code Failsafe.with(rateLimitRetry)
 * .compose(errorRetry).compose(bulkhead)} on a virtual-time executor. The bulkhead (fixed size,
 * long wait) is innermost, so each attempt takes a permit and waits for retries without one;
 * the error retry backs off exponentially with the scenario's jitter; the rate-limit retry
 * waits each 429's own Retry-After (a delay function), the way Failsafe's documentation shows
 * it.
 *
 * <p>Delays come from delay functions drawing on the run's seeded random rather than
 * Failsafe's own jitter, which uses {@code Math.random()}: same distribution, reproducible runs.
 *
 * <p>Immutable; each run builds its own policies.
 */
public final class FailsafePolicy implements Policy {

    private final int concurrency;

    /** @param concurrency the bulkhead's size, at least 1 */
    public FailsafePolicy(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        this.concurrency = concurrency;
    }

    @Override
    public String name() {
        return "failsafe c=" + concurrency;
    }

    @Override
    public String family() {
        return "failsafe";
    }

    @Override
    public void start(Run run) {
        RetryPolicy<String> rateLimits = RetryPolicy.<String>builder()
                .handle(TooManyRequestsException.class)
                .withMaxRetries(Run.RATE_LIMIT_RETRIES)
                .withDelayFn(ctx -> {
                    TooManyRequestsException t = (TooManyRequestsException) ctx.getLastException();
                    // Without a Retry-After, the same backoff as after an error.
                    return t.announced() ? Duration.ofMillis(t.retryAfterMillis())
                            : run.backoff(Math.max(1, ctx.getAttemptCount()));
                })
                .build();
        RetryPolicy<String> errors = RetryPolicy.<String>builder()
                .handle(ServerErrorException.class)
                .withMaxRetries(run.scenario().retries())
                .withDelayFn(ctx -> run.backoff(Math.max(1, ctx.getAttemptCount())))
                .build();
        // The wait for a permit must outlast any queue this batch can build.
        Bulkhead<String> bulkhead = Bulkhead.<String>builder(concurrency).withMaxWaitTime(Duration.ofHours(1)).build();
        var failsafe = Failsafe.with(rateLimits).compose(errors).compose(bulkhead)
                .with(new SchedulerExecutorService(run.ticker(), run.scheduler()));
        for (int i = 0; i < run.scenario().items(); i++) {
            failsafe.getStageAsync(run::attempt).whenComplete((value, error) -> run.itemDone(error == null));
        }
    }
}
