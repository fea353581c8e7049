package dev.adaptive.queue;

/**
 * {@link RateStrategy#aimd(int, double)}: additive increase after a clean window,
 * multiplicative decrease (rounded down) after too many errors. Immutable.
 *
 * @param increaseBy     at least 1
 * @param decreaseFactor in (0, 1)
 */
record AimdRateStrategy(int increaseBy, double decreaseFactor) implements RateStrategy {

    AimdRateStrategy {
        if (increaseBy < 1) {
            throw new IllegalArgumentException("increaseBy must be >= 1: " + increaseBy);
        }
        if (!(decreaseFactor > 0 && decreaseFactor < 1)) {
            throw new IllegalArgumentException("decreaseFactor must be in (0, 1): " + decreaseFactor);
        }
    }

    @Override
    public RateDecision decide(RateObservation o) {
        if (o.tooManyErrors()) {
            return new RateDecision(o.clamp((long) Math.floor(o.rate() * decreaseFactor)), true);
        }
        if (o.clean()) {
            return new RateDecision(o.clamp((long) o.rate() + increaseBy), false);
        }
        return RateDecision.hold(o.rate());
    }
}
