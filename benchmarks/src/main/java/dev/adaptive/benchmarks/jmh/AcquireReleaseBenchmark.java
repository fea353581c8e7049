package dev.adaptive.benchmarks.jmh;

import com.netflix.concurrency.limits.Limiter.Listener;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.adaptive.Lease;
import dev.adaptive.Limiter;
import dev.adaptive.limit.Outcome;
import dev.adaptive.limit.FixedLimit;
import dev.adaptive.limit.Vegas;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The cost of admitting and releasing one call, the overhead every call through Adaptive pays:
 * {@link Limiter#tryAcquire()} then {@link Lease#release(Outcome)} with {@link Outcome#SUCCESS},
 * at one and two threads sharing one limiter, against
 * <ul>
 *   <li>{@code semaphore}: a {@link Semaphore} tryAcquire/release pair, no timing at all;</li>
 *   <li>{@code floor}: the same pair plus the two {@link System#nanoTime()} reads an RTT sample
 *       needs, the least any adaptive limiter can do;</li>
 *   <li>{@code netflix}: Netflix concurrency-limits' {@code SimpleLimiter} with its
 *       {@code VegasLimit}, acquire then {@code onSuccess()};</li>
 *   <li>{@code adaptiveFixed}: Adaptive with a {@link FixedLimit}, the gate without an algorithm;</li>
 *   <li>{@code adaptiveAtLimit}: Adaptive with Vegas held at a limit of 1, one thread, so that
 *       every sample joins a probe and every fifth makes a decision (the path a saturated
 *       limiter takes; the other rows run below the limit, like a client with spare capacity).</li>
 * </ul>
 *
 * <p>Run (after {@code mvn -B -q -pl benchmarks -am package -DskipTests}):
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar AcquireReleaseBenchmark -rf json -rff benchmarks/results/jmh-acquire-release.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class AcquireReleaseBenchmark {

    private Limiter adaptive;
    private Limiter adaptiveFixed;
    private Limiter adaptiveAtLimit;
    private Semaphore semaphore;
    private SimpleLimiter<Void> netflix;

    /** Builds one of each, with every default except where the javadoc says otherwise. */
    @Setup
    public void setUp() {
        adaptive = Limiter.create();
        adaptiveFixed = Limiter.builder().limit(FixedLimit.of(1_000)).build();
        adaptiveAtLimit = Limiter.builder().limit(Vegas.builder().initialLimit(1).maxLimit(1).build()).build();
        semaphore = new Semaphore(1_000);
        netflix = SimpleLimiter.newBuilder().limit(VegasLimit.newDefault()).build();
    }

    private static boolean pair(Limiter limiter) {
        Optional<Lease> lease = limiter.tryAcquire();
        return lease.isPresent() && lease.get().release(Outcome.SUCCESS);
    }

    private long floorPair() {
        long start = System.nanoTime();
        if (!semaphore.tryAcquire()) {
            return -1;
        }
        long rtt = System.nanoTime() - start;
        semaphore.release();
        return rtt;
    }

    private boolean semaphorePair() {
        if (!semaphore.tryAcquire()) {
            return false;
        }
        semaphore.release();
        return true;
    }

    private boolean netflixPair() {
        Optional<Listener> listener = netflix.acquire(null);
        listener.ifPresent(Listener::onSuccess);
        return listener.isPresent();
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(1)
    public boolean adaptive1() {
        return pair(adaptive);
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(2)
    public boolean adaptive2() {
        return pair(adaptive);
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(1)
    public boolean adaptiveFixed1() {
        return pair(adaptiveFixed);
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(2)
    public boolean adaptiveFixed2() {
        return pair(adaptiveFixed);
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(1)
    public boolean adaptiveAtLimit1() {
        return pair(adaptiveAtLimit);
    }

    /** @return the measured RTT, so that the clock reads are not optimised away */
    @Benchmark
    @Threads(1)
    public long floor1() {
        return floorPair();
    }

    /** @return the measured RTT */
    @Benchmark
    @Threads(2)
    public long floor2() {
        return floorPair();
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(1)
    public boolean semaphore1() {
        return semaphorePair();
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(2)
    public boolean semaphore2() {
        return semaphorePair();
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(1)
    public boolean netflix1() {
        return netflixPair();
    }

    /** @return whether the pair succeeded */
    @Benchmark
    @Threads(2)
    public boolean netflix2() {
        return netflixPair();
    }
}
