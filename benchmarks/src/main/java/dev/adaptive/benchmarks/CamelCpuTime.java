package dev.adaptive.benchmarks;

import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Map;

/**
 * The sending thread's CPU time per exchange for Camel's Throttle EIP (concurrent mode, 50) and
 * for {@code adaptive:x?synchronous=true}, the two rows of {@code CamelProducerBenchmark} whose
 * ratio is a target, measured in one JVM in alternating rounds. On a shared machine JMH's
 * exchanges per second move with the load by more than the difference between two builds; a
 * thread's own CPU time moves far less, and alternating rounds expose both rows to the same
 * load. Prints each round and the median, first and third quartile of the ratio Throttle EIP ÷
 * synchronous (≥ 1.0 is the target). Not a replacement for the JMH rows, which remain the
 * published figures: a way to tell two builds apart when the machine is not quiet.
 *
 * <p>Options: {@code --rounds=30}, {@code --per-round=100000} exchanges of each row,
 * {@code --warmup=2000000} exchanges of each row first.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.adaptive.benchmarks.CamelCpuTime
 * </pre>
 */
public final class CamelCpuTime {

    private CamelCpuTime() {
    }

    /**
     * @param args {@code --rounds=N --per-round=N --warmup=N}
     * @throws Exception if Camel cannot start
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> opts = Options.parse(args, "rounds", "per-round", "warmup");
        int rounds = Options.positive(opts, "rounds", 30);
        int perRound = Options.positive(opts, "per-round", 100_000);
        int warmup = Options.positive(opts, "warmup", 2_000_000);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure a thread's CPU time");
        }
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("adaptive:x").process(exchange -> { });
                    from("direct:throttled").throttle(50).concurrentRequestsMode().process(exchange -> { });
                }
            });
            camel.start();
            ProducerTemplate template = camel.createProducerTemplate();
            Endpoint sync = camel.getEndpoint("adaptive:x?synchronous=true");
            Endpoint throttle = camel.getEndpoint("direct:throttled");
            for (int i = 0; i < warmup; i++) {
                template.sendBody(sync, "x");
                template.sendBody(throttle, "x");
            }
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < perRound; i++) {
                    template.sendBody(throttle, "x");
                }
                long t1 = threads.getCurrentThreadCpuTime();
                for (int i = 0; i < perRound; i++) {
                    template.sendBody(sync, "x");
                }
                long t2 = threads.getCurrentThreadCpuTime();
                double throttleNs = (t1 - t0) / (double) perRound;
                double syncNs = (t2 - t1) / (double) perRound;
                ratios[r] = throttleNs / syncNs;
                System.out.printf("round %d: Throttle EIP %.0f ns, synchronous=true %.0f ns of CPU per exchange, ratio %.3f%n",
                        r + 1, throttleNs, syncNs, ratios[r]);
            }
            Arrays.sort(ratios);
            System.out.printf("ratio Throttle EIP / synchronous=true over %d rounds: median %.3f, quartiles %.3f-%.3f%n",
                    rounds, ratios[rounds / 2], ratios[rounds / 4], ratios[(3 * rounds) / 4]);
        }
    }
}
