package dev.adaptive;

import dev.adaptive.internal.UserText;
import dev.adaptive.limit.Outcome;

/**
 * Cause used when an attempt was classified as a failure although the task returned a value
 * (for example an HTTP response with status 500 classified as {@link Outcome#DROPPED}). Its
 * message quotes the value's {@code toString()}, or, if that throws, the value's class.
 */
public class ClassifiedFailureException extends AdaptiveException {

    private final transient Object result;
    /** How the result was classified; serialized with the exception. */
    private final Outcome outcome;

    /**
     * @param result  the value the task returned
     * @param outcome how it was classified
     */
    public ClassifiedFailureException(Object result, Outcome outcome) {
        super("result classified as " + outcome + ": " + UserText.of(result));
        this.result = result;
        this.outcome = outcome;
    }

    /** @return the value the task returned */
    public Object result() {
        return result;
    }

    /** @return how it was classified */
    public Outcome outcome() {
        return outcome;
    }
}
