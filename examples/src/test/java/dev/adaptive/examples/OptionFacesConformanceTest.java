package dev.adaptive.examples;

import dev.adaptive.AdaptiveExecutor;
import dev.adaptive.Limiter;
import dev.adaptive.camel.AdaptiveComponent;
import dev.adaptive.camel.AdaptiveConsumerNotAvailableException;
import dev.adaptive.camel.AdaptiveStats;
import dev.adaptive.camel.PoolConfiguration;
import dev.adaptive.config.AdaptiveConfig;
import dev.adaptive.config.Algorithm;
import dev.adaptive.config.ConfigOption;
import dev.adaptive.fleet.FleetMember;
import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.fleet.OutagePolicy;
import dev.adaptive.retry.Backoff;
import dev.adaptive.vertx.AdaptiveLimiter;
import dev.adaptive.vertx.AdaptiveOptions;
import dev.adaptive.vertx.AdaptiveWebClientOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.apache.camel.Exchange;
import org.apache.camel.ResolveEndpointFailedException;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.PropertyBindingSupport;
import org.apache.camel.util.StringHelper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One options model, every face (docs/core.md, "Options every face shares"): each row of the
 * table below is built through every face that can carry it, and every face must give the same
 * answer. Accepted, the value in force is read back from what each face built (the limiter, the
 * running Camel pool, the Vert.x limiter, the fleet member) and is the same on every face;
 * refused, every face refuses, when the options are built, with a message naming the option and
 * the value as that face was given it. Where a face differs on purpose, the row says so and why,
 * and the test holds it to that documented difference instead.
 */
class OptionFacesConformanceTest {

    /** Every way a program or a configuration file hands an option over. */
    enum Face {
        /** {@code AdaptiveConfig.builder().<option>(typed)}, then its limiter, executor and fleet member. */
        JAVA_BUILDER(false),
        /** {@code AdaptiveConfig.of(Map.of(option, text))}: a properties file in plain Java. */
        JAVA_MAP(true),
        /** {@code adaptive:name?option=text}. */
        CAMEL_URI(true),
        /** {@code camel.component.adaptive.option=text}, bound as Camel Main binds it. */
        CAMEL_COMPONENT(true),
        /** {@code camel.component.adaptive.configuration.option=text}: the catalog's nested form. */
        CAMEL_COMPONENT_NESTED(true),
        /** {@code camel.component.adaptive.pools.name.option=text}. */
        CAMEL_NAMED_POOL(true),
        /** {@code component.getConfiguration().set<Option>(typed)} in a Java DSL program. */
        CAMEL_JAVA(false),
        /** {@code new AdaptiveOptions(json)} with the value as JSON text. */
        VERTX_JSON_TEXT(true),
        /** {@code new AdaptiveOptions(json)} with the value as a JSON number, boolean or name. */
        VERTX_JSON(false),
        /** {@code new AdaptiveOptions().set<Option>(typed)}, durations in milliseconds. */
        VERTX_SETTER(false),
        /** {@code FleetMember.builder(...)}: where the Vert.x module takes the fleet options. */
        FLEET_MEMBER(false);

        final boolean text;

        Face(boolean text) {
            this.text = text;
        }
    }

    /** One option as a face is given it: as text, and as a program holds it (null where it cannot). */
    record Setting(String option, String text, Object typed) {
        @Override
        public String toString() {
            return option + "=" + (text != null ? "'" + text + "'" : typed);
        }
    }

    /** What a face is expected to do with a row. */
    sealed interface Expect permits Accepts, Refuses, NotCarried {
    }

    /** Builds; each option named holds this value in force (typed as {@link AdaptiveConfig#value} returns it). */
    record Accepts(Map<String, Object> inForce) implements Expect {
    }

    /**
     * Refuses, naming this option and, where {@code quotesValue}, its value as the face was given
     * it (an unknown name is named alone: no face can know what its value was meant to be).
     */
    record Refuses(String option, boolean quotesValue) implements Expect {
        Refuses(String option) {
            this(option, true);
        }
    }

    /** The face cannot carry this row at all (a text form for a typed face, say). */
    record NotCarried() implements Expect {
    }

    /** A row: settings, what every face does, and the documented exceptions. */
    record Row(String title, List<Setting> settings, Expect expect, Map<Face, Expect> except, String why) {
        Row differs(String why, Expect expect, Face... faces) {
            Map<Face, Expect> more = new EnumMap<>(Face.class);
            more.putAll(except);
            for (Face f : faces) {
                more.put(f, expect);
            }
            return new Row(title, settings, this.expect, more, this.why == null ? why : this.why + "; " + why);
        }

        Expect expectOn(Face face) {
            return except.getOrDefault(face, expect);
        }

        @Override
        public String toString() {
            return title;
        }
    }

    private static final InMemoryCoordinator FLEET = InMemoryCoordinator.create();
    private static final Setting WITH_FLEET = new Setting("coordinator", "#fleet", FLEET);
    private static final Setting NODE = new Setting("fleetNodeId", "n1", "n1");
    private static final Set<String> FLEET_OPTIONS = Set.of("coordinator", "fleetKey", "fleetNodeId", "fleetHeartbeat",
            "fleetOutagePolicy");

    /** Where a Camel option is the component's default for every pool, not one pool's own. */
    private static final Face[] COMPONENT_FACES = {Face.CAMEL_COMPONENT, Face.CAMEL_COMPONENT_NESTED,
        Face.CAMEL_JAVA};

    private static final AtomicInteger POOLS = new AtomicInteger();
    private static DefaultCamelContext camel;
    private static AdaptiveComponent component;
    private static Vertx vertx;

