package dev.adaptive.testing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** On a static field one server serves the class; on an instance field each test has its own. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FlakyHttpServerExtensionTest {

    @RegisterExtension
    static final FlakyHttpServerExtension shared = FlakyHttpServerExtension.of(FlakyModel.s3());

    @RegisterExtension
    final FlakyHttpServerExtension own = FlakyHttpServerExtension.of(FlakyModel.s3());

    private static final Set<FlakyHttpServer> sharedSeen = new HashSet<>();
    private static final Set<FlakyHttpServer> ownSeen = new HashSet<>();
    private static FlakyHttpServer lastOwn;

    @Test
    @Order(1)
    void first() {
        record();
    }

    @Test
    @Order(2)
    void second() {
        HttpClient client = HttpClient.newHttpClient();
        assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(URI.create(lastOwn.url("/x"))).build(),
                HttpResponse.BodyHandlers.discarding())).as("the first test's own server is closed")
                .isInstanceOf(IOException.class);
        record();
    }

    private void record() {
        sharedSeen.add(shared.get());
        ownSeen.add(own.get());
        lastOwn = own.get();
        assertThat(shared.url("/a")).isEqualTo("http://127.0.0.1:" + shared.port() + "/a");
        assertThat(own.port()).isNotEqualTo(shared.port());
    }

    /** A {@code @Nested} class shares the class's server: JUnit's beforeAll for it starts none. */
    @Nested
    class Inner {
        @Test
        void seesTheServerOfTheClass() {
            assertThat(sharedSeen).as("the outer tests ran first").isNotEmpty();
            assertThat(sharedSeen).singleElement().isSameAs(shared.get());
        }
    }

    @AfterAll
    static void oneSharedServerAndOneServerPerTest() {
        assertThat(sharedSeen).hasSize(1);
        assertThat(ownSeen).hasSize(2);
        assertThatThrownBy(() -> FlakyHttpServerExtension.of(FlakyModel.s3()).get())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("only during the tests");
    }
}
