package dev.adaptive;

import dev.adaptive.contract.PackageCycles;
import dev.adaptive.contract.PackageInfos;
import dev.adaptive.contract.PublicExceptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's packages: no cycle; {@code internal} at the bottom and {@code spi} below the
 * root package; each package documented; one exception base.
 */
class ArchitectureTest {

    private static final Path CLASSES = Path.of("target/classes");

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(CLASSES);
    }

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

    @Test
    void everyPackageSaysWhatItIsFor() {
        PackageInfos.assertEveryPackageDocumented(Path.of("src/main/java"));
    }

    @Test
    void everyPublicExceptionExtendsAdaptiveException() {
        PublicExceptions.assertAllExtendAdaptiveException(CLASSES, Set.of());
    }
}
