package dev.adaptive.contract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The packages of a source tree that lack a {@code package-info.java}: each package says what
 * it is for and whether it is API, SPI or internal.
 */
public final class PackageInfos {

    private PackageInfos() {
    }

    /**
     * @param sources a source root, such as {@code src/main/java}
     * @return the directories under it that hold Java sources and no {@code package-info.java}
     */
    public static List<Path> missing(Path sources) {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(p -> p.toString().endsWith(".java")).map(Path::getParent).distinct()
                    .filter(dir -> !Files.exists(dir.resolve("package-info.java")))
                    .map(sources::relativize).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Asserts that every package under {@code sources} has a {@code package-info.java} that says
     * its status, and that there is at least one package.
     *
     * @param sources a source root
     * @throws AssertionError naming the packages without one, or whose one says no status
     */
    public static void assertEveryPackageDocumented(Path sources) {
        if (!Files.isDirectory(sources)) {
            throw new AssertionError("no sources at " + sources.toAbsolutePath());
        }
        List<Path> missing = missing(sources);
        if (!missing.isEmpty()) {
            throw new AssertionError("packages without a package-info.java: " + missing);
        }
        try (Stream<Path> files = Files.walk(sources)) {
            List<Path> silent = files.filter(p -> p.getFileName().toString().equals("package-info.java"))
                    .filter(p -> !read(p).contains("Status: ")).map(sources::relativize).sorted().toList();
            if (!silent.isEmpty()) {
                throw new AssertionError("package-info.java without a \"Status: \" (API, SPI or internal): " + silent);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
