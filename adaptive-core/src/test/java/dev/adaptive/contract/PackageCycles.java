package dev.adaptive.contract;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The graph of {@code dev.adaptive} packages in a directory of compiled classes, read by the
 * JDK's {@code jdeps}, and the cycles in it. Each module's architecture test asserts that its
 * classes have none: a package can then be read, tested and changed knowing only the packages
 * below it.
 *
 * <p>A package named {@code impl} counts as part of its parent: it is the implementation half
 * of the API package above it (the Vert.x convention of an interface whose static
 * {@code create} makes an {@code impl} class), and the two are one unit by design. Every other
 * package stands alone, {@code internal} and {@code spi} included.
 */
public final class PackageCycles {

    private static final Pattern EDGE = Pattern.compile("^\\s+(dev\\.adaptive[\\w.]*)\\s+->\\s+(dev\\.adaptive[\\w.]*)\\s");

    private final Map<String, Set<String>> edges;

    /** @param edges each package with the packages it depends on */
    PackageCycles(Map<String, Set<String>> edges) {
        this.edges = edges;
    }

    /**
     * Asserts that the classes in {@code classes} form no package cycle, and that the graph is
     * not empty (a wrong directory must not pass as a clean one).
     *
     * @param classes a directory of compiled classes, such as {@code target/classes}
     * @throws AssertionError naming every cycle and the edges round it
     */
    public static void assertAcyclic(Path classes) {
        PackageCycles graph = of(classes);
        if (graph.edges().isEmpty()) {
            throw new AssertionError("no dev.adaptive package in " + classes.toAbsolutePath());
        }
        List<String> cycles = graph.cycles();
        if (!cycles.isEmpty()) {
            throw new AssertionError("package cycles in " + classes + ":\n  " + String.join("\n  ", cycles));
        }
    }

    /**
     * @param classes a directory of compiled classes, such as {@code target/classes}
     * @return the graph of the {@code dev.adaptive} packages in it
     */
    public static PackageCycles of(Path classes) {
        if (!Files.isDirectory(classes)) {
            throw new IllegalArgumentException("no compiled classes at " + classes.toAbsolutePath());
        }
        ToolProvider jdeps = ToolProvider.findFirst("jdeps")
                .orElseThrow(() -> new IllegalStateException("this JDK has no jdeps tool"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(err),
                "-verbose:package", "-filter:none", classes.toString());
        if (rc != 0) {
            throw new IllegalStateException("jdeps failed (" + rc + "): " + err);
        }
        Map<String, Set<String>> edges = new TreeMap<>();
        for (String line : out.toString().split("\\R")) {
            Matcher m = EDGE.matcher(line);
            if (m.find()) {
                String from = unit(m.group(1));
                String to = unit(m.group(2));
                edges.computeIfAbsent(from, k -> new TreeSet<>());
                if (!from.equals(to)) {
                    edges.get(from).add(to);
                }
            }
        }
        return new PackageCycles(edges);
    }

    /** {@code a.b.impl} is part of {@code a.b}; see the class comment. */
    static String unit(String pkg) {
        return pkg.endsWith(".impl") ? pkg.substring(0, pkg.length() - ".impl".length()) : pkg;
    }

    /** @return every package found, with the packages it depends on */
    public Map<String, Set<String>> edges() {
        return edges;
    }

    /**
     * @return the strongly connected components of more than one package (each one a set of
     *         packages that depend on each other round a cycle), each with the edges inside it
     */
    public List<String> cycles() {
        List<String> found = new ArrayList<>();
        for (Set<String> component : components()) {
            if (component.size() > 1) {
                StringBuilder sb = new StringBuilder(component.toString()).append(':');
                for (String from : component) {
                    for (String to : edges.getOrDefault(from, Set.of())) {
                        if (component.contains(to)) {
                            sb.append("\n    ").append(from).append(" -> ").append(to);
                        }
                    }
                }
                found.add(sb.toString());
            }
        }
        return found;
    }

    /** Tarjan's algorithm, iterative so that no graph is too deep for the stack. */
    private List<Set<String>> components() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> result = new ArrayList<>();
        int[] counter = {0};
        for (String start : edges.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Object[]> work = new ArrayDeque<>();
            work.push(new Object[] {start, new ArrayList<>(edges.getOrDefault(start, Set.of())).iterator()});
            index.put(start, counter[0]);
            low.put(start, counter[0]++);
            stack.push(start);
            onStack.add(start);
            while (!work.isEmpty()) {
                Object[] frame = work.peek();
                String v = (String) frame[0];
                @SuppressWarnings("unchecked")
                java.util.Iterator<String> it = (java.util.Iterator<String>) frame[1];
                if (it.hasNext()) {
                    String w = it.next();
                    if (!index.containsKey(w)) {
                        index.put(w, counter[0]);
                        low.put(w, counter[0]++);
                        stack.push(w);
                        onStack.add(w);
                        work.push(new Object[] {w, new ArrayList<>(edges.getOrDefault(w, Set.of())).iterator()});
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = (String) work.peek()[0];
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    Set<String> component = new TreeSet<>();
                    String w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (!w.equals(v));
                    result.add(component);
                }
            }
        }
        return result;
    }
}
