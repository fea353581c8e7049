package dev.adaptive.limit;

/**
 * What the adaptive limits share: the bounds they keep, read from their builder. Immutable.
 */
abstract class BoundedLimit implements Limit {

    /** The initial limit and the bounds every state stays within. */
    final Bounds bounds;

    BoundedLimit(LimitBuilder<?> builder) {
        this.bounds = builder.bounds();
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
