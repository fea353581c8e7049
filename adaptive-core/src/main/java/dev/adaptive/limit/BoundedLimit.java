package dev.adaptive.limit;

/**
 * What the adaptive limits share: the bounds they keep and the errors they shrug off, read from
 * their builder. Immutable.
 */
abstract class BoundedLimit implements Limit {

    /** The initial limit and the bounds every state stays within. */
    final Bounds bounds;

    /** When drops count as an overload. */
    final DropTolerance drops;

    BoundedLimit(LimitBuilder<?> builder) {
        this.bounds = builder.bounds();
        this.drops = builder.drops();
    }

    /**
     * @return the share of recent attempts that may fail, above the share this downstream usually
     *         fails with, before drops shrink the limit; default 0.05
     */
    public final double dropTolerance() {
        return drops.tolerance();
    }

    /** @return the limit before any sample; default 5 */
    @Override
    public final int initialLimit() {
        return bounds.initial();
    }

    /** @return the smallest limit; default 1 */
    @Override
    public final int minLimit() {
        return bounds.min();
    }

    /** @return the largest limit; default {@link Integer#MAX_VALUE} */
    @Override
    public final int maxLimit() {
        return bounds.max();
    }
}