    @BeforeAll
    static void start() {
        camel = new DefaultCamelContext();
        camel.getRegistry().bind("fleet", FLEET);
        camel.start();
        component = camel.getComponent("adaptive", AdaptiveComponent.class);
        vertx = Vertx.vertx();
    }

    @AfterAll
    static void stop() {
        camel.stop();
        vertx.close().await();
    }

    // ---- the table ----------------------------------------------------------------------------

    static Stream<Row> rows() {
        List<Row> rows = new ArrayList<>();
        // whole numbers
        rows.add(ok("maxLimit", "1", 1, 1));
        rows.add(ok("maxLimit", "2147483647", Integer.MAX_VALUE, Integer.MAX_VALUE));
        rows.add(ok("maxLimit", " 7 ", null, 7));
        rows.add(ok("maxLimit", "007", null, 7));
        rows.add(bad("maxLimit", "0", 0));
        rows.add(bad("maxLimit", "-1", -1));
        rows.add(bad("maxLimit", "2147483648", 2147483648L));
        rows.add(bad("maxLimit", "99999999999999999999", null));
        rows.add(bad("maxLimit", "", null));
        rows.add(bad("maxLimit", "+5", null));
        rows.add(bad("maxLimit", "5.5", 5.5));
        rows.add(bad("maxLimit", "1e2", null));
        rows.add(bad("maxLimit", "\u0667", null));   // an Arabic-Indic seven
        rows.add(bad("minLimit", "0", 0));
        rows.add(bad("initialLimit", "0", 0));
        rows.add(bad("initialLimit", "-3", -3));
        rows.add(ok("retries", "0", 0, 0));
        rows.add(bad("retries", "-1", -1));
        rows.add(ok("maxRateLimitRetries", "0", 0, 0));
        rows.add(bad("maxRateLimitRetries", "-1", -1));
        rows.add(ok("maxQueueSize", "0", 0, 0));
        rows.add(ok("maxQueueSize", "-0", null, 0));
        rows.add(ok("maxQueueSize", "2147483647", Integer.MAX_VALUE, Integer.MAX_VALUE));
        rows.add(bad("maxQueueSize", "-1", -1));
        // rules between options
        rows.add(row("min > max", List.of(set("minLimit", "10", 10), set("maxLimit", "5", 5)), new Refuses("maxLimit")));
        rows.add(row("min = max", List.of(set("minLimit", "5", 5), set("maxLimit", "5", 5)),
                accepts("minLimit", 5, "maxLimit", 5, "initialLimit", null)));
        rows.add(row("initial above max", List.of(set("maxLimit", "10", 10), set("initialLimit", "11", 11)),
                new Refuses("initialLimit")));
        rows.add(row("initial below min", List.of(set("minLimit", "10", 10), set("initialLimit", "9", 9)),
                new Refuses("initialLimit")));
        rows.add(row("initial at min", List.of(set("minLimit", "10", 10), set("initialLimit", "10", 10)),
                accepts("initialLimit", 10)));
        rows.add(row("initial at max", List.of(set("maxLimit", "10", 10), set("initialLimit", "10", 10)),
                accepts("initialLimit", 10)));
        rows.add(row("initial unset, min above 5", List.of(set("minLimit", "10", 10), set("maxLimit", "20", 20)),
                accepts("minLimit", 10, "initialLimit", null)));
        rows.add(row("fixed with an initial limit", List.of(set("algorithm", "fixed", Algorithm.FIXED),
                set("maxLimit", "7", 7), set("initialLimit", "5", 5)), new Refuses("initialLimit")));
        rows.add(row("fixed with initial = max", List.of(set("algorithm", "fixed", Algorithm.FIXED),
                set("maxLimit", "7", 7), set("initialLimit", "7", 7)), accepts("algorithm", Algorithm.FIXED,
                "initialLimit", 7)));
        rows.add(row("minDelay > maxDelay", List.of(set("minDelay", "2s", Duration.ofSeconds(2)),
                set("maxDelay", "1s", Duration.ofSeconds(1))), new Refuses("maxDelay")));
        rows.add(row("minDelay = maxDelay", List.of(set("minDelay", "2s", Duration.ofSeconds(2)),
                set("maxDelay", "2000", Duration.ofSeconds(2))), accepts("maxDelay", Duration.ofSeconds(2))));
        // decimals
        rows.add(ok("jitter", "0", 0.0, 0.0));
        rows.add(ok("jitter", "1", 1.0, 1.0));
        rows.add(ok("jitter", "0.25", 0.25, 0.25));
        rows.add(bad("jitter", "1.0000001", 1.0000001));
        rows.add(bad("jitter", "-0.1", -0.1));
        rows.add(bad("jitter", "NaN", Double.NaN));
        rows.add(bad("jitter", "Infinity", Double.POSITIVE_INFINITY));
        rows.add(bad("jitter", ".5", null));
        rows.add(bad("jitter", "5e-1", null));
        rows.add(bad("jitter", "0,5", null));
        rows.add(bad("jitter", "+0.5", null));
        rows.add(ok("jitter", " 0.5 ", null, 0.5));
        rows.add(bad("jitter", "", null));
        rows.add(ok("retryBudgetRatio", "0", 0.0, 0.0));
        rows.add(bad("retryBudgetRatio", "-0.5", -0.5));
        rows.add(bad("retryBudgetRatio", "1" + "0".repeat(400), Double.POSITIVE_INFINITY));
        rows.add(ok("retryBudgetMinPerSecond", "2.5", 2.5, 2.5));
        rows.add(bad("retryBudgetMinPerSecond", "NaN", Double.NaN));
        // booleans
        rows.add(ok("adaptOnLatency", "false", false, false));
        rows.add(ok("adaptOnErrors", "FALSE", null, false));
        rows.add(ok("retryBudget", "False", null, false));
        rows.add(ok("quotaHeaders", "false", false, false));
        rows.add(ok("quotaSpread", "true", true, true));
        rows.add(bad("adaptOnRateLimit", "yes", null));
        rows.add(bad("adaptOnRateLimit", "1", 1));
        rows.add(bad("quotaSpread", "", null));
        // enums, by option name in any ASCII case, dashes and underscores ignored
        rows.add(ok("algorithm", "aimd", Algorithm.AIMD, Algorithm.AIMD));
        rows.add(ok("algorithm", "GRADIENT2", null, Algorithm.GRADIENT2));
        rows.add(ok("algorithm", "Vegas", null, Algorithm.VEGAS));
        rows.add(ok("algorithm", "gradient-2", null, Algorithm.GRADIENT2));
        rows.add(ok("algorithm", " aimd ", null, Algorithm.AIMD));
        rows.add(bad("algorithm", "ai md", null));
        rows.add(bad("algorithm", "cubic", null));
        rows.add(bad("algorithm", "f\u0131xed", null));
        rows.add(bad("algorithm", "", null));
        rows.add(ok("backoff", "LINEAR", Backoff.Kind.LINEAR, Backoff.Kind.LINEAR));
        rows.add(ok("backoff", "constant", Backoff.Kind.CONSTANT, Backoff.Kind.CONSTANT));
        rows.add(bad("backoff", "fibonacci", null));
        // durations, in every accepted text form
        rows.add(ok("waitTimeout", "500", Duration.ofMillis(500), Duration.ofMillis(500)));
        rows.add(ok("waitTimeout", "2s500ms", null, Duration.ofMillis(2500)));
        rows.add(ok("waitTimeout", "1h30m15s", null, Duration.ofSeconds(5415)));
        rows.add(ok("waitTimeout", "1d", Duration.ofDays(1), Duration.ofDays(1)));
        rows.add(ok("waitTimeout", "PT0.25S", null, Duration.ofMillis(250)));
        rows.add(ok("waitTimeout", "pt1s", null, Duration.ofSeconds(1)));
        rows.add(ok("waitTimeout", "P1DT2H", null, Duration.ofHours(26)));
        rows.add(ok("waitTimeout", " 1s ", null, Duration.ofSeconds(1)));
        rows.add(ok("waitTimeout", "0", Duration.ZERO, Duration.ZERO));
        rows.add(ok("taskTimeout", "0", Duration.ZERO, Duration.ZERO));
        rows.add(ok("taskTimeout", "106751d", Duration.ofDays(106751), Duration.ofDays(106751)));
        rows.add(ok("minDelay", "PT0.0005S", Duration.ofNanos(500_000), Duration.ofNanos(500_000))
                .differs("Vert.x holds durations in whole milliseconds and refuses a finer one rather than cut it"
                        + " (vertx.md)", new Refuses("minDelay"), Face.VERTX_JSON_TEXT)
                .differs("a Vert.x setter and JSON number are milliseconds: a finer duration has no such form",
                        new NotCarried(), Face.VERTX_JSON, Face.VERTX_SETTER));
        rows.add(bad("taskTimeout", "106752d", Duration.ofDays(106752)));
        rows.add(bad("taskTimeout", "9223372036854775807", Long.MAX_VALUE));
        rows.add(bad("waitTimeout", "-5s", Duration.ofSeconds(-5)));
        rows.add(bad("waitTimeout", "-1", -1L));
        rows.add(bad("waitTimeout", "PT-1S", null));
        rows.add(bad("waitTimeout", "1S", null));
        rows.add(bad("waitTimeout", "1h30x", null));
        rows.add(bad("waitTimeout", "1.5s", 1.5));
        rows.add(bad("waitTimeout", "5s1h", null));
        rows.add(bad("waitTimeout", "1s1s", null));
        rows.add(bad("waitTimeout", "abc", null));
        rows.add(bad("waitTimeout", "", null));
        rows.add(ok("maxRetryAfter", "1ms", Duration.ofMillis(1), Duration.ofMillis(1)));
        rows.add(bad("maxRetryAfter", "0", Duration.ZERO));
        rows.add(ok("retryBudgetWindow", "1d", Duration.ofDays(1), Duration.ofDays(1)));
        rows.add(bad("retryBudgetWindow", "1d1ms", Duration.ofDays(1).plusMillis(1)));
        rows.add(bad("retryBudgetWindow", "0", Duration.ZERO));
        rows.add(ok("outageProbe", "0", Duration.ZERO, Duration.ZERO));
        rows.add(ok("outageProbe", "1h", Duration.ofHours(1), Duration.ofHours(1)));
        rows.add(bad("outageProbe", "3600001", Duration.ofMillis(3_600_001)));
        // fleet options
        rows.add(fleet(set("fleetHeartbeat", "365d", Duration.ofDays(365)), accepts("fleetHeartbeat",
                Duration.ofDays(365))));
        rows.add(fleet(set("fleetHeartbeat", "250ms", Duration.ofMillis(250)), accepts("fleetHeartbeat",
                Duration.ofMillis(250))));
        rows.add(fleet(set("fleetHeartbeat", "365d1ms", Duration.ofDays(365).plusMillis(1)),
                new Refuses("fleetHeartbeat")));
        rows.add(fleet(set("fleetHeartbeat", "0", Duration.ZERO), new Refuses("fleetHeartbeat")));
        rows.add(fleet(set("fleetHeartbeat", "P366D", Duration.ofDays(366)), new Refuses("fleetHeartbeat")));
        rows.add(fleet(set("fleetOutagePolicy", "LOCAL_ONLY", OutagePolicy.LOCAL_ONLY), accepts("fleetOutagePolicy",
                OutagePolicy.LOCAL_ONLY)));
        rows.add(fleet(set("fleetOutagePolicy", "local-only", null), accepts("fleetOutagePolicy",
                OutagePolicy.LOCAL_ONLY)));
        rows.add(fleet(set("fleetOutagePolicy", "failOpen", null), new Refuses("fleetOutagePolicy")));
        rows.add(fleet(set("fleetKey", "orders-backend", "orders-backend"), accepts("fleetKey", "orders-backend")));
        rows.add(fleet(set("fleetKey", " ", " "), new Refuses("fleetKey")));
        rows.add(row("fleetNodeId blank", List.of(WITH_FLEET, set("fleetNodeId", " ", " ")),
                new Refuses("fleetNodeId")));
        rows.add(row("coordinator without fleetNodeId", List.of(WITH_FLEET), new Refuses("fleetNodeId"))
                .differs("the Camel component's coordinator is a default for the pools that name themselves in"
                        + " a fleet: without any fleetNodeId the pool runs alone (camel.md)",
                        accepts("coordinator", null), COMPONENT_FACES));
        rows.add(row("fleetNodeId without coordinator", List.of(NODE), new Refuses("fleetNodeId"))
                .differs("the Vert.x module takes the fleet options on FleetMember, which has no coordinator-less"
                        + " form", new NotCarried(), Face.FLEET_MEMBER)
                .differs("the Camel component's fleetNodeId is this application's id in the fleets its pools join:"
                        + " a pool without a coordinator runs alone (camel.md)", accepts("fleetNodeId", null),
                        COMPONENT_FACES));
        // names
        rows.add(row("an unknown name", List.of(set("maxLimt", "7", 7)), new Refuses("maxLimt", false)));
        for (String relaxed : List.of("max-limit", "MAXLIMIT")) {
            rows.add(row("a relaxed name: " + relaxed, List.of(set(relaxed, "7", null)), accepts("maxLimit", 7))
                    .differs("JSON keys are exact, as Vert.x data objects' are: a relaxed spelling is an unknown"
                            + " key (vertx.md)", new Refuses(relaxed, false), Face.VERTX_JSON_TEXT));
        }
        return rows.stream();
    }

