package dev.adaptive.testing;

import java.io.IOException;
import java.io.InputStream;

/**
 * Loads a module's own classes itself and refuses the classes of the packages it hides; the
 * rest comes from the parent. So a test sees the module as it runs where an optional dependency
 * is absent: any class that names a hidden one fails to load or link.
 */
public final class HidingClassLoader extends ClassLoader {

    private final String own;
    private final String[] hidden;

    /**
     * @param parent         where everything else comes from
     * @param ownPrefix      the package prefix (with the trailing dot) of the classes it loads itself
     * @param hiddenPrefixes package prefixes (with the trailing dot) to refuse
     */
    public HidingClassLoader(ClassLoader parent, String ownPrefix, String... hiddenPrefixes) {
        super(parent);
        this.own = ownPrefix;
        this.hidden = hiddenPrefixes.clone();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        for (String prefix : hidden) {
            if (name.startsWith(prefix)) {
                throw new ClassNotFoundException(name + " is hidden");
            }
        }
        if (!name.startsWith(own)) {
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
