package dev.adaptive.contract;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The package graph read by jdeps, and the check that would see a cycle in it. */
class PackageCyclesTest {

    @Test
    void jdepsSeesTheEnginesDependencies() {
        Map<String, Set<String>> edges = PackageCycles.of(Path.of("target/classes")).edges();
        assertThat(edges.get("dev.adaptive")).contains("dev.adaptive.limit", "dev.adaptive.time");
        assertThat(edges.get("dev.adaptive.pool")).contains("dev.adaptive");
    }

    @Test
    void aCycleIsFoundWithTheEdgesRoundIt() {
        PackageCycles graph = new PackageCycles(Map.of(
                "a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a", "d"), "d", Set.of()));
        assertThat(graph.cycles()).containsExactly("[a, b, c]:\n    a -> b\n    b -> c\n    c -> a");
    }

    @Test
    void aLayeredGraphHasNoCycle() {
        PackageCycles graph = new PackageCycles(Map.of("a", Set.of("b", "c"), "b", Set.of("c"), "c", Set.of()));
        assertThat(graph.cycles()).isEmpty();
    }

    @Test
    void anImplPackageIsPartOfItsApiPackage() {
        assertThat(PackageCycles.unit("dev.adaptive.vertx.impl")).isEqualTo("dev.adaptive.vertx");
        assertThat(PackageCycles.unit("dev.adaptive.internal")).isEqualTo("dev.adaptive.internal");
    }

    @Test
    void anEmptyDirectoryIsNotAClearedOne(@TempDir Path empty) {
        assertThatThrownBy(() -> PackageCycles.assertAcyclic(empty))
                .isInstanceOf(AssertionError.class).hasMessageContaining("no dev.adaptive package");
    }
}
