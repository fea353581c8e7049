package dev.adaptive.benchmarks.http;

import dev.adaptive.benchmarks.model.Scenario;
import dev.adaptive.testing.DownstreamStats;
import dev.adaptive.testing.FlakyHttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * CI smoke test of the S3 harness's Adaptive faces (core pool, Camel, Vert.x): a short S3 (40
 * items) over real HTTP on 127.0.0.1, one run each. It checks that each face is wired to the
 * real stack and reports honestly, not how fast it is: every item ends with a 200, the server
 * saw at least one request per item and nothing is left in flight, the face's own wall time is
 * positive, and no request was sent into a Retry-After window the client had already read of
 * (each face reports what it had read in a header; -1, "not measured", would fail too). A few seconds; the measured runs live outside CI (docs/benchmarks.md).
 */
class AdaptiveFacesSmokeTest {

    private static final Scenario SHORT = Scenario.S3.withItems(40);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyFaceSendsEveryItemOverRealHttpAndLeavesTheServerIdle() throws Exception {
        for (HttpFace face : List.of(new AdaptiveJdkFace(), new CamelFace(), new VertxFace())) {
            HttpFace.Tally tally;
            DownstreamStats seen;
            try (FlakyHttpServer server = FlakyHttpServer.start(SHORT.server())) {
                tally = face.run(URI.create(server.url("/")), SHORT);
                seen = server.stats();
            }
            assertThat(face.adaptive()).as(face.name()).isTrue();
            assertThat(tally.ok()).as(face.name()).isEqualTo(SHORT.items());
            assertThat(tally.failed()).as(face.name()).isZero();
            assertThat(tally.wallNanos()).as(face.name()).isPositive();
            assertThat(seen.ok()).as(face.name()).isEqualTo(SHORT.items());
            assertThat(seen.arrivals()).as(face.name()).isEqualTo(seen.ok() + seen.tooMany() + seen.serverErrors());
            assertThat(seen.inflight()).as(face.name()).isZero();
            // Every request said what its client had read, and none was sent into a window the
            // client already knew of.
            assertThat(seen.arrivalsAfterClientKnew()).as(face.name()).isZero();
        }
    }
}
