package dev.adaptive.camel;

import dev.adaptive.contract.PackageCycles;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

/** This module's packages form no cycle (see {@link PackageCycles}). */
class PackageCyclesTest {

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(Path.of("target/classes"));
    }
}
