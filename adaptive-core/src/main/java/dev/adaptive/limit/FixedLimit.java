package dev.adaptive.limit;

import dev.adaptive.internal.OptionChecks;

import java.util.Map;
import java.util.Objects;

/**
 * A limit that never changes: initial, min and max are all the same value, and every sample
 * leaves the state as it is. For downstreams with a known, contractual capacity, and as the
 * control in comparisons.
 *
 * <p>Default limit: 5. Immutable and thread-safe.
 */
public final class FixedLimit implements Limit {

    private static final FixedLimit DEFAULTS = builder().build();

    private final State state;

    private FixedLimit(int limit) {
        this.state = new State(OptionChecks.atLeast("limit", limit, 1));
    }

    /**
     * @param limit the number of calls that may be in flight, at least 1
     * @return a fixed limit of {@code limit}
     * @throws IllegalArgumentException if {@code limit} is less than 1
     */
    public static FixedLimit of(int limit) {
        return new FixedLimit(limit);
    }

    /** @return a new builder, limit 5; not thread-safe */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the shared fixed limit of 5 */
    public static FixedLimit defaults() {
        return DEFAULTS;
    }

    /** @return the fixed limit */
    public int limit() {
        return state.limit();
    }

    /** @return the fixed limit */
    @Override
    public int initialLimit() {
        return state.limit();
    }

    /** @return the fixed limit */
    @Override
    public int minLimit() {
        return state.limit();
    }

    /** @return the fixed limit */
    @Override
    public int maxLimit() {
        return state.limit();
    }

    /** @return {@code "fixed"} */
    @Override
    public String name() {
        return "fixed";
    }

    @Override
    public State initialState() {
        return state;
    }

    /**
     * @return this limit's only state, whatever the sample
     * @throws IllegalArgumentException if {@code state} was not made by a {@code FixedLimit}
     */
    @Override
    public State update(LimitState state, Sample sample) {
        Objects.requireNonNull(sample, "sample");
        if (!(state instanceof State)) {
            throw new IllegalArgumentException("not a FixedLimit state: " + state);
        }
        return this.state;
    }

    @Override
    public String toString() {
        return "FixedLimit[" + state.limit() + "]";
    }

    /**
     * The only state of a {@link FixedLimit}. Immutable.
     *
     * @param limit the fixed limit
     */
    public record State(int limit) implements LimitState {

        /** @return the limit */
        @Override
        public Map<String, Double> metrics() {
            return Map.of("limit", (double) limit);
        }
    }

    /**
     * A mutable builder; {@link #build()} throws {@link IllegalArgumentException} naming the
     * option and the value. Not thread-safe.
     */
    public static final class Builder {
        private int limit = Bounds.DEFAULT_INITIAL;

        private Builder() {
        }

        /**
         * @param limit the number of calls that may be in flight, at least 1; default 5
         * @return this builder
         */
        public Builder limit(int limit) {
            this.limit = limit;
            return this;
        }

        /**
         * @return a new immutable {@link FixedLimit}
         * @throws IllegalArgumentException if the limit is less than 1
         */
        public FixedLimit build() {
            return new FixedLimit(limit);
        }
    }
}
