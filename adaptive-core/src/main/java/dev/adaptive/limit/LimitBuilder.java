package dev.adaptive.limit;

/**
 * The options every adaptive limit's builder shares: the limit before any sample, the bounds it
 * never leaves, and how many errors it shrugs off. Defaults: initialLimit 5 (moved into
 * [minLimit, maxLimit] when left unset), minLimit 1, maxLimit {@link Integer#MAX_VALUE}
 * (unbounded), dropTolerance 0.05. The concrete builder
 * checks them with its own options in {@code build()}, which throws
 * {@link IllegalArgumentException} naming the option and the value. Not thread-safe.
 *
 * @param <B> the concrete builder, which each setter returns
 */
public abstract class LimitBuilder<B extends LimitBuilder<B>> {

    private int initialLimit = Bounds.DEFAULT_INITIAL;
    private boolean initialLimitSet;
    private int minLimit = Bounds.DEFAULT_MIN;
    private int maxLimit = Bounds.DEFAULT_MAX;
    private double dropTolerance = 0.05;

    /** Only the limits of this package extend it. */
    LimitBuilder() {
    }

    /**
     * @param initialLimit the limit before any sample, within [minLimit, maxLimit]; default 5,
     *                     moved into [minLimit, maxLimit] when left unset
     * @return this builder
     */
    public B initialLimit(int initialLimit) {
        this.initialLimit = initialLimit;
        this.initialLimitSet = true;
        return self();
    }

    /**
     * @param minLimit the smallest limit, at least 1; default 1
     * @return this builder
     */
    public B minLimit(int minLimit) {
        this.minLimit = minLimit;
        return self();
    }

    /**
     * @param maxLimit the largest limit, at least minLimit; default {@link Integer#MAX_VALUE}
     * @return this builder
     */
    public B maxLimit(int maxLimit) {
        this.maxLimit = maxLimit;
        return self();
    }

    /**
     * @param dropTolerance the share of recent attempts, 0 or 0.0001 to 1, that may fail with drops (errors,
     *                      timeouts) above the share the downstream usually fails with (and beyond
     *                      chance) before they count as an overload and shrink the limit by the
     *                      algorithm's decrease factor; 0 makes every drop one; default 0.05 (an
     *                      isolated transient error is not an overload, five close together are;
     *                      a downstream that fails a steady 3% of calls whatever the load is
     *                      judged against its 3%, not against none)
     * @return this builder
     */
    public B dropTolerance(double dropTolerance) {
        this.dropTolerance = dropTolerance;
        return self();
    }

    /** @return the checked drop tolerance; throws IllegalArgumentException naming a bad one */
    DropTolerance drops() {
        return new DropTolerance(dropTolerance);
    }

    /** @return the checked bounds; throws IllegalArgumentException naming a bad one */
    Bounds bounds() {
        return Bounds.of(initialLimit, initialLimitSet, minLimit, maxLimit);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
