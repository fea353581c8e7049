package dev.adaptive.queue;

import dev.adaptive.Outcome;
import dev.adaptive.OutcomeClassifier;

/** The queue's default {@link OutcomeClassifier}. */
final class QueueClassifier {

    private static final OutcomeClassifier DEFAULT = (result, error) ->
            error == null && Boolean.FALSE.equals(result) ? Outcome.DROPPED
                    : OutcomeClassifier.defaults().classify(result, error);

    private QueueClassifier() {
    }

    /**
     * @return {@link OutcomeClassifier#defaults()}, plus: a task whose value is
     *         {@link Boolean#FALSE} reported an explicit failure, {@link Outcome#DROPPED}
     */
    static OutcomeClassifier defaults() {
        return DEFAULT;
    }
}
