package dev.adaptive.contract;

import dev.adaptive.AdaptiveException;
import dev.adaptive.RejectedException;
import dev.adaptive.pool.PoolAbortedException;
import dev.adaptive.queue.QueueAbortedException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The scan of public exceptions, and the check that names one of another base. */
public class PublicExceptionsTest {

    private static final Path CLASSES = Path.of("target/classes");

    @Test
    void theScanFindsTheEnginesExceptions() {
        assertThat(PublicExceptions.in(CLASSES)).contains(AdaptiveException.class, RejectedException.class,
                PoolAbortedException.class, QueueAbortedException.class);
    }

    @Test
    void anExceptionOfAnotherBaseIsNamed() {
        assertThatThrownBy(() -> PublicExceptions.assertAllExtendAdaptiveException(
                Path.of("target/test-classes"), Set.of()))
                .isInstanceOf(AssertionError.class).hasMessageContaining(Outsider.class.getName());
    }

    /** A public exception of the test classes that does not extend the base. */
    public static class Outsider extends RuntimeException {
    }
}
