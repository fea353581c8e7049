package dev.adaptive.vertx;

import dev.adaptive.contract.PackageCycles;
import dev.adaptive.contract.PackageInfos;
import dev.adaptive.contract.PublicExceptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

/** The module's packages: no cycle ({@code impl} with its API), each documented, one exception base. */
class ArchitectureTest {

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(Path.of("target/classes"));
    }

    @Test
    void everyPackageSaysWhatItIsFor() {
        PackageInfos.assertEveryPackageDocumented(Path.of("src/main/java"));
    }

    @Test
    void everyPublicExceptionExtendsAdaptiveException() {
        PublicExceptions.assertAllExtendAdaptiveException(Path.of("target/classes"), Set.of());
    }
}
