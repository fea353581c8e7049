package dev.adaptive.benchmarks.jmh;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Processor;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What {@code adaptive:} costs a Camel route against what a Camel user would otherwise reach
 * for: exchanges per second sent with a synchronous {@link ProducerTemplate#sendBody(Endpoint, Object)}
 * to {@code adaptive:x} (every pool option at its default), to {@code adaptive:x?synchronous=true},
 * to Camel's own Throttle EIP in concurrent-requests mode ({@code throttle(50).concurrentRequestsMode()}
 * behind {@code direct:}, the anchor: the other way to bound the calls in flight), to
 * {@code seda:x?waitForTaskToComplete=Always} (Camel's own hand-off to another thread, with the
 * sender waiting for the reply) and to {@code direct:x}, each consumed by a route whose one step
 * does nothing (Camel refuses a route without steps). One CamelContext holds every route; the
 * endpoints are resolved once, so no row pays a URI lookup per exchange. Targets:
 * {@code synchronous=true} at least 1.0 × the Throttle EIP, the default at least 0.5 × it.
 *
 * <p>What {@code adaptive:} does per exchange that {@code direct:} does not: a limiter
 * acquire/release with two clock reads and a Vegas sample, a correlated copy of the exchange for
 * the attempt (so that a retry never sees a half-done attempt), and a hand-off of the attempt to
 * the pool's worker thread, which the sending thread, blocked in {@code sendBody}, waits for.
 * The {@code adaptiveSync} rows send to {@code adaptive:x?synchronous=true}, which runs a first
 * attempt admitted at once on the sending thread and on the sent exchange itself, as
 * {@code direct:} does: no hand-off and no copy, only what a retry would start from is kept.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar CamelProducerBenchmark -prof gc -rf json -rff benchmarks/results/jmh-camel.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class CamelProducerBenchmark {

    private static final Processor NOTHING = exchange -> { };
    /** The Throttle EIP's concurrent requests: more than one or two senders ever hold, as for {@code adaptive:}'s limit. */
    private static final int THROTTLE = 50;

    private CamelContext camel;
    private ProducerTemplate template;
    private Endpoint adaptive;
    private Endpoint direct;
    private Endpoint adaptiveSync;
    private Endpoint throttled;
    private Endpoint seda;

    /** Starts the context with both consumer routes. @throws Exception if Camel cannot start */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        camel = new DefaultCamelContext();
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("adaptive:x").process(NOTHING);
                from("direct:x").process(NOTHING);
                from("direct:throttled").throttle(THROTTLE).concurrentRequestsMode().process(NOTHING);
                from("seda:x").process(NOTHING);
            }
        });
        camel.start();
        template = camel.createProducerTemplate();
        adaptive = camel.getEndpoint("adaptive:x");
        direct = camel.getEndpoint("direct:x");
        adaptiveSync = camel.getEndpoint("adaptive:x?synchronous=true");
        throttled = camel.getEndpoint("direct:throttled");
        // Request-reply through seda's queue and consumer thread: the sender waits for the reply.
        seda = camel.getEndpoint("seda:x?waitForTaskToComplete=Always");
    }

    /** Stops the context. @throws Exception if it cannot stop */
    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        camel.close();
    }

    /** One exchange through {@code adaptive:x}, one thread. */
    @Benchmark
    @Threads(1)
    public void adaptive1() {
        template.sendBody(adaptive, "x");
    }

    /** One exchange through {@code direct:x}, one thread. */
    @Benchmark
    @Threads(1)
    public void direct1() {
        template.sendBody(direct, "x");
    }

    /** One exchange through {@code adaptive:x}, two threads sharing the pool. */
    @Benchmark
    @Threads(2)
    public void adaptive2() {
        template.sendBody(adaptive, "x");
    }

    /** One exchange through {@code direct:x}, two threads. */
    @Benchmark
    @Threads(2)
    public void direct2() {
        template.sendBody(direct, "x");
    }

    /** One exchange through {@code adaptive:x?synchronous=true}: no hand-off to a worker, one thread. */
    @Benchmark
    @Threads(1)
    public void adaptiveSync1() {
        template.sendBody(adaptiveSync, "x");
    }

    /** One exchange through {@code adaptive:x?synchronous=true}, two threads sharing the pool. */
    @Benchmark
    @Threads(2)
    public void adaptiveSync2() {
        template.sendBody(adaptiveSync, "x");
    }

    /** One exchange through {@code direct:throttled}, Camel's Throttle EIP in concurrent-requests mode, one thread. */
    @Benchmark
    @Threads(1)
    public void throttle1() {
        template.sendBody(throttled, "x");
    }

    /** One exchange through Camel's Throttle EIP, two threads sharing its permits. */
    @Benchmark
    @Threads(2)
    public void throttle2() {
        template.sendBody(throttled, "x");
    }

    /** One exchange through {@code seda:x?waitForTaskToComplete=Always} (request-reply), one thread. */
    @Benchmark
    @Threads(1)
    public void seda1() {
        template.sendBody(seda, "x");
    }

    /** One exchange through {@code seda:x?waitForTaskToComplete=Always}, two threads. */
    @Benchmark
    @Threads(2)
    public void seda2() {
        template.sendBody(seda, "x");
    }
}
