package dev.adaptive.docs;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the code blocks of the project's Markdown pages and compiles Java ones with the test's
 * class path, so that a test runs a snippet as the page prints it and breaks when the page
 * changes. Shared by the modules' documentation tests (adaptive-core's test-jar). Thread-safe.
 */
public final class Snippets {

    private static final AtomicInteger RUNS = new AtomicInteger();

    private Snippets() {
    }

    /**
     * @param page     a page, relative to the repository root ({@code README.md}, {@code docs/camel.md})
     * @param heading  the start of the heading of the section the blocks are in ({@code ## Camel})
     * @param language the fence's language ({@code java}, {@code yaml}, {@code properties}, {@code json})
     * @return the blocks of that language in that section (up to the next heading of its level), in order
     * @throws IllegalStateException if there is none
     */
    public static List<String> blocks(String page, String heading, String language) throws IOException {
        String text = Files.readString(root().resolve(page));
        int start = text.indexOf("\n" + heading);
        if (start < 0) {
            throw new IllegalStateException(page + " has no section '" + heading + "'");
        }
        String level = heading.substring(0, heading.indexOf(' ') + 1);
        int end = text.indexOf("\n" + level, start + heading.length() + 1);
        String section = text.substring(start, end < 0 ? text.length() : end);
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```" + Pattern.quote(language) + "\\n(.*?)```", Pattern.DOTALL).matcher(section);
        while (m.find()) {
            out.add(m.group(1));
        }
        if (out.isEmpty()) {
            throw new IllegalStateException(page + " has no " + language + " block in '" + heading + "'");
        }
        return out;
    }

    /**
     * @param source    a compilation unit whose public class is {@code className}, in no package
     * @param className its simple name
     * @param type      what it must be
     * @param <T>       the type
     * @return a new instance, made with its public no-arg constructor
     * @throws IllegalStateException with the compiler's messages if it does not compile
     */
    public static <T> T compile(String source, String className, Class<T> type) throws Exception {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        Path dir = Files.createDirectories(Path.of("target", "snippets", String.valueOf(RUNS.incrementAndGet())));
        Path file = dir.resolve(className + ".java");
        Files.writeString(file, source);
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int rc = javac.run(null, messages, messages, "-proc:none", "-nowarn", "--release", "17",
                "-classpath", System.getProperty("java.class.path"), "-d", dir.toString(), file.toString());
        if (rc != 0) {
            throw new IllegalStateException("the snippet does not compile:\n" + messages.toString(StandardCharsets.UTF_8)
                    + "\n" + source);
        }
        URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, Snippets.class.getClassLoader());
        return type.cast(loader.loadClass(className).getConstructor().newInstance());
    }

    /**
     * @param page a page, relative to the repository root
     * @return the rows of its tables that start with a name in backquotes, by that name (the first
     *         row of a name wins): the second cell, trimmed, backquotes removed
     */
    public static Map<String, String> optionRows(String page) throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        Matcher row = Pattern.compile("^\\| `(\\w+)` \\| ([^|]*) \\|", Pattern.MULTILINE)
                .matcher(Files.readString(root().resolve(page)));
        while (row.find()) {
            rows.putIfAbsent(row.group(1), row.group(2).trim().replace("`", ""));
        }
        return rows;
    }

    /** @return the repository's root: the parent of the module a test runs in */
    public static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("README.md")) ? here : here.getParent();
    }
}
