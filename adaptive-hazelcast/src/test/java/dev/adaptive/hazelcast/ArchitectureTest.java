package dev.adaptive.hazelcast;

import dev.adaptive.contract.ArchitectureContract;

/** The module's packages hold to {@link ArchitectureContract}; it has no exception of its own. */
class ArchitectureTest extends ArchitectureContract {

    @Override
    protected boolean hasPublicExceptions() {
        return false;
    }
}
