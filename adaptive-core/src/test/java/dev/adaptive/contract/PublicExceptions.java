package dev.adaptive.contract;

import dev.adaptive.AdaptiveException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The public exceptions in a directory of compiled classes, each checked to extend
 * {@link AdaptiveException}: a user's one {@code catch} must see every failure the library
 * hands out. Exceptions that must extend a type of their framework instead are named, with the
 * reason, by the module's test.
 */
public final class PublicExceptions {

    private PublicExceptions() {
    }

    /**
     * @param classes a directory of compiled classes, such as {@code target/classes}
     * @return the public {@link Throwable} types in it, nested ones included
     */
    public static List<Class<?>> in(Path classes) {
        try (Stream<Path> files = Files.walk(classes)) {
            return files.map(classes::relativize).map(Path::toString)
                    .filter(p -> p.endsWith(".class") && !p.endsWith("module-info.class") && !p.endsWith("package-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.').replace('\\', '.'))
                    .<Class<?>>map(PublicExceptions::load)
                    .filter(c -> Throwable.class.isAssignableFrom(c) && visible(c))
                    .sorted((a, b) -> a.getName().compareTo(b.getName()))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Asserts that every public exception in {@code classes} extends {@link AdaptiveException},
     * except {@code exempt}, and that there is at least one.
     *
     * @param classes a directory of compiled classes
     * @param exempt  exceptions that extend their framework's type instead
     * @throws AssertionError naming every public exception of another base
     */
    public static void assertAllExtendAdaptiveException(Path classes, Set<Class<?>> exempt) {
        List<Class<?>> all = in(classes);
        if (all.isEmpty()) {
            throw new AssertionError("no public exception in " + classes.toAbsolutePath());
        }
        List<String> others = all.stream().filter(c -> !exempt.contains(c))
                .filter(c -> !AdaptiveException.class.isAssignableFrom(c)).map(Class::getName).toList();
        if (!others.isEmpty()) {
            throw new AssertionError("public exceptions that do not extend AdaptiveException: " + others);
        }
    }

    /** Public, and so is every class it is nested in. */
    private static boolean visible(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, PublicExceptions.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new AssertionError("cannot load " + name, e);
        }
    }
}