    private static Setting set(String option, String text, Object typed) {
        return new Setting(option, text, typed);
    }

    private static Row row(String title, List<Setting> settings, Expect expect) {
        return new Row(title, settings, expect, Map.of(), null);
    }

    private static Row ok(String option, String text, Object typed, Object inForce) {
        Setting s = set(option, text, typed);
        return row(s.toString(), List.of(s), accepts(option, inForce));
    }

    private static Row bad(String option, String text, Object typed) {
        Setting s = set(option, text, typed);
        return row(s.toString(), List.of(s), new Refuses(option));
    }

    private static Row fleet(Setting s, Expect expect) {
        return row(s + " (in a fleet)", List.of(WITH_FLEET, NODE, s), expect);
    }

    private static Accepts accepts(Object... optionValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < optionValues.length; i += 2) {
            m.put((String) optionValues[i], optionValues[i + 1]);
        }
        return new Accepts(m);
    }

    // ---- the check ----------------------------------------------------------------------------

    /** What a face built, read back from the built thing. */
    record Reading(AdaptiveConfig config, int limit, FleetMember member) {
    }

    /** A face's answer: what it built, or why it refused. */
    record Answer(Reading reading, Throwable refusal) {
    }

    /** Every face that can carry the row accepts it with the same values in force, or refuses it naming them. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void everyFaceGivesTheSameAnswer(Row row) {
        List<String> disagreements = new ArrayList<>();
        Map<Face, Reading> readings = new EnumMap<>(Face.class);
        int answered = 0;
        for (Face face : Face.values()) {
            Expect expect = row.expectOn(face);
            if (!carries(face, row)) {
                if (!(expect instanceof NotCarried) && row.except.containsKey(face)) {
                    disagreements.add(face + ": cannot carry the row, expected " + expect);
                }
                continue;
            }
            answered++;
            Answer answer = build(face, row);
            if (expect instanceof NotCarried) {
                disagreements.add(face + ": carries the row, documented as not carrying it");
            } else if (expect instanceof Accepts accepts) {
                if (answer.refusal != null) {
                    disagreements.add(face + ": refused: " + messages(answer.refusal));
                    continue;
                }
                readings.put(face, answer.reading);
                accepts.inForce.forEach((option, value) -> {
                    Object actual = inForce(face, answer.reading, option);
                    if (!Objects.equals(actual, value)) {
                        disagreements.add(face + ": " + option + " in force is " + actual + ", expected " + value);
                    }
                });
            } else if (expect instanceof Refuses refuses) {
                if (answer.refusal == null) {
                    disagreements.add(face + ": accepted, read back " + answer.reading.config);
                } else if (!namesOptionAndValue(face, row, refuses, answer.refusal)) {
                    disagreements.add(face + ": refusal does not name " + refuses.option + " and its value "
                            + spellings(face, setting(row, refuses.option)) + ": " + messages(answer.refusal));
                }
            }
        }
        // Accepted, every face holds the same options and its limiter starts at the same limit; the
        // Vert.x limiter holds no fleet options (FleetMember does, compared above), so against it
        // they are left out.
        Face firstFace = null;
        for (Map.Entry<Face, Reading> e : readings.entrySet()) {
            Face face = e.getKey();
            if (face == Face.FLEET_MEMBER) {
                continue;
            }
            if (firstFace == null) {
                firstFace = face;
                continue;
            }
            Reading first = readings.get(firstFace);
            boolean withFleet = !isVertx(face) && !isVertx(firstFace);
            List<String> diff = comparable(e.getValue().config, withFleet)
                    .differences(comparable(first.config, withFleet));
            if (!diff.isEmpty()) {
                disagreements.add(face + " vs " + firstFace + ": " + diff);
            }
            // In a fleet the limit is the share the coordinator grants, whenever it does.
            boolean inFleet = row.settings.stream().anyMatch(s -> s.option.equals("coordinator"));
            if (!inFleet && e.getValue().limit != first.limit) {
                disagreements.add(face + " starts at limit " + e.getValue().limit + ", " + firstFace + " at "
                        + first.limit);
            }
        }
        assertThat(answered).as("faces that carry %s", row.title).isGreaterThanOrEqualTo(2);
        assertThat(disagreements).as("%s%s", row.title, row.why == null ? "" : " (documented: " + row.why + ")")
                .isEmpty();
    }

    private static boolean isVertx(Face face) {
        return face == Face.VERTX_JSON || face == Face.VERTX_JSON_TEXT || face == Face.VERTX_SETTER;
    }

    private static AdaptiveConfig comparable(AdaptiveConfig config, boolean withFleet) {
        if (withFleet) {
            return config;
        }
        return config.toBuilder().coordinator(null).fleetKey(null).fleetNodeId(null)
                .fleetHeartbeat(FleetMember.DEFAULT_HEARTBEAT)
                .fleetOutagePolicy(AdaptiveConfig.DEFAULT_FLEET_OUTAGE_POLICY).build();
    }

    /** An option's value in force: the fleet member's where the face built one, else the options'. */
    private static Object inForce(Face face, Reading reading, String option) {
        ConfigOption o = ConfigOption.find(option).orElseThrow();
        if (reading.member != null) {
            switch (o) {
                case FLEET_KEY:
                    return reading.member.key();
                case FLEET_NODE_ID:
                    return reading.member.nodeId();
                case FLEET_HEARTBEAT:
                    return reading.member.heartbeat();
                case FLEET_OUTAGE_POLICY:
                    return reading.member.outagePolicy();
                default:
                    break;
            }
        }
        return reading.config.value(o);
    }

    private static Setting setting(Row row, String option) {
        return row.settings.stream().filter(s -> s.option.equals(option)).findFirst()
                .orElseThrow(() -> new AssertionError(row + " sets no " + option));
    }

    /** Whether a face has a form for every setting of the row. */
    private static boolean carries(Face face, Row row) {
        boolean fleet = row.settings.stream().anyMatch(s -> FLEET_OPTIONS.contains(s.option));
        if (face == Face.FLEET_MEMBER) {
            return fleet && row.settings.stream().anyMatch(s -> s.option.equals("coordinator"))
                    && row.settings.stream().allMatch(s -> s.typed != null);
        }
        if (fleet && isVertx(face)) {
            return false;
        }
        for (Setting s : row.settings) {
            boolean bean = s.option.equals("coordinator");
            if (face.text && !bean && s.text == null || !face.text && s.typed == null) {
                return false;
            }
            if ((face == Face.VERTX_SETTER || face == Face.VERTX_JSON) && s.typed instanceof Duration d
                    && d.toNanosPart() % 1_000_000 != 0) {
                return false;
            }
            if ((face == Face.JAVA_BUILDER || face == Face.CAMEL_JAVA || face == Face.VERTX_SETTER)
                    && setter(face, s) == null) {
                return false;
            }
        }
        return true;
    }

    private static Answer build(Face face, Row row) {
        try {
            return new Answer(switch (face) {
                case JAVA_BUILDER, JAVA_MAP -> java(face, row);
                case CAMEL_URI, CAMEL_COMPONENT, CAMEL_COMPONENT_NESTED, CAMEL_NAMED_POOL, CAMEL_JAVA ->
                        camel(face, row);
                case VERTX_JSON_TEXT, VERTX_JSON, VERTX_SETTER -> vertx(face, row);
                case FLEET_MEMBER -> fleetMember(row);
            }, null);
        } catch (IllegalArgumentException | ResolveEndpointFailedException
                 | org.apache.camel.PropertyBindingException refused) {
            return new Answer(null, refused);
        } catch (RuntimeException e) {
            // Any other exception is a refusal too, and is held to naming the option and value.
            return new Answer(null, e);
        }
    }

    private static Reading java(Face face, Row row) {
        AdaptiveConfig config;
        if (face == Face.JAVA_MAP) {
            Map<String, Object> map = new LinkedHashMap<>();
            row.settings.forEach(s -> map.put(s.option, s.option.equals("coordinator") ? s.typed : s.text));
            config = AdaptiveConfig.of(map);
        } else {
            AdaptiveConfig.Builder b = AdaptiveConfig.builder();
            row.settings.forEach(s -> invoke(setter(face, s), b, s.typed));
            config = b.build();
        }
        Limiter limiter = config.limiterBuilder().name("java").build();
        AdaptiveExecutor executor = config.executorBuilder(limiter).build();
        // In a fleet, the member these options make, as the Camel pool joins with them.
        FleetMember member = config.fleetMemberBuilder(limiter, "java").map(FleetMember.Builder::join).orElse(null);
        if (member != null) {
            member.close();
            assertThat(member.limiter()).isSameAs(limiter);
        }
        // What the engine runs with is what the options say.
        assertThat(limiter.algorithm().toString()).isEqualTo(config.limit().toString());
        assertThat(limiter.retryBudget()).isEqualTo(config.retryBudgetValue());
        assertThat(executor.retryPolicy().toString()).isEqualTo(config.retryPolicy().toString());
        assertThat(executor.taskTimeout()).isEqualTo(config.taskTimeout().isZero() ? null : config.taskTimeout());
        return new Reading(config, limiter.limit(), member);
    }

    private static Reading camel(Face face, Row row) {
        String pool = "conformance" + POOLS.incrementAndGet();
        PoolConfiguration defaults = new PoolConfiguration();
        component.setConfiguration(defaults);
        component.setPools(Map.of());
        Map<String, Object> properties = new LinkedHashMap<>();
        StringBuilder uri = new StringBuilder("adaptive:" + pool + "?timeout=0");
        for (Setting s : row.settings) {
            switch (face) {
                // RAW(...): Camel would otherwise decode a '+' to a space; a bean reference stays as is
                case CAMEL_URI -> uri.append('&').append(s.option).append('=')
                        .append(s.text.startsWith("#") ? s.text : "RAW(" + s.text + ")");
                // Camel Main camel-cases the keys of camel.component.adaptive.* before it binds them
                case CAMEL_COMPONENT -> properties.put(StringHelper.dashToCamelCase(s.option), s.text);
                case CAMEL_COMPONENT_NESTED -> properties.put("configuration." + StringHelper.dashToCamelCase(s.option),
                        s.text);
                case CAMEL_NAMED_POOL -> properties.put("pools." + pool + "." + StringHelper.dashToCamelCase(s.option),
                        s.text);
                default -> invoke(setter(face, s), defaults, s.typed);
            }
        }
        if (!properties.isEmpty()) {
            // As Camel Main binds camel.component.adaptive.*: through the component's own configurer.
            PropertyBindingSupport.build().withConfigurer(component.getComponentPropertyConfigurer())
                    .withIgnoreCase(true).withMandatory(true).withRemoveParameters(false)
                    .bind(camel, component, properties);
        }
        // The endpoint's creation checks the options; its first exchange builds the pool.
        camel.getEndpoint(uri.toString());
        Exchange sent = camel.createProducerTemplate().send("adaptive:" + pool + "?timeout=0", e -> { });
        if (!(sent.getException() instanceof AdaptiveConsumerNotAvailableException)) {
            throw new IllegalStateException("the pool's first exchange failed: " + sent.getException(),
                    sent.getException());
        }
        AdaptiveStats stats = component.stats(pool).orElseThrow();
        return new Reading(component.options(pool).orElseThrow(), stats.limit(), null);
    }

    private static Reading vertx(Face face, Row row) {
        AdaptiveOptions options;
        if (face == Face.VERTX_SETTER) {
            options = new AdaptiveOptions();
            for (Setting s : row.settings) {
                invoke(setter(face, s), options, vertxValue(s.typed));
            }
        } else {
            JsonObject json = new JsonObject();
            row.settings.forEach(s -> json.put(s.option, face == Face.VERTX_JSON_TEXT ? s.text : jsonValue(s.typed)));
            options = new AdaptiveOptions(json);
        }
        AdaptiveLimiter limiter = AdaptiveLimiter.create(vertx, options);
        try {
            AdaptiveConfig config = limiter.options().toConfig();
            assertThat(limiter.limiter().algorithm().toString()).isEqualTo(config.limit().toString());
            assertThat(limiter.limiter().retryBudget()).isEqualTo(config.retryBudgetValue());
            return new Reading(config, limiter.limiter().limit(), null);
        } finally {
            limiter.close();
        }
    }

    private static Reading fleetMember(Row row) {
        JsonObject json = new JsonObject();
        FleetMember.Builder b = null;
        AdaptiveLimiter limiter = null;
        Map<String, Object> fleet = new LinkedHashMap<>();
        for (Setting s : row.settings) {
            if (FLEET_OPTIONS.contains(s.option)) {
                fleet.put(s.option, s.typed);
            } else {
                json.put(s.option, jsonValue(s.typed));
            }
        }
        limiter = AdaptiveLimiter.create(vertx, new AdaptiveOptions(json));
        try {
            b = FleetMember.builder(limiter.limiter(), (InMemoryCoordinator) fleet.get("coordinator"))
                    .key(limiter.name());
            if (fleet.containsKey("fleetKey")) {
                b.key((String) fleet.get("fleetKey"));
            }
            if (fleet.containsKey("fleetNodeId")) {
                b.nodeId((String) fleet.get("fleetNodeId"));
            }
            if (fleet.containsKey("fleetHeartbeat")) {
                b.heartbeat((Duration) fleet.get("fleetHeartbeat"));
            }
            if (fleet.containsKey("fleetOutagePolicy")) {
                b.outagePolicy((OutagePolicy) fleet.get("fleetOutagePolicy"));
            }
            FleetMember member = b.join();
            member.close();
            return new Reading(limiter.options().toConfig(), limiter.limiter().limit(), member);
        } finally {
            limiter.close();
        }
    }

    /** The setter of a typed face for this option, or null where the face has none. */
    private static Method setter(Face face, Setting s) {
        Class<?> type = switch (face) {
            case JAVA_BUILDER -> AdaptiveConfig.Builder.class;
            case CAMEL_JAVA -> PoolConfiguration.class;
            case VERTX_SETTER -> AdaptiveOptions.class;
            default -> throw new IllegalArgumentException(face + " has no setters");
        };
        String name = face == Face.JAVA_BUILDER ? s.option
                : "set" + Character.toUpperCase(s.option.charAt(0)) + s.option.substring(1);
        Object value = face == Face.VERTX_SETTER ? vertxValue(s.typed) : s.typed;
        for (Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1 && fits(m.getParameterTypes()[0], value)) {
                return m;
            }
        }
        return null;
    }

    private static boolean fits(Class<?> type, Object value) {
        Class<?> boxed = type == int.class ? Integer.class : type == long.class ? Long.class
                : type == double.class ? Double.class : type == boolean.class ? Boolean.class : type;
        return boxed.isInstance(value);
    }

    private static void invoke(Method m, Object target, Object value) {
        try {
            m.invoke(target, value);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new AssertionError(e.getCause());
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    /** A typed value as a Vert.x setter takes it: durations in milliseconds, enums by option name. */
    private static Object vertxValue(Object typed) {
        if (typed instanceof Duration d) {
            return d.toMillis();
        }
        if (typed instanceof Enum<?> e) {
            return ConfigOption.text(e);
        }
        return typed;
    }

    /** A typed value as JSON holds it. */
    private static Object jsonValue(Object typed) {
        return vertxValue(typed);
    }

    // ---- the message --------------------------------------------------------------------------

    private static boolean namesOptionAndValue(Face face, Row row, Refuses refuses, Throwable refusal) {
        String option = refuses.option;
        String name = face == Face.FLEET_MEMBER ? memberName(option) : option;
        Set<String> values = !refuses.quotesValue ? Set.of() : spellings(face, row.settings.stream()
                .filter(s -> s.option.equals(option)).findFirst().orElse(null));
        for (String m : reasons(refusal)) {
            if (!m.contains(name)) {
                continue;
            }
            if (values.isEmpty() || values.stream().anyMatch(v -> quotes(m, v))) {
                return true;
            }
        }
        return false;
    }

    /** FleetMember names its options as its builder's methods. */
    private static String memberName(String option) {
        return switch (option) {
            case "fleetKey" -> "key";
            case "fleetNodeId" -> "nodeId";
            case "fleetHeartbeat" -> "heartbeat";
            case "fleetOutagePolicy" -> "outagePolicy";
            default -> option;
        };
    }

    /** An empty or blank value is quoted only where the message ends with it or puts it in quotes. */
    private static boolean quotes(String message, String value) {
        if (value.isBlank()) {
            return message.endsWith(": " + value) || message.contains("'" + value + "'");
        }
        return message.contains(value);
    }

    /** The ways a face may quote the value it was given: as typed, or as the core writes it. */
    private static Set<String> spellings(Face face, Setting s) {
        Set<String> out = new LinkedHashSet<>();
        if (s == null) {
            // the option is unset (required and missing): only the name counts
            return out;
        }
        if (face.text) {
            out.add(s.text);
            if (face == Face.VERTX_JSON_TEXT) {
                // Documented (vertx.md): the options hold durations as milliseconds from the JSON
                // constructor on, so a rule between options, checked when the limiter is created,
                // quotes those.
                millis(s).ifPresent(ms -> out.add(String.valueOf(ms)));
            }
            return out;
        }
        Object v = face == Face.VERTX_SETTER || face == Face.VERTX_JSON ? vertxValue(s.typed) : s.typed;
        out.add(String.valueOf(v));
        if (v instanceof Duration d) {
            out.add(d.toString());
            if (!d.isNegative()) {
                out.add(ConfigOption.text(d));
            }
        }
        if (v instanceof Enum<?> e) {
            out.add(ConfigOption.text(e));
        }
        return out;
    }

    /** A duration option's text in milliseconds, where it reads as one. */
    private static Optional<Long> millis(Setting s) {
        return ConfigOption.find(s.option).filter(o -> o.kind() == ConfigOption.Kind.DURATION).flatMap(o -> {
            try {
                return Optional.of(((Duration) o.read(s.text)).toMillis());
            } catch (IllegalArgumentException notADuration) {
                return Optional.empty();
            }
        });
    }

    /**
     * The messages of a refusal and its causes; of Camel's wrapper only the reason after the URI,
     * which it repeats whole and so would name every option.
     */
    private static List<String> reasons(Throwable refusal) {
        List<String> out = new ArrayList<>();
        for (Throwable t = refusal; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (m != null && t instanceof ResolveEndpointFailedException) {
                int reason = m.lastIndexOf(" due to: ");
                m = reason < 0 ? null : m.substring(reason + " due to: ".length());
            }
            if (m != null) {
                out.add(m);
            }
        }
        return out;
    }

    private static String messages(Throwable refusal) {
        List<String> out = new ArrayList<>();
        for (Throwable t = refusal; t != null; t = t.getCause() == t ? null : t.getCause()) {
            out.add(t.getClass().getSimpleName() + ": " + t.getMessage());
        }
        return String.join(" <- ", out);
    }

    // ---- rate-limit statuses --------------------------------------------------------------------

    /**
     * The statuses read as rate limits: the Camel component's own option is one list
     * ({@code rateLimitStatusCodes=429,503}: 429 always, another only with a Retry-After), the
     * Vert.x web client's two ({@code rateLimitStatuses} always, {@code retryAfterStatuses} with a
     * Retry-After). Each list is read the same way: status codes within [100, 599], anything else
     * refused naming the option and the value. The Camel text is also a Vert.x list's text (as a
     * properties file or an environment variable gives it): the same statuses, or the same
     * message with the Vert.x list's name.
     *
     * @param camel   the Camel text
     * @param vertx   the same codes as a Vert.x JSON array, or null where JSON has no such form
     * @param codes   the codes in force, or null where the list is refused
     */
    record Statuses(String camel, JsonArray vertx, Set<Integer> codes) {
        @Override
        public String toString() {
            return "'" + camel + "' / " + vertx;
        }
    }

    static Stream<Statuses> statuses() {
        return Stream.of(
                new Statuses("100", array(100), Set.of(100)),
                new Statuses("599", array(599), Set.of(599)),
                new Statuses("429,503", array(429, 503), Set.of(429, 503)),
                new Statuses("429,503", array("429", "503"), Set.of(429, 503)),
                new Statuses(" 429 , 503 ", null, Set.of(429, 503)),
                new Statuses("99", array(99), null),
                new Statuses("600", array(600), null),
                new Statuses("4290", array(4290), null),
                new Statuses("abc", array("abc"), null),
                new Statuses("429;503", null, null),
                new Statuses("429,,503", array(429, null, 503), null),
                new Statuses(",429", null, null),
                new Statuses("429,", null, null),
                new Statuses("-429", array(-429), null));
    }

    private static JsonArray array(Object... values) {
        JsonArray a = new JsonArray();
        for (Object v : values) {
            a.add(v);
        }
        return a;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("statuses")
    void rateLimitStatusesAreReadAlikeOnEveryFace(Statuses row) {
        String option = "rateLimitStatusCodes";
        String pool = "statuses" + POOLS.incrementAndGet();
        component.setConfiguration(new PoolConfiguration());
        Throwable camelRefusal = null;
        try {
            camel.getEndpoint("adaptive:" + pool + "?" + option + "=RAW(" + row.camel + ")");
        } catch (RuntimeException e) {
            camelRefusal = e;
        }
        List<String> disagreements = new ArrayList<>();
        if (row.codes != null && camelRefusal != null) {
            disagreements.add("Camel refused: " + messages(camelRefusal));
        }
        if (row.codes == null && (camelRefusal == null || reasons(camelRefusal).stream()
                .noneMatch(m -> m.contains(option) && quotes(m, row.camel)))) {
            disagreements.add("Camel accepted or did not name " + option + " and '" + row.camel + "': "
                    + (camelRefusal == null ? "accepted" : messages(camelRefusal)));
        }
        if (row.vertx != null) {
            for (String list : List.of("rateLimitStatuses", "retryAfterStatuses")) {
                try {
                    AdaptiveWebClientOptions o = new AdaptiveWebClientOptions(
                            new JsonObject().put(list, row.vertx));
                    Set<Integer> inForce = list.equals("rateLimitStatuses") ? o.getRateLimitStatuses()
                            : o.getRetryAfterStatuses();
                    if (row.codes == null) {
                        disagreements.add("Vert.x accepted " + list + "=" + row.vertx);
                    } else if (!inForce.equals(row.codes)) {
                        disagreements.add("Vert.x " + list + " in force " + inForce + ", expected " + row.codes);
                    }
                } catch (IllegalArgumentException e) {
                    boolean named = e.getMessage().contains(list) && row.vertx.stream()
                            .anyMatch(v -> e.getMessage().endsWith(": " + v));
                    if (row.codes != null || !named) {
                        disagreements.add("Vert.x " + list + "=" + row.vertx + ": " + e.getMessage());
                    }
                }
            }
        }
        String camelReason = camelRefusal == null ? null : reasons(camelRefusal).stream()
                .filter(m -> m.startsWith(option + " must")).findFirst().orElse(null);
        for (String list : List.of("rateLimitStatuses", "retryAfterStatuses")) {
            try {
                AdaptiveWebClientOptions o = new AdaptiveWebClientOptions(new JsonObject().put(list, row.camel));
                Set<Integer> inForce = list.equals("rateLimitStatuses") ? o.getRateLimitStatuses()
                        : o.getRetryAfterStatuses();
                if (row.codes == null || !inForce.equals(row.codes)) {
                    disagreements.add("Vert.x " + list + "='" + row.camel + "' in force " + inForce);
                }
            } catch (IllegalArgumentException e) {
                if (row.codes != null || camelReason == null
                        || !e.getMessage().equals(camelReason.replace(option, list))) {
                    disagreements.add("Vert.x " + list + "='" + row.camel + "': " + e.getMessage() + " vs Camel's "
                            + camelReason);
                }
            }
        }
        assertThat(disagreements).as("%s", row).isEmpty();
    }

    /**
     * Documented: an empty list is refused by the Camel component (its one list would then read
     * no rate limit at all) but taken by the Vert.x web client, whose other list may still hold
     * the statuses that are rate limits with a Retry-After.
     */
    @Test
    void anEmptyStatusListIsRefusedByCamelAndTakenByVertx() {
        Throwable refusal = null;
        try {
            camel.getEndpoint("adaptive:statuses" + POOLS.incrementAndGet() + "?rateLimitStatusCodes=RAW()");
        } catch (RuntimeException e) {
            refusal = e;
        }
        assertThat(refusal).isNotNull();
        assertThat(reasons(refusal)).anyMatch(m -> m.startsWith("rateLimitStatusCodes must list at least one"));
        assertThat(new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", array())).getRateLimitStatuses()).isEmpty();
        assertThat(new AdaptiveWebClientOptions(new JsonObject()
                .put("rateLimitStatuses", "")).getRateLimitStatuses()).as("empty text").isEmpty();
    }

    /** The table covers every option of the core's model. */
    @Test
    void theTableCoversEveryOption() {
        Set<String> covered = new LinkedHashSet<>();
        rows().forEach(r -> r.settings.forEach(s -> ConfigOption.find(s.option).ifPresent(o -> covered.add(o.key()))));
        List<String> missing = new ArrayList<>(ConfigOption.keys());
        missing.removeAll(covered);
        // a trace listener is an object every face hands over as it is; nothing to read or check
        assertThat(missing).containsExactly("traceListener");
    }

    /** Documented: the Vert.x module takes the fleet options on FleetMember, so its JSON knows none of them. */
    @Test
    void vertxJsonNamesEveryFleetOptionAsUnknown() {
        for (String option : FLEET_OPTIONS) {
            try {
                new AdaptiveOptions(new JsonObject().put(option, "x"));
                throw new AssertionError(option + " accepted");
            } catch (IllegalArgumentException e) {
                assertThat(e).hasMessageStartingWith("unknown option '" + option + "'");
            }
        }
    }
}
