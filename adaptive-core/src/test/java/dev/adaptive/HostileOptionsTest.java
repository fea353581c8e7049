package dev.adaptive;

import dev.adaptive.limit.Aimd;
import dev.adaptive.limit.Gradient2;
import dev.adaptive.limit.Vegas;
import dev.adaptive.pool.PoolOptions;
import dev.adaptive.queue.ThrottledQueue;
import dev.adaptive.retry.RetryPolicy;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Invariant 6 of docs/reliability.md over every numeric option of every core builder: a value,
 * or an IAE naming the option.
 */
class HostileOptionsTest {

    private final VirtualTime time = new VirtualTime();

    @Test
    void limiter() {
        assertThat(HostileOptions.violations(() -> Limiter.builder().time(time), Limiter.Builder::build)).isEmpty();
    }

    @Test
    void executor() {
        Limiter limiter = Limiter.builder().time(time).build();
        assertThat(HostileOptions.violations(() -> AdaptiveExecutor.builder(limiter), AdaptiveExecutor.Builder::build))
                .isEmpty();
    }

    @Test
    void retryPolicy() {
        assertThat(HostileOptions.violations(RetryPolicy::builder, RetryPolicy.Builder::build)).isEmpty();
    }

    @Test
    void algorithms() {
        assertThat(HostileOptions.violations(Vegas::builder, Vegas.Builder::build)).isEmpty();
        assertThat(HostileOptions.violations(Aimd::builder, Aimd.Builder::build)).isEmpty();
        assertThat(HostileOptions.violations(Gradient2::builder, Gradient2.Builder::build)).isEmpty();
    }

    @Test
    void throttledQueue() {
        assertThat(HostileOptions.violations(
                () -> ThrottledQueue.builder().time(time).minRate(1).interval(Duration.ofSeconds(1)),
                b -> b.build())).isEmpty();
    }

    @Test
    void poolOptions() {
        assertThat(HostileOptions.violations(PoolOptions::builder, PoolOptions.Builder::build)).isEmpty();
    }
}
