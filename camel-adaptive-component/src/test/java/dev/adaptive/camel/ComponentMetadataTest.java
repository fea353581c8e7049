package dev.adaptive.camel;

import org.apache.camel.CamelContext;
import org.apache.camel.CatalogCamelContext;
import org.apache.camel.Category;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Metadata;
import org.apache.camel.spi.UriEndpoint;
import org.apache.camel.spi.UriParam;
import org.apache.camel.spi.UriPath;
import org.apache.camel.util.json.JsonArray;
import org.apache.camel.util.json.JsonObject;
import org.apache.camel.util.json.Jsoner;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's metadata, written once on its annotated fields, reaches tooling and users:
 * the catalog JSON that Camel serves for {@code adaptive} is derived from the annotations
 * (camel-package-maven-plugin would generate it; this test regenerates it and fails on any
 * drift, writing the expected file to {@code target/adaptive.json}), and the component page
 * lists every option with its default.
 */
class ComponentMetadataTest {

    private static final String RESOURCE = "META-INF/dev/adaptive/camel/adaptive.json";

    @Test
    void theShippedCatalogJsonMatchesTheAnnotations() throws Exception {
        JsonObject expected = generate();
        Path out = Path.of("target", "adaptive.json");
        Files.writeString(out, Jsoner.prettyPrint(expected.toJson(), 2) + "\n");

        String shipped;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(RESOURCE)) {
            assertThat(in).as("%s on the class path", RESOURCE).isNotNull();
            shipped = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        JsonObject actual = (JsonObject) Jsoner.deserialize(shipped);
        JsonObject wanted = (JsonObject) Jsoner.deserialize(expected.toJson());
        List<String> stale = new ArrayList<>();
        for (String section : List.of("component", "headers", "properties")) {
            JsonObject a = actual.getMap(section) == null ? new JsonObject() : new JsonObject(actual.getMap(section));
            JsonObject w = new JsonObject(wanted.getMap(section));
            Set<String> keys = new TreeSet<>(a.keySet());
            keys.addAll(w.keySet());
            for (String k : keys) {
                if (!Objects.equals(a.get(k), w.get(k))) {
                    stale.add(section + "." + k);
                }
            }
        }
        assertThat(stale).as("src/main/resources/%s is stale: copy %s over it", RESOURCE, out.toAbsolutePath())
                .isEmpty();
    }

