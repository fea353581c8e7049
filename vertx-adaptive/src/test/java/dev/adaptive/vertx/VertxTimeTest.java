package dev.adaptive.vertx;

import dev.adaptive.time.Cancellable;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(VertxExtension.class)
class VertxTimeTest {

    private static final long MS = 1_000_000;

    @Test
    void delaysRoundUpToWholeMillisecondsSoAWaitNeverEndsEarly() {
        assertThat(VertxTime.millisRoundedUp(1)).isEqualTo(1);
        assertThat(VertxTime.millisRoundedUp(MS)).isEqualTo(1);
        assertThat(VertxTime.millisRoundedUp(MS + 1)).isEqualTo(2);
        assertThat(VertxTime.millisRoundedUp(1_500 * MS)).isEqualTo(1_500);
        assertThat(VertxTime.millisRoundedUp(Long.MAX_VALUE)).isPositive().isLessThan(Long.MAX_VALUE / MS);
    }

    @Test
    void runsOnItsContextAndNeverBeforeTheDelay(Vertx vertx) {
        Context ctx = vertx.getOrCreateContext();
        VertxTime time = VertxTime.on(ctx);
        Promise<Long> ran = Promise.promise();
        AtomicReference<Context> on = new AtomicReference<>();
        long start = time.nanoTime();
        time.schedule(() -> {
            on.set(Vertx.currentContext());
            ran.complete(time.nanoTime());
        }, 30 * MS);
        long at = Await.result(ran.future());
        assertThat(at - start).isGreaterThanOrEqualTo(30 * MS);
        assertThat(on.get()).isSameAs(ctx);
        assertThat(time.context()).isSameAs(ctx);
    }

    @Test
    void zeroDelayRunsOnTheContextNotOnTheCallingThread(Vertx vertx) {
        Context ctx = vertx.getOrCreateContext();
        VertxTime time = VertxTime.on(ctx);
        Promise<Boolean> ranInline = Promise.promise();
        Promise<Context> ranOn = Promise.promise();
        ctx.runOnContext(v -> {
            AtomicBoolean returned = new AtomicBoolean();
            time.schedule(() -> {
                ranOn.complete(Vertx.currentContext());
                ranInline.complete(!returned.get());
            }, 0);
            returned.set(true);
        });
        assertThat(Await.result(ranInline.future())).isFalse();
        assertThat(Await.result(ranOn.future())).isSameAs(ctx);
    }

    @Test
    void cancelledTasksNeverRunWhetherArmedOrStillHopping(Vertx vertx) {
        Context ctx = vertx.getOrCreateContext();
        VertxTime time = VertxTime.on(ctx);
        AtomicBoolean ranArmed = new AtomicBoolean();
        AtomicBoolean ranHopping = new AtomicBoolean();
        Promise<Boolean> armedCancel = Promise.promise();
        ctx.runOnContext(v -> {
            Cancellable c = time.schedule(() -> ranArmed.set(true), 20 * MS);
            armedCancel.complete(c.cancel());
        });
        assertThat(Await.result(armedCancel.future())).isTrue();
        // From the test thread the timer is set by a hop to the context; cancel before it lands.
        Cancellable hopping = time.schedule(() -> ranHopping.set(true), MS);
        assertThat(hopping.cancel()).isTrue();
        assertThat(hopping.cancel()).as("second cancel").isFalse();
        Promise<Void> later = Promise.promise();
        time.schedule(later::complete, 60 * MS);
        Await.result(later.future());
        assertThat(ranArmed).isFalse();
        assertThat(ranHopping).isFalse();
    }

    @Test
    void aThrowingTaskGoesToTheContextExceptionHandler(Vertx vertx) {
        Context ctx = vertx.getOrCreateContext();
        Promise<Throwable> reported = Promise.promise();
        ctx.exceptionHandler(reported::tryComplete);
        VertxTime time = VertxTime.on(ctx);
        time.schedule(() -> {
            throw new IllegalStateException("boom");
        }, MS);
        assertThat(Await.result(reported.future())).hasMessage("boom");
        Promise<Void> after = Promise.promise();
        time.schedule(after::complete, MS);
        Await.result(after.future());
    }
}
