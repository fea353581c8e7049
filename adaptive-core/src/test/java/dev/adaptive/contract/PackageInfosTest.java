package dev.adaptive.contract;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The check that every package has a package-info.java saying its status. */
class PackageInfosTest {

    @Test
    void aPackageWithoutOneIsNamed(@TempDir Path src) throws IOException {
        write(src.resolve("a/A.java"), "package a; class A {}");
        write(src.resolve("a/package-info.java"), "/** For a. Status: public API. */ package a;");
        write(src.resolve("a/b/B.java"), "package a.b; class B {}");
        assertThat(PackageInfos.missing(src)).containsExactly(Path.of("a/b"));
        assertThatThrownBy(() -> PackageInfos.assertEveryPackageDocumented(src)).hasMessageContaining("a/b");
    }

    @Test
    void onlyAStatusCountsAsSayingWhatItIs(@TempDir Path src) throws IOException {
        write(src.resolve("a/A.java"), "package a; class A {}");
        write(src.resolve("a/package-info.java"), "/** For a. */ package a;");
        assertThatThrownBy(() -> PackageInfos.assertEveryPackageDocumented(src)).hasMessageContaining("Status");
        write(src.resolve("a/package-info.java"), "/** For a. Status: internal. */ package a;");
        PackageInfos.assertEveryPackageDocumented(src);
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }
}
