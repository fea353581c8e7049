package dev.adaptive.camel;

import dev.adaptive.contract.ArchitectureContract;

import java.util.Set;

/**
 * The component's packages hold to {@link ArchitectureContract}. One exception extends another
 * base: {@link AdaptiveConsumerNotAvailableException} is a {@code CamelExchangeException}, as
 * Camel's own {@code direct:} one is, so that routes treat it like any missing consumer.
 */
class ArchitectureTest extends ArchitectureContract {

    @Override
    protected Set<Class<?>> exceptionsOfOtherBases() {
        return Set.of(AdaptiveConsumerNotAvailableException.class);
    }
}
