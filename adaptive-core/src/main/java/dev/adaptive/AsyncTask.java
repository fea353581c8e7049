package dev.adaptive;

import java.util.concurrent.CompletionStage;

/**
 * One unit of asynchronous work: called once per attempt, it must not block and returns a
 * stage that completes when the call does. A task that throws is a failed attempt.
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface AsyncTask<R> {

    /**
     * @param context the attempt number, the item index and a cancellation handle
     * @return the attempt's result; {@code null} counts as a failed attempt
     * @throws Exception a failed attempt
     */
    CompletionStage<R> call(TaskContext context) throws Exception;
}
