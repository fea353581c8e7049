package dev.adaptive.limit;

/**
 * The share of failed attempts an adaptive limit has seen, recently and usually: what
 * {@link DropTolerance} folds and judges. Immutable.
 *
 * @param recent the share over roughly the last {@code 4 / tolerance} attempts
 * @param usual  the share over roughly eight times as many: how often this downstream fails
 *               whatever the load
 */
record DropShare(double recent, double usual) {

    /** No failure seen, or none for long enough that both shares read as none. */
    static final DropShare NONE = new DropShare(0, 0);
}
