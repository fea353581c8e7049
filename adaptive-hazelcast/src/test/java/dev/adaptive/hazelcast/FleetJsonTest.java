package dev.adaptive.hazelcast;

import dev.adaptive.fleet.FleetPause;
import dev.adaptive.fleet.NodeReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The compatibility rule of the stored JSON, for nodes of several versions sharing the maps in a
 * rolling upgrade: a field this version does not know is ignored whatever its JSON type, and
 * its element is kept as written; a field it knows must hold its own type, or that element
 * alone is unreadable (never read as if the field were absent); text that is not JSON is still
 * refused whole.
 */
class FleetJsonTest {

    private static final Instant AT = Instant.parse("2030-01-01T00:00:00Z");
    private static final long NOW = AT.toEpochMilli();
    private static final NodeReport A = new NodeReport("a", "a1", 5, 2, 3, AT, 7);
    private static final NodeReport B = new NodeReport("b", "b1", 4, 1, 1, AT);

    private static String a() {
        return ReportCodec.encode(A, NOW + 60_000, "w", 1);
    }

    private static String b() {
        return ReportCodec.encode(B, NOW + 60_000, "w", 2);
    }

    /** @return {@code object} with {@code field} inserted after its first field */
    private static String with(String object, String field) {
        int comma = object.indexOf(",\"incarnation\"");
        return object.substring(0, comma) + "," + field + object.substring(comma);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "\"hint\":\"a string, with \\\"quotes\\\", ] and }\"",
            "\"weight\":-1.25e-3",
            "\"big\":123456789012345678901234567890",
            "\"drained\":true",
            "\"draining\":false",
            "\"zone\":null",
            "\"limits\":{\"min\":1,\"max\":{\"soft\":[2,3.5],\"hard\":null},\"name\":\"}\"}",
            "\"history\":[1,\"]\",[],{},[[true]],-0.5E+2]",
    })
    void anUnknownFieldOfAnyJsonTypeIsIgnoredAndKeptAsWritten(String unknown) {
        String newer = with(a(), unknown);
        String stored = FleetJson.array(List.of(newer, b()));

        assertThat(ReportCodec.live(stored, NOW)).containsExactly(A, B);
        assertThat(FleetJson.parseArray(stored)).extracting(FleetJson.Element::text).containsExactly(newer, b());

        // An older node's heartbeat keeps the newer node's report whole, unknown field included.
        String rewritten = new HeartbeatProcessor(b(), "b", "b1", "w", 2, NOW)
                .process(new java.util.AbstractMap.SimpleEntry<>("api", stored));
        assertThat(rewritten).contains(newer);
        assertThat(ReportCodec.live(rewritten, NOW)).containsExactly(A, B);

        String pause = "{\"origin\":\"a\"," + unknown + ",\"until\":\"2030-01-01T00:00:30Z\"}";
        assertThat(ReportCodec.pause(pause)).isEqualTo(new FleetPause("a", AT.plusSeconds(30)));
    }

    /** @return {@code object} with the value of {@code field}'s name replaced by {@code field}'s */
    private static String replacing(String object, String field) {
        String name = field.substring(0, field.indexOf(':') + 1);
        int start = object.indexOf(name);
        int end = start + name.length();
        while (object.charAt(end) != ',' && object.charAt(end) != '}') {
            end++;
        }
        return object.substring(0, start) + field + object.substring(end);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "\"expiresAt\":true",
            "\"expiresAt\":1.5",
            "\"expiresAt\":1e3",
            "\"expiresAt\":\"1893456060000\"",
            "\"expiresAt\":99999999999999999999",
            "\"claim\":null",
            "\"demand\":[7]",
            "\"inflight\":{}",
            "\"nodeId\":5",
            "\"reportedAt\":false",
            "\"localLimit\":2147483648",
    })
    void aKnownFieldOfAnotherTypeMakesOnlyItsReportUnreadable(String field) {
        String malformed = replacing(a(), field);
        assertThat(malformed).isNotEqualTo(a()).contains(field);
        assertOnlyBIsRead(FleetJson.array(List.of(malformed, b())));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"inflight\":2", "\"claim\":3", "\"nodeId\":\"a\"", "\"expiresAt\":1893456060000"})
    void aKnownFieldGivenTwiceMakesOnlyItsReportUnreadableEvenWithOneValue(String field) {
        String twice = with(a(), field);
        assertThat(a()).contains(field); // the same name and value, once more
        assertOnlyBIsRead(FleetJson.array(List.of(twice, b())));
    }

    private static void assertOnlyBIsRead(String stored) {
        assertThat(ReportCodec.live(stored, NOW)).as("a default is for an absent field, not a malformed one")
                .containsExactly(B);
        String rewritten = new HeartbeatProcessor(b(), "b", "b1", "w", 3, NOW)
                .process(new java.util.AbstractMap.SimpleEntry<>("api", stored));
        assertThat(ReportCodec.live(rewritten, NOW)).containsExactly(B);
    }

    @Test
    void aPauseWhoseKnownFieldIsMalformedIsUnreadable() {
        assertThat(ReportCodec.pause("{\"origin\":\"a\",\"until\":30}")).isNull();
        assertThat(ReportCodec.pause("{\"origin\":\"a\",\"until\":\"2030-01-01T00:00:30Z\",\"until\":\"2030-01-01T00:00:40Z\"}"))
                .as("given twice").isNull();
    }

    @Test
    void anElementThatIsNotAnObjectIsOnlyOneUnreadableElement() {
        String stored = "[\"a report of a kind to come\"," + a() + ",[1],null," + b() + "]";
        assertThat(ReportCodec.live(stored, NOW)).containsExactly(A, B);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "{\"x\":tru}",
            "{\"x\":nul}",
            "{\"x\":[1,]}",
            "{\"x\":{\"y\":1}",
            "{\"x\":01}",
            "{\"x\":1.}",
            "{\"x\":.5}",
            "{\"x\":-}",
            "{\"x\":1e}",
            "{\"x\":+1}",
            "{\"x\":'a'}",
            "{\"x\":\"\\u+041\"}",
            "{\"x\":\"\\u00g1\"}",
            "{\"x\":1} trailing",
            "{x:1}",
    })
    void textThatIsNotJsonIsStillRefusedWhole(String object) {
        assertThatThrownBy(() -> FleetJson.parseObject(object)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FleetJson.parseArray("[" + b() + "," + object + "]"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static String nested(int levels) {
        return "[".repeat(levels) + "]".repeat(levels);
    }

    @Test
    void valuesNestedBeyondTheLimitAreRefusedNotAStackOverflow() {
        // The object is level 0, its field's value level 1.
        assertThat(FleetJson.parseObject("{\"x\":" + nested(FleetJson.MAX_DEPTH) + "}").fields()).containsKey("x");
        assertThatThrownBy(() -> FleetJson.parseObject("{\"x\":" + nested(FleetJson.MAX_DEPTH + 1) + "}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nested deeper than 64");
        assertThatThrownBy(() -> FleetJson.parseArray("[" + b() + ",{\"x\":" + nested(100_000) + "}]"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
