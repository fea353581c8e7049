package dev.adaptive.fleet;

import dev.adaptive.Limiter;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.time.VirtualTime;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FleetOptionsTest {

    private final VirtualTime time = new VirtualTime();
    private final Limiter limiter = Limiter.builder().limit(FixedLimit.of(5)).time(time).build();
    private final InMemoryCoordinator store = new InMemoryCoordinator(time);

    private FleetMember.Builder builder() {
        return FleetMember.builder(limiter, store).key("k").nodeId("n").learnCapacity(false);
    }

    @Test
    void nodeIdIsRequiredAndHasNoDefault() {
        assertThatThrownBy(() -> FleetMember.builder(limiter, store).key("k").join())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("nodeId must be set and not blank").hasMessageEndingWith(": null");
        assertThatThrownBy(() -> builder().nodeId("  ").join())
                .isInstanceOf(IllegalArgumentException.class).hasMessageEndingWith(": '  '");
        assertThat(limiter.ceiling()).isEqualTo(Integer.MAX_VALUE); // nothing attached
    }

    @Test
    void keyIsRequired() {
        assertThatThrownBy(() -> FleetMember.builder(limiter, store).nodeId("n").join())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must be set and not blank: null");
        assertThatThrownBy(() -> builder().key("").join())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key must be set and not blank: ''");
    }

    @Test
    void heartbeatAndTtlMustBePositiveAndTtlMustExceedTheHeartbeat() {
        assertThatThrownBy(() -> builder().heartbeat(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat must be positive: PT0S");
        assertThatThrownBy(() -> builder().heartbeat(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat must be positive: null");
        assertThatThrownBy(() -> builder().ttl(Duration.ofSeconds(-2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ttl must be positive: PT-2S");
        assertThatThrownBy(() -> builder().ttl(Duration.ofSeconds(1)).join())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ttl must exceed heartbeat (PT1S): PT1S");
        assertThatThrownBy(() -> builder().heartbeat(Duration.ofSeconds(5)).ttl(Duration.ofSeconds(3)).join())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("ttl must exceed heartbeat (PT5S): PT3S");
        assertThatThrownBy(() -> builder().heartbeat(Duration.ofDays(400)).join())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("heartbeat must be at most PT8760H: PT9600H");
        assertThatThrownBy(() -> builder().outagePolicy(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("outagePolicy");
    }

    @Test
    void aTtlJustAboveTheHeartbeatStillKeepsTheShareBetweenBeats() {
        FleetMember m = builder().heartbeat(Duration.ofSeconds(1)).ttl(Duration.ofMillis(1100)).join();
        for (int i = 0; i < 10; i++) {
            time.advance(Duration.ofMillis(250));
            assertThat(limiter.limit()).isEqualTo(5);
        }
        m.close();
    }
}
