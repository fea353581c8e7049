package dev.adaptive.hazelcast;

import dev.adaptive.contract.PackageCycles;
import dev.adaptive.contract.PackageInfos;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/** The module's packages: no cycle, each documented (it throws no exception of its own). */
class ArchitectureTest {

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(Path.of("target/classes"));
    }

    @Test
    void everyPackageSaysWhatItIsFor() {
        PackageInfos.assertEveryPackageDocumented(Path.of("src/main/java"));
    }
}
