package dev.adaptive.camel;

import dev.adaptive.fleet.InMemoryCoordinator;
import dev.adaptive.gen.Gen;
import dev.adaptive.gen.Property;
import dev.adaptive.time.VirtualTime;
import dev.adaptive.trace.TraceListener;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.AsyncProcessorConverterHelper;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Hostile endpoint options, generated: negative, zero, huge and overflowing numbers, NaN, empty
 * and garbage text, unknown enum names, durations that overflow nanoseconds, and combinations
 * that contradict each other (min above max, initial outside [min, max], minDelay above
 * maxDelay, fleet options without a fleet). Each URI either builds an endpoint whose pool then
 * takes an exchange through, or fails when the endpoint is created with an exception whose
 * message (below Camel's "Failed to resolve endpoint: uri" wrapper, which repeats the URI)
 * names the option and its value. Never a hang, never a stray NullPointerException or
 * ArithmeticException.
 */
class EndpointOptionFuzzTest {

    private static final List<String> INTS = List.of("minLimit", "maxLimit", "initialLimit", "retries",
            "maxRateLimitRetries", "maxQueueSize");
    private static final List<String> DURATIONS = List.of("minDelay", "maxDelay", "maxRetryAfter", "taskTimeout",
            "waitTimeout", "fleetHeartbeat", "timeout");
    private static final List<String> OTHERS = List.of("jitter", "algorithm", "backoff", "fleetOutagePolicy",
            "rateLimitStatusCodes", "adaptOnLatency", "adaptOnErrors", "adaptOnRateLimit", "classifier",
            "traceListener", "coordinator", "fleetKey", "fleetNodeId");

    /** Wrong for every option, or for most. */
    private static final List<String> HOSTILE = List.of("-1", "0", "-2147483648", "2147483648", "99999999999",
            "-99999999999", "9223372036854775808", "NaN", "Infinity", "-Infinity", "1.5", "-0.0", "1e309", "0x1F",
            "abc", " ", "", "null", "true", "#nothere", "PT-1S", "-5s", "P1000000000D", "99999999999d",
            "10 banana", "∞", "1,5", "%");

    private static final AtomicInteger names = new AtomicInteger();
    private static CamelContext context;

    @BeforeAll
    static void startCamel() {
        context = new DefaultCamelContext();
        context.getRegistry().bind("myClassifier", (ExchangeClassifier) e -> null);
        context.getRegistry().bind("myTrace", (TraceListener) event -> { });
        context.getRegistry().bind("fleet", InMemoryCoordinator.create());
        context.start();
    }

    @AfterAll
    static void stopCamel() {
        context.stop();
    }

    /** One option as written in the URI, before Camel decodes it. */
    record Setting(String option, String value) {
        @Override
        public String toString() {
            return option + "=" + value;
        }
    }

    @Test
    void everyHostileUriBuildsAWorkingPoolOrFailsNamingTheOptionAndTheValue() {
        Property.forAll(1000, settings(), EndpointOptionFuzzTest::buildsOrFailsNamingIt);
    }

    private static void buildsOrFailsNamingIt(List<Setting> settings) {
        String uri = "adaptive:fuzz" + names.incrementAndGet() + "?" + settings.stream()
                .map(s -> s.option() + "=" + encode(s.value())).collect(Collectors.joining("&"));
        AtomicReference<Endpoint> built = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            try {
                built.set(context.getEndpoint(uri));
            } catch (RuntimeException e) {
                failure.set(e);
            }
        }, () -> "creating " + uri + " hung");

        Property.collect("endpoint", failure.get() == null ? "built" : "refused");
        if (failure.get() == null) {
            takesAnExchange(uri, (AdaptiveEndpoint) built.get());
        } else {
            namesTheOptionAndTheValue(uri, settings, failure.get());
        }
    }

    private static void namesTheOptionAndTheValue(String uri, List<Setting> settings, Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = failure; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        assertThat(chain).as("causes of %s", uri)
                .noneMatch(t -> t instanceof NullPointerException || t instanceof ArithmeticException
                        || t instanceof ClassCastException);
        // Camel's wrapper repeats the URI, so it would name everything; the reason lies below it.
        List<String> reasons = chain.stream().skip(1).map(Throwable::getMessage)
                .filter(m -> m != null).toList();
        boolean named = settings.stream().anyMatch(s -> reasons.stream()
                .anyMatch(m -> m.contains(s.option()) && spellings(s).stream().anyMatch(m::contains)
                        // or the option this one requires, and that is missing
                        || m.contains("must be set when " + s.option())));
        assertThat(named).as("some reason below the wrapper of %s names an option and its value: %s", uri, reasons)
                .isTrue();
    }

    /** The pool these options describe is built and takes an exchange through its consumer. */
    private static void takesAnExchange(String uri, AdaptiveEndpoint endpoint) {
        PoolConfig config = endpoint.poolConfig();
        VirtualTime time = new VirtualTime();
        ExchangePool pool = new ExchangePool(endpoint.getName(), () -> config, time, time, Runnable::run,
                Clock.systemUTC());
        pool.attach(endpoint, AsyncProcessorConverterHelper.convert(e -> e.getMessage().setBody("ok")));
        Exchange exchange = new DefaultExchange(context);
        AtomicInteger callbacks = new AtomicInteger();
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            pool.submit(exchange, doneSync -> callbacks.incrementAndGet(), endpoint.getTimeout(), endpoint.isSynchronous());
            // A fleet member admits nothing until a heartbeat, on the pool's scheduler, grants a share.
            time.advance(Duration.ofMinutes(1));
        }, () -> "an exchange through " + uri + " hung");
        assertThat(callbacks).as("callbacks of the exchange through %s", uri).hasValue(1);
        assertThat(exchange.getException()).as("exchange through %s", uri).isNull();
        assertThat(exchange.getMessage().getBody()).isEqualTo("ok");
        pool.close();
        assertThat(callbacks).as("callbacks of the exchange through %s after close", uri).hasValue(1);
        assertThat(time.uncaught()).as("timer failures of %s", uri).isEmpty();
    }

    /** The ways a message may quote the value: as written, or as Camel converted it. */
    private static Set<String> spellings(Setting s) {
        String raw = s.value();
        Set<String> out = new java.util.HashSet<>();
        out.add(raw);
        out.add(raw.trim());
        if (DURATIONS.contains(s.option())) {
            Duration d = context.getTypeConverter().tryConvertTo(Duration.class, raw);
            if (d != null) {
                out.add(d.toString());
            }
        }
        if (INTS.contains(s.option())) {
            try {
                out.add(Integer.toString(Integer.parseInt(raw)));
            } catch (NumberFormatException notAnInt) {
                // as written only
            }
        }
        if (s.option().equals("jitter")) {
            try {
                out.add(Double.toString(Double.parseDouble(raw)));
            } catch (NumberFormatException notADouble) {
                // as written only
            }
        }
        if (raw.isBlank()) {
            out.add("null");
        }
        return out;
    }

    private static Gen<List<Setting>> settings() {
        List<String> options = Stream.of(INTS, DURATIONS, OTHERS).flatMap(List::stream).toList();
        Gen<Setting> one = Gen.of(options).flatMap(o -> values(o).map(v -> new Setting(o, v)));
        return Gen.uniqueLists(one, 1, 4, Setting::option);
    }

    private static Gen<String> values(String option) {
        // Camel decodes '&', '=', '%' and '+' before it splits the query (values holding them need
        // RAW(...)), so free text keeps to characters that reach the option as written.
        Gen<String> anyText = Gen.strings(Gen.chars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                + " -._:;!*()~,/"), 0, 12);
        return Gen.frequency(
                Gen.weighted(5, Gen.of(HOSTILE)),
                Gen.weighted(4, Gen.of(typed(option))),
                Gen.weighted(1, anyText));
    }

    /** Plausible and borderline values for one option, so combinations meet each other's rules. */
    private static List<String> typed(String option) {
        if (INTS.contains(option)) {
            return List.of("1", "2", "5", "10", "100", "2147483647", "-0", "+3", "05");
        }
        if (DURATIONS.contains(option)) {
            return List.of("0", "10ms", "2s", "1m", "PT2S", "500", "1h", "P106751D", "P106752D",
                    "PT2562047H47M16.854775807S", "9223372036854775807", "1h2m3s", "-PT1S");
        }
        return switch (option) {
            case "jitter" -> List.of("0", "0.5", "1", "1.0000001", "-0.1", "5e-1", "1e-320");
            case "algorithm" -> List.of("vegas", "AIMD", "Gradient2", "fixed", "fix", "vegas ", "cubic");
            case "backoff" -> List.of("exponential", "LINEAR", "constant", "fibonacci");
            case "fleetOutagePolicy" -> List.of("failClosed", "LOCALONLY", "failOpen");
            case "rateLimitStatusCodes" -> List.of("429", "429,503", "99", "600", "429,,503", "429;503", ",",
                    "429, 503", "4294967296");
            case "adaptOnLatency", "adaptOnErrors", "adaptOnRateLimit" -> List.of("true", "false", "yes", "0", "TRUE");
            case "classifier" -> List.of("#myClassifier", "#myTrace", "#fleet");
            case "traceListener" -> List.of("#myTrace", "#myClassifier");
            case "coordinator" -> List.of("#fleet", "#myTrace");
            case "fleetKey", "fleetNodeId" -> List.of("n1", "payments", "a b");
            default -> List.of("x");
        };
    }

    /** Percent-encodes what a URI cannot carry as is; bean references keep their '#'. */
    private static String encode(String value) {
        Map<String, String> keep = new LinkedHashMap<>();
        keep.put("%23", "#");
        keep.put("%2C", ",");
        String out = URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
        for (Map.Entry<String, String> e : keep.entrySet()) {
            out = out.replace(e.getKey(), e.getValue());
        }
        return out;
    }
}
