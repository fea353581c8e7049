package dev.adaptive.queue;

import dev.adaptive.AsyncTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * A task that throws a {@link VirtualMachineError} ({@link StackOverflowError}, say, from a
 * recursion of its own) is a failed attempt like any other, as it is in the pool: the task was
 * accepted, so {@code submit} returns its future, the future fails with the error, and the
 * queue goes on with the next task.
 */
class QueueFatalErrorTest extends QueueFixture {

    private static final Duration SECOND = Duration.ofSeconds(1);

    @AfterEach
    void nothingEscapedToTheScheduler() {
        assertNoUncaught();
    }

    private static AsyncTask<Object> throwing(Throwable t) {
        return ctx -> {
            throw sneaky(t);
        };
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }

    @Test
    void aTaskThrowingStackOverflowErrorFailsItsOwnFutureAndNothingElse() {
        ThrottledQueue q = builder(10, SECOND).build();
        StackOverflowError soe = new StackOverflowError("deep recursion");
        List<CompletableFuture<Object>> before = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            before.add(q.submit(task(Duration.ofMillis(10))));
        }
        AtomicReference<CompletableFuture<Object>> failing = new AtomicReference<>();
        assertThatCode(() -> failing.set(q.submit(throwing(soe)))).doesNotThrowAnyException();
        List<CompletableFuture<Object>> after = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            after.add(q.submit(task(Duration.ofMillis(10))));
        }
        CompletableFuture<Void> idle = q.awaitIdle();
        time.runUntilIdle();
        assertThat(failing.get()).isCompletedExceptionally();
        assertThat(failing.get().handle((v, e) -> e).join()).isSameAs(soe);
        assertThat(before).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(after).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(idle).isCompleted();
        QueueState s = q.state();
        assertThat(s.started()).isEqualTo(7);
        assertThat(s.succeeded()).isEqualTo(6);
        assertThat(s.failed()).isEqualTo(1);
        assertThat(s.active()).isZero();
    }

    @Test
    void aTaskThrowingAnErrorIsRetriedWithinItsBudget() {
        ThrottledQueue q = builder(10, SECOND).retries(2).build();
        CompletableFuture<Object> r = q.submit(throwing(new InternalError("simulated")));
        time.runUntilIdle();
        assertThat(r).isCompletedExceptionally();
        assertThat(q.state().started()).isEqualTo(3);
        assertThat(q.state().retried()).isEqualTo(2);
        assertThat(q.awaitIdle()).isCompleted();
    }

    @Test
    void awaitIdleWaitsForTheTasksAfterAFatalOne() {
        ThrottledQueue q = builder(1, SECOND).build();
        q.submit(throwing(new StackOverflowError()));
        CompletableFuture<Object> slow = q.submit(task(Duration.ofSeconds(5)));
        CompletableFuture<Void> idle = q.awaitIdle();
        time.advance(Duration.ofSeconds(3));
        assertThat(slow).isNotDone();
        assertThat(idle).as("not idle while a task is still to run").isNotDone();
        time.runUntilIdle();
        assertThat(slow).isCompleted();
        assertThat(idle).isCompleted();
    }
}
