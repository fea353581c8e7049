package dev.adaptive.vertx;

import dev.adaptive.contract.CoordinatorContract;
import dev.adaptive.fleet.Coordinator;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.time.Clock;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The coordinator's contract ({@link CoordinatorContract}) on one (non-clustered) Vert.x, with a
 * wall clock the tests move, and what is the shared-data store's own.
 */
@ExtendWith(VertxExtension.class)
class SharedDataCoordinatorTest extends CoordinatorContract {

    private static Vertx shared;

    @BeforeAll
    static void startVertx() {
        shared = Vertx.vertx();
    }

    @AfterAll
    static void closeVertx() {
        Await.result(shared.close());
    }

    @Override
    protected Coordinator coordinator(String namespace, Clock clock) {
        return SharedDataCoordinator.create(shared, namespace, Duration.ofSeconds(5), clock);
    }

    @Test
    void theMapKeepsAnEntryAWholeSecondPastItsStampedExpiry() {
        // The stamp decides what is live; the map's TTL only clears what nobody removes, and a
        // cluster manager may round it to whole seconds.
        assertThat(SharedDataCoordinator.storeTtl(1)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_000)).isEqualTo(2_000);
        assertThat(SharedDataCoordinator.storeTtl(1_001)).isEqualTo(3_000);
        assertThat(SharedDataCoordinator.storeTtl(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void badArgumentsAreRejected(Vertx vertx) {
        assertThatThrownBy(() -> SharedDataCoordinator.create(vertx, "p.", Duration.ZERO, Clock.systemUTC()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockTimeout");
    }
}
