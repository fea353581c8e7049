package dev.adaptive.queue;

/** {@link RateStrategy#linear()}: ±1 per window. Immutable. */
record LinearRateStrategy() implements RateStrategy {

    static final LinearRateStrategy INSTANCE = new LinearRateStrategy();

    @Override
    public RateDecision decide(RateObservation o) {
        if (o.tooManyErrors()) {
            return new RateDecision(o.clamp((long) o.rate() - 1), true);
        }
        if (o.clean()) {
            return new RateDecision(o.clamp((long) o.rate() + 1), false);
        }
        return RateDecision.hold(o.rate());
    }
}
