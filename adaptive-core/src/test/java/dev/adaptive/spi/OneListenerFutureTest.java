package dev.adaptive.spi;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one listener of a {@link OneListenerFuture}: told exactly once, by every way the future
 * can complete, whether it listened before or after; after the future's own dependents; never
 * unwinding whoever completed it; and a second listener falls back to {@code whenComplete}.
 */
class OneListenerFutureTest {

    /** Records what it was told and how often. */
    private static final class Recorder implements BiConsumer<Object, Throwable> {
        final List<String> calls = new ArrayList<>();

        @Override
        public synchronized void accept(Object value, Throwable error) {
            calls.add(error == null ? "value " + value : "error " + error.getClass().getSimpleName());
        }
    }

    @Test
    void aListenerRegisteredBeforeTheCompletionIsToldOnceWithTheValue() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        Recorder r = new Recorder();
        OneListenerFuture.listen(f, r);
        assertThat(r.calls).isEmpty();
        assertThat(f.complete("a")).isTrue();
        assertThat(f.complete("b")).isFalse();
        f.completeExceptionally(new IllegalStateException());
        assertThat(r.calls).containsExactly("value a");
    }

    @Test
    void aListenerRegisteredAfterTheCompletionIsToldAtOnce() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        f.completeExceptionally(new IllegalStateException("x"));
        Recorder r = new Recorder();
        OneListenerFuture.listen(f, r);
        // Bare, as whenComplete gives a failure the future was completed with.
        assertThat(r.calls).containsExactly("error IllegalStateException");
    }

    @Test
    void aFailureReachesTheListenerBareAndACancellationAsItself() {
        OneListenerFuture<String> failed = new OneListenerFuture<>();
        Recorder r = new Recorder();
        OneListenerFuture.listen(failed, r);
        failed.completeExceptionally(new IllegalArgumentException());
        OneListenerFuture<String> cancelled = new OneListenerFuture<>();
        Recorder c = new Recorder();
        OneListenerFuture.listen(cancelled, c);
        assertThat(cancelled.cancel(false)).isTrue();
        OneListenerFuture<String> cancelledFirst = new OneListenerFuture<>();
        cancelledFirst.cancel(true);
        Recorder late = new Recorder();
        OneListenerFuture.listen(cancelledFirst, late);
        assertThat(r.calls).containsExactly("error IllegalArgumentException");
        assertThat(c.calls).containsExactly("error CancellationException");
        assertThat(late.calls).containsExactly("error CancellationException");
    }

    @Test
    void theFutureOwnDependentsRunBeforeTheListener() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        List<String> order = new ArrayList<>();
        OneListenerFuture.listen(f, (v, e) -> order.add("listener"));
        f.thenRun(() -> order.add("dependent"));
        f.complete("a");
        assertThat(order).containsExactly("dependent", "listener");
    }

    @Test
    void aListenerThatThrowsNeverUnwindsTheCompleter() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        AtomicInteger calls = new AtomicInteger();
        OneListenerFuture.listen(f, (v, e) -> {
            calls.incrementAndGet();
            throw new StackOverflowError("listener");
        });
        assertThat(f.complete("a")).isTrue();
        assertThat(f.join()).isEqualTo("a");
        OneListenerFuture<String> done = new OneListenerFuture<>();
        done.complete("b");
        OneListenerFuture.listen(done, (v, e) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("listener");
        });
        assertThat(calls).hasValue(2);
    }

    @Test
    void aSecondListenerFallsBackToWhenCompleteAndBothAreTold() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        Recorder first = new Recorder();
        Recorder second = new Recorder();
        OneListenerFuture.listen(f, first);
        OneListenerFuture.listen(f, second);
        f.complete("a");
        assertThat(first.calls).containsExactly("value a");
        assertThat(second.calls).containsExactly("value a");
        // And any other stage is listened to with whenComplete.
        CompletableFuture<String> plain = new CompletableFuture<>();
        Recorder third = new Recorder();
        OneListenerFuture.listen(plain, third);
        plain.complete("p");
        assertThat(third.calls).containsExactly("value p");
    }

    @Test
    void everyWayToCompleteTheFutureReachesTheListener() throws Exception {
        Executor direct = Runnable::run;
        OneListenerFuture<String> async = new OneListenerFuture<>();
        Recorder a = new Recorder();
        OneListenerFuture.listen(async, a);
        async.completeAsync(() -> "async", direct);
        OneListenerFuture<String> asyncFails = new OneListenerFuture<>();
        Recorder af = new Recorder();
        OneListenerFuture.listen(asyncFails, af);
        asyncFails.completeAsync(() -> {
            throw new IllegalStateException("supplier");
        }, direct);
        OneListenerFuture<String> obtruded = new OneListenerFuture<>();
        Recorder o = new Recorder();
        OneListenerFuture.listen(obtruded, o);
        obtruded.obtrudeValue("forced");
        obtruded.obtrudeException(new IllegalStateException()); // after the one call: not told again
        OneListenerFuture<String> timedOut = new OneListenerFuture<>();
        CountDownLatch told = new CountDownLatch(1);
        AtomicReference<Throwable> timeout = new AtomicReference<>();
        OneListenerFuture.listen(timedOut, (v, e) -> {
            timeout.set(e);
            told.countDown();
        });
        timedOut.orTimeout(1, TimeUnit.MILLISECONDS);
        assertThat(a.calls).containsExactly("value async");
        assertThat(af.calls).containsExactly("error IllegalStateException");
        assertThat(o.calls).containsExactly("value forced");
        assertThat(told.await(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(timeout.get()).isInstanceOf(TimeoutException.class);
    }

    @RepeatedTest(20)
    void aListenerRacingTheCompletionIsToldExactlyOnce() throws Exception {
        for (int i = 0; i < 200; i++) {
            OneListenerFuture<Integer> f = new OneListenerFuture<>();
            AtomicInteger calls = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            Thread completer = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                f.complete(1);
            });
            completer.start();
            go.countDown();
            OneListenerFuture.listen(f, (v, e) -> calls.incrementAndGet());
            completer.join(10_000);
            assertThat(calls).hasValue(1);
        }
    }

    @Test
    void aCancelledFutureStaysCancelled() {
        OneListenerFuture<String> f = new OneListenerFuture<>();
        f.cancel(false);
        assertThat(f.isCancelled()).isTrue();
        assertThat(f.complete("late")).isFalse();
        assertThat(f.handle((v, e) -> e)).isCompletedWithValueMatching(e -> e instanceof CancellationException);
    }
}
