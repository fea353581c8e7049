package dev.adaptive.contract;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every module of the library holds to, run by a subclass in each module's tests from the
 * module's directory: its {@code dev.adaptive} packages form no cycle ({@link PackageCycles}),
 * each says what it is for and its status ({@link PackageInfos}), and every public exception
 * extends {@link dev.adaptive.AdaptiveException} ({@link PublicExceptions}).
 */
public abstract class ArchitectureContract {

    /** The module's compiled classes. */
    protected static final Path CLASSES = Path.of("target/classes");

    /**
     * @return the module's public exceptions that extend their framework's type instead, each
     *         with its reason in the subclass's javadoc; none by default
     */
    protected Set<Class<?>> exceptionsOfOtherBases() {
        return Set.of();
    }

    /** @return whether the module has public exceptions of its own; {@code true} by default */
    protected boolean hasPublicExceptions() {
        return true;
    }

    @Test
    void thePackagesFormNoCycle() {
        PackageCycles.assertAcyclic(CLASSES);
    }

    @Test
    void everyPackageSaysWhatItIsFor() {
        PackageInfos.assertEveryPackageDocumented(Path.of("src/main/java"));
    }

    @Test
    void everyPublicExceptionExtendsAdaptiveException() {
        if (hasPublicExceptions()) {
            PublicExceptions.assertAllExtendAdaptiveException(CLASSES, exceptionsOfOtherBases());
        } else {
            assertThat(PublicExceptions.in(CLASSES)).isEmpty();
        }
    }
}
