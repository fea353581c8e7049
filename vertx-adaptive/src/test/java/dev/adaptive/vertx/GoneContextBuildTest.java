package dev.adaptive.vertx;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.VertxPrometheusOptions;
import io.vertx.micrometer.backends.BackendRegistries;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A limiter asked for, on an open Vert.x instance with Micrometer metrics on, with a home
 * context that runs nothing any more: a worker verticle's, on a worker pool of its own that its
 * undeploy shut down. Every timer of such a limiter would be refused, and so would every call
 * made outside any context: the build fails, naming the context, and leaves nothing behind.
 */
class GoneContextBuildTest {

    private final Vertx vertx = Vertx.vertx(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions()
            .setEnabled(true).setPrometheusOptions(new VertxPrometheusOptions().setEnabled(true))));

    @AfterEach
    void closeVertx() {
        Await.settled(vertx.close());
    }

    private Context contextOfAnUndeployedWorker() {
        AtomicReference<Context> made = new AtomicReference<>();
        String deployment = Await.result(vertx.deployVerticle(new VerticleBase() {
            @Override
            public Future<?> start() {
                made.set(context);
                return Future.succeededFuture();
            }
        }, new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER).setWorkerPoolName("gone-worker")));
        Await.result(vertx.undeploy(deployment));
        return made.get();
    }

    private static long metersOf(String name) {
        MeterRegistry registry = BackendRegistries.getDefaultNow();
        return registry.getMeters().stream().filter(m -> name.equals(m.getId().getTag("name"))).count();
    }

    private void failsNamingTheContextAndLeavesNothingBound(AdaptiveOptions options) {
        Context gone = contextOfAnUndeployedWorker();

        Throwable thrown = catchThrowable(() -> AdaptiveLimiter.builder(vertx, options).context(gone).build());
        long leftBound = metersOf(options.getName());
        // Nothing of it holds the name: a limiter of the same name gets the meters.
        AdaptiveLimiter next = AdaptiveLimiter.create(vertx, options);
        long ofNext = metersOf(options.getName());
        Await.result(next.close());
        long afterNext = metersOf(options.getName());

        SoftAssertions.assertSoftly(soft -> {
            soft.assertThat(thrown).as("what build() threw").isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("adaptive limiter '" + options.getName() + "': its context runs nothing any more"
                            + " (its worker pool or event loop shut down, as a worker verticle's with a pool of"
                            + " its own after its undeploy); give it a context that runs")
                    .hasCauseInstanceOf(RejectedExecutionException.class);
            soft.assertThat(leftBound).as("meters left bound").isZero();
            soft.assertThat(ofNext).as("meters of the next limiter of that name").isPositive();
            soft.assertThat(afterNext).as("meters left once that one closed").isZero();
        });
    }

    @Test
    void withAStatsAddressItFailsNamingTheContextAndLeavesNoMetersBound() {
        failsNamingTheContextAndLeavesNothingBound(new AdaptiveOptions().setName("orders-published")
                .setStatsAddress("orders.stats"));
    }

    @Test
    void withoutAStatsAddressItFailsTheSameWay() {
        failsNamingTheContextAndLeavesNothingBound(new AdaptiveOptions().setName("orders-unpublished"));
    }
}
