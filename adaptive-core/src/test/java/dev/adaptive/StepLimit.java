package dev.adaptive;

import dev.adaptive.limit.Limit;
import dev.adaptive.limit.LimitState;
import dev.adaptive.limit.Sample;

import java.util.Map;

/**
 * A limit that grows by a fixed step on every success and halves on every other outcome, up to
 * 100: enough to drive a limiter's (or a fleet member's) reactions one call at a time.
 */
public class StepLimit implements Limit {

    private final int initial;
    private final int step;

    /** Starts at 1 and grows by one. */
    public StepLimit() {
        this(1, 1);
    }

    /**
     * @param initial the limit before any sample, 1..100
     * @param step    what a success adds, at least 1
     */
    public StepLimit(int initial, int step) {
        this.initial = initial;
        this.step = step;
    }

    private record State(int limit) implements LimitState {
        @Override
        public Map<String, Double> metrics() {
            return Map.of();
        }
    }

    @Override
    public int initialLimit() {
        return initial;
    }

    @Override
    public int minLimit() {
        return 1;
    }

    @Override
    public int maxLimit() {
        return 100;
    }

    @Override
    public String name() {
        return "step";
    }

    @Override
    public LimitState initialState() {
        return new State(initial);
    }

    @Override
    public LimitState update(LimitState state, Sample sample) {
        int l = state.limit();
        return new State(sample.isSuccess() ? Math.min(maxLimit(), l + step) : Math.max(1, l / 2));
    }
}
