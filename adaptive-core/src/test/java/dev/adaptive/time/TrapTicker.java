package dev.adaptive.time;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Ticker} on a {@link VirtualTime} that runs an armed action at its next reading made
 * from inside a given method of the engine, and then reads the time: a deterministic model of
 * another thread acting at that instant (a cancel landing while the limiter grants a slot, or
 * while an attempt starts). The engine reads its ticker at known points (the limiter's grant to
 * a queued acquisition reads it once, after taking the acquisition and counting its slot, to
 * stamp the lease), so the method names the instant. While {@link #broken} is set, every
 * reading, from anywhere, throws it instead: a ticker broken for a while, or for good.
 */
public final class TrapTicker implements Ticker {

    private final VirtualTime time;
    private final String method;
    private final AtomicReference<Runnable> armed = new AtomicReference<>();
    /**
     * While set, every reading throws it. An {@code Error}: the hardest case, which a
     * {@code catch (Exception e)} lets through.
     */
    public volatile Error broken;

    /**
     * @param time   the virtual time it reads
     * @param method the name of the engine method whose ticker reading springs the trap
     */
    public TrapTicker(VirtualTime time, String method) {
        this.time = Objects.requireNonNull(time, "time");
        this.method = Objects.requireNonNull(method, "method");
    }

    /** Arms {@code action} for the next reading inside the method, replacing one still armed. */
    public void arm(Runnable action) {
        armed.set(Objects.requireNonNull(action, "action"));
    }

    /** @return whether nothing is armed: the last action armed has run */
    public boolean sprung() {
        return armed.get() == null;
    }

    @Override
    public long nanoTime() {
        Error failing = broken;
        if (failing != null) {
            throw failing;
        }
        if (armed.get() != null && inMethod()) {
            Runnable action = armed.getAndSet(null);
            if (action != null) {
                action.run();
            }
        }
        return time.nanoTime();
    }

    private boolean inMethod() {
        return StackWalker.getInstance().walk(s -> s.anyMatch(f -> f.getMethodName().equals(method)));
    }
}
