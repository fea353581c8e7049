package dev.adaptive.limit;


import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Folds synthetic samples through a {@link Limit} on a virtual clock: each attempt starts when
 * the previous one ended. After every step it checks the invariants every state must keep:
 * limit within [min, max] and finite metrics. Not thread-safe; one per test.
 */
final class Fold {

    static final long MS = 1_000_000L;

    private final Limit limit;
    private LimitState state;
    private long now = 1_000 * MS;

    Fold(Limit limit) {
        this.limit = limit;
        this.state = limit.initialState();
        assertThat(state.limit()).as("initial limit").isEqualTo(limit.initialLimit());
        check();
    }

    Fold apply(Sample sample) {
        state = limit.update(state, sample);
        check();
        return this;
    }

    /** @return the sample for an attempt starting now and taking {@code rttNanos}; advances the clock */
    Sample next(Outcome outcome, long rttNanos) {
        Sample sample = new Sample(now, rttNanos, state.limit(), outcome);
        now += Math.max(1, rttNanos);
        return sample;
    }

    /** Lets time pass without a sample: attempts from now on start later. */
    Fold advance(double millis) {
        now += nanos(millis);
        return this;
    }

    Fold success(double rttMillis) {
        return apply(next(Outcome.SUCCESS, nanos(rttMillis)));
    }

    Fold successes(int count, double rttMillis) {
        for (int i = 0; i < count; i++) {
            success(rttMillis);
        }
        return this;
    }

    Fold drop(double rttMillis) {
        return apply(next(Outcome.DROPPED, nanos(rttMillis)));
    }

    Fold rateLimited(double rttMillis) {
        return apply(next(Outcome.rateLimited(Duration.ofSeconds(1)), nanos(rttMillis)));
    }

    int limit() {
        return state.limit();
    }

    LimitState state() {
        return state;
    }

    double metric(String name) {
        assertThat(state.metrics()).containsKey(name);
        return state.metrics().get(name);
    }

    long now() {
        return now;
    }

    static long nanos(double millis) {
        return Math.round(millis * MS);
    }

    private void check() {
        assertThat(state.limit()).as("limit").isBetween(limit.minLimit(), limit.maxLimit());
        assertThat(state.metrics()).isNotNull();
        state.metrics().forEach((k, v) -> assertThat(v).as("metric %s", k).isFinite());
    }
}
