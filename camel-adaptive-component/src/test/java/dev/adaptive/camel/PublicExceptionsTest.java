package dev.adaptive.camel;

import dev.adaptive.contract.PublicExceptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

/**
 * Every public exception of the component extends {@link dev.adaptive.AdaptiveException},
 * except {@link AdaptiveConsumerNotAvailableException}: it is a {@code CamelExchangeException},
 * as Camel's own {@code direct:} one is, so that routes treat it like any missing consumer.
 */
class PublicExceptionsTest {

    @Test
    void everyPublicExceptionExtendsTheBase() {
        PublicExceptions.assertAllExtendAdaptiveException(Path.of("target/classes"),
                Set.of(AdaptiveConsumerNotAvailableException.class));
    }
}
