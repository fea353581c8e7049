package dev.adaptive;

import dev.adaptive.time.Scheduler;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Scripted answers of test tasks, given on a (virtual) scheduler. */
final class Replies {

    private Replies() {
    }

    /**
     * @param reply a {@link Throwable} fails the stage, {@code null} never answers, anything
     *              else is the value
     * @return a stage that answers {@code latency} from now
     */
    @SuppressWarnings("unchecked")
    static <T> CompletableFuture<T> after(Scheduler time, Duration latency, Object reply) {
        CompletableFuture<T> f = new CompletableFuture<>();
        if (reply == null) {
            return f;
        }
        time.schedule(() -> {
            if (reply instanceof Throwable t) {
                f.completeExceptionally(t);
            } else {
                f.complete((T) reply);
            }
        }, latency);
        return f;
    }
}
