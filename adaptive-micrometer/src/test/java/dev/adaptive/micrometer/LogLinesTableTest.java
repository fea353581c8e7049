package dev.adaptive.micrometer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of log lines in {@code docs/micrometer.md} against the main code of every module:
 * each logger the code gets ({@code System.getLogger}, SLF4J's {@code LoggerFactory.getLogger})
 * has rows, no row names a logger the code does not have, and the levels a logger's rows give
 * are the levels its code logs at. A logger handed to the engine's {@code CallbackFailures}
 * logs at {@code WARNING} (the first of a kind) and {@code DEBUG} (the later ones).
 */
class LogLinesTableTest {

    private static final Pattern SYSTEM_LOGGER = Pattern.compile(
            "System\\.getLogger\\(\\s*(\"[^\"]*\"|\\w+\\.class\\.getName\\(\\)|[\\w.]+)\\s*\\)");
    private static final Pattern SLF4J_LOGGER = Pattern.compile("LoggerFactory\\.getLogger\\(\\s*(\\w+)\\.class\\s*\\)");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern SYSTEM_LEVEL = Pattern.compile("Level\\.(TRACE|DEBUG|INFO|WARNING|ERROR)\\b");
    private static final Pattern SLF4J_LEVEL = Pattern.compile("\\bLOG\\.(trace|debug|info|warn|error)\\(");
    private static final Pattern LEVEL_WORD = Pattern.compile("\\b(TRACE|DEBUG|INFO|WARNING|WARN|ERROR)\\b");

    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("README.md")) ? here : here.getParent();
    }

    @Test
    void theTableNamesEveryLoggerOfTheCodeAtTheLevelsItLogsAt() throws IOException {
        Map<String, Set<String>> inCode = loggersInCode();
        Map<String, Set<String>> inTable = loggersInTable();

        assertThat(inCode).as("loggers found in the code (the scan itself)").isNotEmpty()
                .containsKeys("dev.adaptive.limiter", "dev.adaptive.vertx");
        assertThat(inTable.keySet()).as("loggers in docs/micrometer.md's table of log lines")
                .isEqualTo(inCode.keySet());
        assertThat(inTable).as("each logger's levels: the table's, by logger").isEqualTo(inCode);
    }

    /** @return each logger the main code gets, by name, with the levels its file logs at */
    private static Map<String, Set<String>> loggersInCode() throws IOException {
        Map<String, Set<String>> loggers = new TreeMap<>();
        try (Stream<Path> modules = Files.list(root())) {
            for (Path main : modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).toList()) {
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                        String source = Files.readString(file);
                        for (String name : loggerNames(source, file)) {
                            loggers.computeIfAbsent(name, n -> new TreeSet<>()).addAll(levels(source));
                        }
                    }
                }
            }
        }
        return loggers;
    }

    private static Set<String> loggerNames(String source, Path file) {
        Set<String> names = new TreeSet<>();
        Matcher system = SYSTEM_LOGGER.matcher(source);
        while (system.find()) {
            names.add(systemLoggerName(system.group(1).trim(), source, file));
        }
        Matcher slf4j = SLF4J_LOGGER.matcher(source);
        while (slf4j.find()) {
            names.add(className(slf4j.group(1), source, file));
        }
        return names;
    }

    /** @return the name an argument of {@code System.getLogger} stands for: a literal, a constant, {@code X.class.getName()} */
    private static String systemLoggerName(String argument, String source, Path file) {
        if (argument.startsWith("\"")) {
            return argument.substring(1, argument.length() - 1);
        }
        Matcher dotClass = Pattern.compile("(\\w+)\\.class\\.getName\\(\\)").matcher(argument);
        if (dotClass.matches()) {
            return className(dotClass.group(1), source, file);
        }
        Matcher constant = Pattern.compile("\\b" + Pattern.quote(argument) + "\\s*=\\s*\"([^\"]+)\"").matcher(source);
        if (constant.find()) {
            return constant.group(1);
        }
        throw new IllegalStateException(file + ": System.getLogger(" + argument + ") is neither a literal, a constant"
                + " of its file nor X.class.getName(); teach this test to read it");
    }

    /** @return the full name of the class {@code simple}, imported or in the file's package */
    private static String className(String simple, String source, Path file) {
        Matcher imported = Pattern.compile("(?m)^import ([\\w.]+\\." + Pattern.quote(simple) + ");").matcher(source);
        if (imported.find()) {
            return imported.group(1);
        }
        Matcher pkg = PACKAGE.matcher(source);
        if (!pkg.find()) {
            throw new IllegalStateException(file + " has no package");
        }
        return pkg.group(1) + "." + simple;
    }

    /** @return the levels a file logs at, in the table's words (SLF4J's {@code WARN}, the JDK's {@code WARNING}) */
    private static Set<String> levels(String source) {
        Set<String> levels = new TreeSet<>();
        Matcher system = SYSTEM_LEVEL.matcher(source);
        while (system.find()) {
            levels.add(system.group(1));
        }
        Matcher slf4j = SLF4J_LEVEL.matcher(source);
        while (slf4j.find()) {
            levels.add(slf4j.group(1).toUpperCase(java.util.Locale.ROOT));
        }
        if (source.contains("new CallbackFailures(")) {
            levels.add("WARNING"); // the first failure of a kind
            levels.add("DEBUG");   // the later ones
        }
        return levels;
    }

    /** @return the loggers of the rows of the table under "## Log lines", with the levels their rows give */
    private static Map<String, Set<String>> loggersInTable() throws IOException {
        String page = Files.readString(root().resolve("docs/micrometer.md"));
        int start = page.indexOf("\n## Log lines");
        assertThat(start).as("docs/micrometer.md has a section '## Log lines'").isNotNegative();
        int end = page.indexOf("\n## ", start + 1);
        String section = page.substring(start, end < 0 ? page.length() : end);
        Map<String, Set<String>> loggers = new TreeMap<>();
        Matcher row = Pattern.compile("(?m)^\\| `([\\w.]+)` \\| ([^|]+) \\|").matcher(section);
        while (row.find()) {
            Set<String> levels = loggers.computeIfAbsent(row.group(1), n -> new TreeSet<>());
            Matcher word = LEVEL_WORD.matcher(row.group(2));
            while (word.find()) {
                levels.add(word.group(1));
            }
        }
        return loggers;
    }
}
