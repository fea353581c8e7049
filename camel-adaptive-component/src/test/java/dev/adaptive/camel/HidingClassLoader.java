package dev.adaptive.camel;

import java.io.IOException;
import java.io.InputStream;

/**
 * Loads the component's own classes itself and refuses the classes of the packages it hides;
 * the rest comes from the parent. So a test sees the component as it runs where an optional
 * dependency is absent: any class that names a hidden one fails to load or link.
 */
final class HidingClassLoader extends ClassLoader {

    private final String[] hidden;

    /**
     * @param parent          where everything else comes from
     * @param hiddenPrefixes  package prefixes (with the trailing dot) to refuse
     */
    HidingClassLoader(ClassLoader parent, String... hiddenPrefixes) {
        super(parent);
        this.hidden = hiddenPrefixes.clone();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        for (String prefix : hidden) {
            if (name.startsWith(prefix)) {
                throw new ClassNotFoundException(name + " is hidden");
            }
        }
        if (!name.startsWith("dev.adaptive.camel.")) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null) {
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    c = defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }
}
