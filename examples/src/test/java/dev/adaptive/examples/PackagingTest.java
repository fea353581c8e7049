package dev.adaptive.examples;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a user's build meets when it consumes Adaptive: every published module's jar names its
 * module for the module path and comes with sources and javadoc jars, and the BOM manages every
 * published module. Runs on the jars that {@code mvn verify} built before this module's tests
 * (the reactor packages the published modules first); skipped where they are not built, as in
 * {@code mvn test}.
 */
class PackagingTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @ParameterizedTest
    @CsvSource({
        "adaptive-core, dev.adaptive.core",
        "camel-adaptive-component, dev.adaptive.camel",
        "vertx-adaptive, dev.adaptive.vertx",
        "adaptive-hazelcast, dev.adaptive.hazelcast",
    })
    void aPublishedModuleHasItsModuleNameSourcesAndJavadoc(String module, String moduleName) throws IOException {
        Path target = ROOT.resolve(module).resolve("target");
        String version = projectVersion();
        Path jar = target.resolve(module + "-" + version + ".jar");
        Assumptions.assumeTrue(Files.exists(jar), "not packaged in this build: " + jar);
        try (JarFile j = new JarFile(jar.toFile())) {
            assertThat(j.getManifest().getMainAttributes().getValue("Automatic-Module-Name")).isEqualTo(moduleName);
        }
        assertThat(target.resolve(module + "-" + version + "-sources.jar")).exists();
        assertThat(target.resolve(module + "-" + version + "-javadoc.jar")).exists();
    }

    @Test
    void theBomManagesEveryPublishedModuleAtTheProjectVersion() throws IOException {
        String bom = Files.readString(ROOT.resolve("adaptive-bom/pom.xml"));
        assertThat(tag(bom, "version")).isEqualTo(projectVersion());
        for (String module : new String[] {"adaptive-core", "camel-adaptive-component", "vertx-adaptive",
            "adaptive-hazelcast"}) {
            assertThat(bom).contains("<artifactId>" + module + "</artifactId>");
        }
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (m.find()) {
            String module = m.group(1);
            String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
            boolean published = !pom.contains("<maven.source.skip>true</maven.source.skip>")
                    && !module.equals("adaptive-bom");
            if (published) {
                assertThat(bom).as("the BOM manages %s", module).contains("<artifactId>" + module + "</artifactId>");
            }
        }
    }

    private static String projectVersion() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String afterArtifact = parent.substring(parent.indexOf("<artifactId>adaptive-parent</artifactId>"));
        return tag(afterArtifact, "version");
    }

    /** The first element named {@code name} after the project's own coordinates. */
    private static String tag(String xml, String name) {
        int start = xml.indexOf("<" + name + ">");
        return xml.substring(start + name.length() + 2, xml.indexOf("</" + name + ">", start));
    }
}
