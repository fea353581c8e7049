package dev.adaptive.vertx;

import dev.adaptive.LimiterClosedException;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A close, the limiter's or its Vert.x instance's, runs no call's cancel callback on the closing
 * thread and does not wait there for one: each call's cancellation fires on that call's own
 * context, and the close's future completes once they have. The callback here blocks until the
 * test lets it go, as a user's cleanup waiting on something might.
 */
class CloseCancelContextTest {

    private final Vertx vertx = Vertx.vertx();
    private final CountDownLatch inCallback = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicReference<Thread> taskThread = new AtomicReference<>();
    private final AtomicReference<Thread> callbackThread = new AtomicReference<>();

    @AfterEach
    void closeVertx() {
        release.countDown();
        Await.settled(vertx.close());
    }

    /** Starts, on {@code caller}, a call whose attempt hangs and whose cancel callback blocks. */
    private Future<String> blockingCall(AdaptiveLimiter limiter, Context caller) {
        Promise<Future<String>> made = Promise.promise();
        Promise<Void> running = Promise.promise();
        caller.runOnContext(v -> made.complete(limiter.<String>executeWithContext(ctx -> {
            taskThread.set(Thread.currentThread());
            ctx.cancellation().onCancel(() -> {
                callbackThread.set(Thread.currentThread());
                inCallback.countDown();
                await(release);
            });
            running.complete();
            return Promise.<String>promise().future();
        })));
        Await.result(running.future());
        return Await.result(made.future());
    }

    @Test
    void closingVertxRunsTheCancelCallbackOnTheCallsContextAndReturnsWithoutWaitingForIt() {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("orders"));
        Future<String> call = blockingCall(limiter, vertx.getOrCreateContext());
        CompletableFuture<Future<Void>> vertxClose = new CompletableFuture<>();
        Thread closer = new Thread(() -> vertxClose.complete(vertx.close()), "closer");
        closer.start();

        await(inCallback);
        assertThat(callbackThread.get()).as("the thread the cancel callback runs on").isSameAs(taskThread.get());
        assertThat(vertxClose.join().isComplete()).as("Vert.x closed while the callback still runs").isFalse();
        release.countDown();
        Await.result(vertxClose.join());
        // Read as it is: its event loop is gone, so nothing can be waited for on it.
        assertThat(call.isComplete()).as("the call ended before Vert.x closed").isTrue();
        assertThat(call.cause()).isInstanceOf(LimiterClosedException.class)
                .hasMessage("adaptive limiter 'orders' was closed before the call completed");
    }

    @Test
    void aCloseOnAnotherEventLoopRunsNoCancelCallbackOfACallMadeElsewhereAndCompletesOnceItHasRun() {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("orders"));
        // Contexts of two event loops: getOrCreateContext may put both on one.
        EventLoopGroup loops = ((VertxInternal) vertx).nettyEventLoopGroup();
        EventLoop callerLoop = loops.next();
        EventLoop closingLoop = loops.next();
        assertThat(closingLoop).as("a second event loop").isNotSameAs(callerLoop);
        Context caller = ((VertxInternal) vertx).contextBuilder().withEventLoop(callerLoop).build();
        Context closing = ((VertxInternal) vertx).contextBuilder().withEventLoop(closingLoop).build();
        Future<String> call = blockingCall(limiter, caller);

        Promise<Future<Void>> closed = Promise.promise();
        closing.runOnContext(v -> closed.complete(limiter.close()));
        await(inCallback);
        assertThat(callbackThread.get()).as("the thread the cancel callback runs on").isSameAs(taskThread.get());
        Future<Void> close = Await.result(closed.future());
        assertThat(close.isComplete()).as("closed while the callback still runs").isFalse();
        release.countDown();
        Await.result(close);
        assertThat(Await.failure(call)).isInstanceOf(LimiterClosedException.class);
    }

    /**
     * A call made on a worker verticle's context, on a worker pool of its own that the verticle's
     * undeploy shut down with the call in flight: that context runs nothing any more. The close
     * does not throw; it cancels the call on the closing thread, the only one left to run its
     * callbacks, the call ends with the close error, and the close's future completes.
     */
    @Test
    void aCloseCancelsACallWhoseContextRunsNothingAnyMoreOnTheClosingThreadInsteadOfThrowing() {
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions().setName("orders"));
        AtomicReference<Future<String>> call = new AtomicReference<>();
        String deployment = Await.result(vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                // Made on the verticle's context, whose first attempt runs here and hangs.
                call.set(limiter.executeWithContext(ctx -> {
                    taskThread.set(Thread.currentThread());
                    ctx.cancellation().onCancel(() -> callbackThread.set(Thread.currentThread()));
                    return Promise.<String>promise().future();
                }));
                return Future.succeededFuture();
            }
        }, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER).setWorkerPoolName("orders-worker")));
        assertThat(taskThread.get()).as("the call's attempt ran on the verticle's worker").isNotNull();
        Await.result(vertx.undeploy(deployment));

        AtomicReference<Future<Void>> close = new AtomicReference<>();
        Throwable thrown = catchThrowable(() -> close.set(limiter.close()));

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what close() threw").isNull();
            soft.assertThat(callbackThread.get()).as("the thread the cancel callback ran on")
                    .isSameAs(Thread.currentThread());
            // Read as it is: its context is gone, so nothing can be waited for on it.
            soft.assertThat(call.get().isComplete()).as("the call ended").isTrue();
            soft.assertThat(call.get().cause()).as("its failure").isInstanceOf(LimiterClosedException.class)
                    .hasMessage("adaptive limiter 'orders' was closed before the call completed");
            soft.assertThat(close.get() != null && close.get().succeeded()).as("the close, complete").isTrue();
        });
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(Await.TIMEOUT_SECONDS, TimeUnit.SECONDS)).as("latch reached").isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
