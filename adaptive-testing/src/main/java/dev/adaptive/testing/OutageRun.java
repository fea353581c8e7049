package dev.adaptive.testing;

import java.time.Duration;

/**
 * The outage in the middle of a run that each face's integration test drives through its own
 * client: {@value #CALLS} calls with {@value #RETRIES} retries each, all sent at once, through a
 * limiter holding at most {@value #MAX_LIMIT} in flight, to a {@link FlakyHttpServer} that
 * answers 500 to everything for {@link #OUTAGE} from its {@value #OUTAGE_AFTER}-th arrival on.
 * The outage begins on that arrival, not at a time, so the run meets it in its middle however
 * fast the machine is. A run is done twice, with the limiter's outage rule and without it
 * ({@code outageProbe} 0), and {@link #check(OutageRun, OutageRun)} holds the two to what the
 * rule promises. Each call says its attempt number in {@link FlakyHttpServer#ATTEMPT_HEADER}.
 *
 * @param ok                        calls that ended with a 200
 * @param failed                    calls that ended otherwise (an error, another status)
 * @param duringOutage              requests the server saw during the outage
 * @param firstAttemptsDuringOutage of them, first attempts
 * @param outages                   outages the client's limiter counted
 * @param attempts                  attempts the client's limiter counted
 */
public record OutageRun(int ok, int failed, long duringOutage, long firstAttemptsDuringOutage, long outages,
                        long attempts) {

    /** Calls in a run: {@value}. */
    public static final int CALLS = 300;
    /** Retries of each call: {@value}. */
    public static final int RETRIES = 5;
    /** The limiter's {@code maxLimit}: {@value}. */
    public static final int MAX_LIMIT = 8;
    /** The arrival the outage begins with: {@value}. */
    public static final int OUTAGE_AFTER = 100;
    /** How long the server answers 500 to everything: 2 s. */
    public static final Duration OUTAGE = Duration.ofSeconds(2);
    /**
     * Requests the server may see during the outage with the rule on: {@value}. Every request
     * needs a slot, and at most {@link #MAX_LIMIT} (8) are held at once. The calls in flight when
     * the outage began (at most 8) arrived before it and succeed; the rule starts once five
     * requests more than those have failed, one of them sent after the first failure was read:
     * at most 13 failures, and at most 8 more requests in flight then, 21. Then one probe at a
     * time, each 1/8 s, 1/4 s, 1/2 s, 1 s after the answer to the one before (an older call's
     * success brings one forward): at about 0.125, 0.375, 0.875 and 1.875 s, 4 within 2 s. 25 in
     * all; 30 leaves room for a probe more on a loaded machine.
     */
    public static final int BOUND_WITH_THE_RULE = 30;

    /**
     * @return a server on an ephemeral loopback port (base latency 20 ms, flat up to 50 in
     *         flight, so that only the outage fails requests), its outage armed
     */
    public static FlakyHttpServer server() {
        FlakyHttpServer server = FlakyHttpServer.start(FlakyModel.of(20, 50, 100, Duration.ofSeconds(1)));
        server.whenArrived(OUTAGE_AFTER).thenRun(() -> server.downstream().withOutageFromNow(OUTAGE));
        return server;
    }

    /**
     * @param server   the run's server, after every call has ended
     * @param ok       calls that ended with a 200
     * @param outages  outages the client's limiter counted
     * @param attempts attempts the client's limiter counted
     * @return the run, with the server's count of requests during the outage
     */
    public static OutageRun of(FlakyHttpServer server, int ok, long outages, long attempts) {
        long[] outage = server.downstream().outageArrivals();
        return new OutageRun(ok, CALLS - ok, outage[0], outage[1], outages, attempts);
    }

    /**
     * Checks what the outage rule promises: with it every call succeeds, the limiter counted an
     * outage and at most {@link #BOUND_WITH_THE_RULE} requests reached it; without it no outage
     * was counted and more requests reached it than with it. Timing is not checked; that every
     * call ended is the caller's to check, by waiting for each one with a bound.
     *
     * @param withTheRule    the run at the default {@code outageProbe}
     * @param withoutTheRule the run with {@code outageProbe} 0
     * @throws AssertionError naming the first promise broken and both runs
     */
    public static void check(OutageRun withTheRule, OutageRun withoutTheRule) {
        String runs = " (with the rule: " + withTheRule + "; without: " + withoutTheRule + ")";
        require(withTheRule.ok() == CALLS, "with the rule every call succeeds" + runs);
        require(withTheRule.outages() >= 1, "with the rule the limiter counts an outage" + runs);
        require(withTheRule.duringOutage() > 0 && withTheRule.duringOutage() <= BOUND_WITH_THE_RULE,
                "with the rule 1 to " + BOUND_WITH_THE_RULE + " requests reach the outage" + runs);
        require(withoutTheRule.outages() == 0, "without the rule no outage is counted" + runs);
        require(withoutTheRule.duringOutage() > withTheRule.duringOutage(),
                "without the rule more requests reach the outage" + runs);
    }

    private static void require(boolean held, String promise) {
        if (!held) {
            throw new AssertionError(promise);
        }
    }

    @Override
    public String toString() {
        return ok + " ok, " + failed + " failed, " + duringOutage + " requests during the outage ("
                + firstAttemptsDuringOutage + " first attempts), " + outages + " outages, " + attempts + " attempts";
    }
}
