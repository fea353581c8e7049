package dev.adaptive.camel;

import dev.adaptive.contract.PackageCycles;
import dev.adaptive.contract.PackageInfos;
import dev.adaptive.contract.PublicExceptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

/** The component's packages: no cycle, each documented, one exception base. */
class ArchitectureTest {

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(Path.of("target/classes"));
    }

    @Test
    void everyPackageSaysWhatItIsFor() {
        PackageInfos.assertEveryPackageDocumented(Path.of("src/main/java"));
    }

    /**
     * Except {@link AdaptiveConsumerNotAvailableException}: it is a
     * {@code CamelExchangeException}, as Camel's own {@code direct:} one is, so that routes
     * treat it like any missing consumer.
     */
    @Test
    void everyPublicExceptionExtendsAdaptiveException() {
        PublicExceptions.assertAllExtendAdaptiveException(Path.of("target/classes"),
                Set.of(AdaptiveConsumerNotAvailableException.class));
    }
}