    @Test
    void camelServesItAsTheComponentsSchema() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.start();
            camel.getComponent("adaptive");
            String json = ((CatalogCamelContext) camel).getComponentParameterJsonSchema("adaptive");
            assertThat(json).isNotNull().contains("\"scheme\": \"adaptive\"").contains("\"maxRateLimitRetries\"");
        }
    }

    @Test
    void theComponentPageListsEveryOptionWithItsDefault() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "camel.md"));
        for (Field f : AdaptiveEndpoint.class.getDeclaredFields()) {
            UriParam p = f.getAnnotation(UriParam.class);
            if (p == null) {
                continue;
            }
            Matcher row = Pattern.compile("^\\| `" + f.getName() + "` \\| ([^|]*) \\|", Pattern.MULTILINE).matcher(page);
            assertThat(row.find()).as("a row for option %s in docs/camel.md", f.getName()).isTrue();
            String documented = row.group(1);
            String annotated = !p.defaultValue().isEmpty() ? p.defaultValue() : p.defaultValueNote();
            if (annotated.isEmpty()) {
                assertThat(documented).as("default of %s", f.getName()).startsWith("none");
            } else {
                assertThat(documented).as("default of %s", f.getName()).contains(annotated.split(",")[0]);
            }
            assertThat(p.description()).as("description of %s states its default", f.getName())
                    .containsIgnoringCase("default");
        }
    }

    /** Builds the catalog entry the way Camel's tooling lays it out. */
    static JsonObject generate() {
        UriEndpoint ep = AdaptiveEndpoint.class.getAnnotation(UriEndpoint.class);
        JsonObject component = new JsonObject();
        component.put("kind", "component");
        component.put("name", ep.scheme());
        component.put("title", ep.title());
        component.put("description", "Send an exchange to the route consuming from the same name, through an adaptive"
                + " pool that finds its own concurrency, retries, and pauses on 429 Retry-After.");
        component.put("deprecated", false);
        component.put("firstVersion", ep.firstVersion());
        component.put("label", String.join(",", Arrays.stream(ep.category())
                .map(Category::getValue).toList()));
        component.put("javaType", AdaptiveComponent.class.getName());
        component.put("supportLevel", "Preview");
        component.put("groupId", "dev.adaptive");
        component.put("artifactId", "camel-adaptive-component");
        component.put("version", "0.1.0-SNAPSHOT");
        component.put("scheme", ep.scheme());
        component.put("extendsScheme", "");
        component.put("syntax", ep.syntax());
        component.put("async", true);
        component.put("api", false);
        component.put("consumerOnly", false);
        component.put("producerOnly", false);
        component.put("lenientProperties", false);
        component.put("browsable", false);
        component.put("remote", false);

        JsonObject headers = new JsonObject();
        int index = 0;
        for (Field f : AdaptiveConstants.class.getDeclaredFields()) {
            Metadata m = f.getAnnotation(Metadata.class);
            if (m == null) {
                continue;
            }
            JsonObject h = new JsonObject();
            h.put("index", index++);
            h.put("kind", "header");
            h.put("displayName", "");
            h.put("group", m.label());
            h.put("label", m.label());
            h.put("required", false);
            h.put("javaType", m.javaType());
            h.put("deprecated", false);
            h.put("deprecationNote", "");
            h.put("autowired", false);
            h.put("secret", false);
            h.put("description", m.description());
            h.put("constantName", AdaptiveConstants.class.getName() + "#" + f.getName());
            try {
                headers.put((String) f.get(null), h);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }

        JsonObject properties = new JsonObject();
        index = 0;
        for (Field f : endpointFields()) {
            UriPath path = f.getAnnotation(UriPath.class);
            UriParam param = f.getAnnotation(UriParam.class);
            Metadata meta = f.getAnnotation(Metadata.class);
            JsonObject o = new JsonObject();
            String label = path != null ? path.label() : param.label();
            String javaType = path != null && !path.javaType().isEmpty() ? path.javaType()
                    : param != null && !param.javaType().isEmpty() ? param.javaType() : javaType(f.getType());
            String enums = path != null ? path.enums() : param.enums();
            String defaultValue = path != null ? path.defaultValue() : param.defaultValue();
            o.put("index", index++);
            o.put("kind", path != null ? "path" : "parameter");
            o.put("displayName", displayName(f.getName()));
            o.put("group", group(label));
            o.put("label", label);
            o.put("required", meta != null && meta.required());
            o.put("type", enums.isEmpty() ? type(javaType) : "enum");
            o.put("javaType", javaType);
            if (!enums.isEmpty()) {
                o.put("enum", new JsonArray(Arrays.asList(enums.split(","))));
            }
            if (param != null && !param.optionalPrefix().isEmpty()) {
                o.put("optionalPrefix", param.optionalPrefix());
            }
            o.put("deprecated", false);
            o.put("autowired", false);
            o.put("secret", false);
            if (!defaultValue.isEmpty()) {
                o.put("defaultValue", typedDefault(javaType, defaultValue));
            }
            if (param != null && !param.defaultValueNote().isEmpty()) {
                o.put("defaultValueNote", param.defaultValueNote());
            }
            o.put("description", path != null ? path.description() : param.description());
            properties.put(path != null ? f.getName() : param.name().isEmpty() ? f.getName() : param.name(), o);
        }

        JsonObject root = new JsonObject();
        root.put("component", component);
        root.put("headers", headers);
        root.put("properties", properties);
        return root;
    }

    /** The path, then this class's options, then the inherited ones (DefaultEndpoint's). */
    private static List<Field> endpointFields() {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = AdaptiveEndpoint.class; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.isAnnotationPresent(UriPath.class)) {
                    fields.add(0, f);
                } else if (f.isAnnotationPresent(UriParam.class)) {
                    fields.add(f);
                }
            }
        }
        return fields;
    }

    private static String javaType(Class<?> type) {
        return type.getName();
    }

    private static String type(String javaType) {
        return switch (javaType) {
            case "int", "java.lang.Integer", "long", "java.lang.Long" -> "integer";
            case "double", "java.lang.Double" -> "number";
            case "boolean", "java.lang.Boolean" -> "boolean";
            case "java.lang.String" -> "string";
            case "java.time.Duration" -> "duration";
            default -> "object";
        };
    }

    private static Object typedDefault(String javaType, String value) {
        return switch (type(javaType)) {
            case "integer" -> Long.parseLong(value);
            case "number" -> Double.parseDouble(value);
            case "boolean" -> Boolean.parseBoolean(value);
            default -> value;
        };
    }

    private static String group(String label) {
        if (label.isEmpty()) {
            return "common";
        }
        List<String> parts = Arrays.asList(label.split(","));
        String first = parts.get(0);
        if (parts.size() > 1 && parts.contains("advanced") && !first.equals("advanced")) {
            return first + " (advanced)";
        }
        return first;
    }

    private static String displayName(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (i == 0) {
                sb.append(Character.toUpperCase(c));
            } else if (Character.isUpperCase(c)) {
                sb.append(' ').append(c);
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
