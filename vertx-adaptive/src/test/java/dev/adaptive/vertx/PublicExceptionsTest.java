package dev.adaptive.vertx;

import dev.adaptive.contract.PublicExceptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

/** Every public exception of the module extends {@link dev.adaptive.AdaptiveException}. */
class PublicExceptionsTest {

    @Test
    void everyPublicExceptionExtendsTheBase() {
        PublicExceptions.assertAllExtendAdaptiveException(Path.of("target/classes"), Set.of());
    }
}
