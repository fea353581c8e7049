package dev.adaptive.vertx;

import io.vertx.core.Future;
import org.assertj.core.api.SoftAssertions;

import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.catchThrowable;

/** What a Future-returning call owes its caller when it cannot run: a failure, never a throw. */
final class FailedFutures {

    private FailedFutures() {
    }

    /**
     * Asserts that a call returned, not threw, a future already failed, whose handler runs at
     * once on the calling thread when added (a future bound to a context that runs nothing any
     * more would throw that context's refusal from {@code onComplete} instead).
     *
     * @param call   what was called, for the messages
     * @param thrown what the call threw, {@code null} if nothing
     * @param f      what it returned, {@code null} if it threw
     */
    static void failsWithoutThrowing(SoftAssertions soft, String call, Throwable thrown, Future<?> f) {
        soft.assertThat(thrown).as("what " + call + " threw").isNull();
        soft.assertThat(f != null && f.failed()).as(call + ": its future, failed").isTrue();
        AtomicReference<Throwable> heard = new AtomicReference<>();
        Throwable thrownByHandler = catchThrowable(() -> {
            if (f != null) {
                f.onComplete(ar -> heard.set(ar.cause()));
            }
        });
        soft.assertThat(thrownByHandler).as(call + ": what onComplete() threw").isNull();
        soft.assertThat(heard.get()).as(call + ": what its handler heard").isSameAs(f == null ? null : f.cause());
    }
}
