package dev.adaptive;

import dev.adaptive.contract.ArchitectureContract;
import dev.adaptive.contract.PackageCycles;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's packages hold to {@link ArchitectureContract}, with {@code internal} at the
 * bottom and {@code spi} below the root package.
 */
class ArchitectureTest extends ArchitectureContract {

    @Test
    void internalDependsOnNoOtherPackage() {
        assertThat(PackageCycles.of(CLASSES).edges().get("dev.adaptive.internal")).isEmpty();
    }

    @Test
    void theSpiNamesNoRootType() {
        Map<String, Set<String>> edges = PackageCycles.of(CLASSES).edges();
        assertThat(edges.get("dev.adaptive.spi")).doesNotContain("dev.adaptive");
        assertThat(edges.get("dev.adaptive")).contains("dev.adaptive.spi");
    }
}
