package dev.adaptive.limit;

import java.time.Duration;

/**
 * What the last burst of rate limits said about a downstream that refuses past a hard cap:
 * the memory that keeps an adaptive limit from meeting the same cap again and again. Immutable.
 *
 * <p>A refusal admitted with {@code n} attempts in flight says that {@code n} was too many, so
 * the cap is below the lowest such {@code n} ({@link #refused()}). It does not say the cap is
 * just below it: the client's count runs ahead of the server's (requests on their way or queued
 * in the client's HTTP stack), and a leap of the limit sends many requests at once. What the
 * server did hold is read from the whole burst: after {@code k} refusals with up to {@code n}
 * in flight, about {@code n - k} were admitted; and a level at which a whole probe ended without
 * a refusal was held too. The larger of the two is {@link #held()}. A failure of the same burst
 * that came back about as fast as its refusals (a 500 or 503 a server answers past its cap as
 * well as 429s) was not held either, and counts among the {@code k}; it does not lower the
 * refused level, which only a rate limit proves.
 *
 * <p>Growth with a wall: up to the held level as fast as the algorithm grows; from there one
 * slot per decision up to one below the refused level, where it stops; the refused level
 * itself is probed again only after the wall has stood for {@code held × Retry-After} (at least
 * 30 of them), so that the pauses a wrong probe costs (the whole window idle for one
 * Retry-After) never exceed what one more slot would have earned in the meantime. A silent
 * refusal (a 429 without {@code Retry-After}) costs no pause but the decrease, recovered within
 * a few round trips: its wall stands for as many round trips of a success instead
 * ({@link #waitUnit}). Counted in zero time it stood for nothing, and growth walked into the
 * same cap again a tenth of a second after each decrease (eight times in a 1.3 s run on a cap
 * of 30 with 10 ms calls). A probe at or past the refused level
 * that ends without a refusal means the cap has moved: the wall is forgotten.
 *
 * <p><b>A refusal below the level held.</b> A downstream that refuses a rate, not a concurrency
 * (an API gateway's requests per second, a token bucket), refuses again at or below the level
 * the last burst said it held: the calls in flight were fine, there were just too many of them
 * per second, and the pause refilled the bucket for a while. Stepping back one slot per such
 * burst costs one whole Retry-After per slot. What the client did since it resumed says more:
 * while the downstream ran out, the client averaged {@code c} calls in flight, and by Little's
 * law ({@code throughput = in flight / latency}) the rate it sustains is below {@code c} calls'
 * worth; so a refusal at or below the level held holds the limit below the average in flight of
 * the successes admitted since the last burst's decrease (those admitted at or above the level
 * it resumed at; the ones of the refill right after the pause, below it, would drag the average
 * down past what the downstream sustains). A concurrency cap the client stays under never
 * refuses at the level held, so there the rule does nothing; a cap that moved down (another
 * client took part of it) reads as a rate, and is probed back up at the patience below.
 *
 * @param refused       the lowest concurrency the burst was refused at; {@link Integer#MAX_VALUE}
 *                      when there is no wall
 * @param held          the concurrency the downstream is known to have held, below {@code refused}
 * @param refusals      the refusals of the burst so far, {@code k}
 * @param top           the most attempts in flight at the admission of any of them, {@code n}
 * @param proven        the highest level a whole probe ended at without a refusal before the burst
 * @param sinceNanos    when the burst began (the end of its first refusal)
 * @param waitNanos     the unit of the wall's patience: the Retry-After the burst's first refusal
 *                      announced, or a round trip of a success if it announced none ({@link #waitUnit})
 * @param refusalRttNanos how long the burst's first refusal took to come back
 * @param atMost        the most the burst may say was held: below the average in flight since the
 *                      last burst, when this one came at or below that burst's held level;
 *                      {@link Integer#MAX_VALUE} otherwise
 * @param resumeLevel   the limit the burst's decrease set: the level the client resumes at
 * @param admittedSum   the in flight at admission, summed over the successes admitted since the
 *                      decrease at {@code resumeLevel} or more
 * @param admittedCount how many such successes
 */
record Wall(int refused, int held, int refusals, int top, int proven, long sinceNanos, long waitNanos,
            long refusalRttNanos, int atMost, int resumeLevel, long admittedSum, int admittedCount) {

    /** A failure of the burst no slower than this many times its first refusal was refused too. */
    private static final int AS_FAST = 2;

    /** The wall stands for at least this many Retry-Afters before a slot past it is probed. */
    private static final int MIN_PATIENCE = 30;

    /** No wall: nothing was refused, or the last wall was disproved. */
    static final Wall NONE = new Wall(Integer.MAX_VALUE, 0, 0, 0, 0, 0, 0, 0, Integer.MAX_VALUE, 0, 0, 0);

    /** @return whether there is a wall */
    boolean standing() {
        return refused != Integer.MAX_VALUE;
    }

    /**
     * The first refusal of a burst.
     *
     * @param inflight   attempts in flight when the refused one was admitted, counting it
     * @param proven     the highest level a whole probe ended at without a refusal
     * @param nowNanos   when the refusal ended
     * @param retryAfter the unit of the wall's patience ({@link #waitUnit}): what the refusal
     *                   announced, or a round trip of a success if nothing
     * @param rttNanos   how long the refusal took to come back
     * @param min        the limit's minimum: the wall never holds the limit below it
     */
    static Wall refusedAt(int inflight, int proven, long nowNanos, Duration retryAfter, long rttNanos, int min) {
        return NONE.refusedAgainAt(inflight, proven, nowNanos, retryAfter, rttNanos, min, min);
    }

    /**
     * The first refusal of a new burst, this wall being the last burst's (or {@link #NONE}). If
     * the refusal came at or below the level this wall says was held, the downstream refuses
     * something other than this many calls in flight (a rate; or its cap moved down): the new
     * wall's held level is then below the average in flight of the successes admitted since this
     * wall's decrease (see the class documentation).
     *
     * @param inflight   attempts in flight when the refused one was admitted, counting it
     * @param proven     the highest level a whole probe ended at without a refusal
     * @param nowNanos   when the refusal ended
     * @param retryAfter the unit of the wall's patience ({@link #waitUnit}): what the refusal
     *                   announced, or a round trip of a success if nothing
     * @param rttNanos   how long the refusal took to come back
     * @param min        the limit's minimum: the wall never holds the limit below it
     * @param resume     the limit the decrease this refusal causes sets
     * @return the new burst's wall
     */
    Wall refusedAgainAt(int inflight, int proven, long nowNanos, Duration retryAfter, long rttNanos, int min,
                        int resume) {
        int cap = Integer.MAX_VALUE;
        if (standing() && inflight <= held && admittedCount > 0) {
            cap = (int) Math.max(min, Math.ceil((double) admittedSum / admittedCount) - 1);
        }
        return new Wall(0, 0, 0, 0, proven, nowNanos, saturatedNanos(retryAfter), Math.max(0, rttNanos), cap,
                resume, 0, 0).with(Math.max(min + 1, inflight), 1, inflight, min);
    }

    /**
     * A success, counted towards the average in flight since this wall's decrease if it was
     * admitted after it at the level the client resumed at or more.
     *
     * @param inflight   attempts in flight when it was admitted, counting it
     * @param startNanos when it was admitted
     * @return the wall with it counted, or this wall (no allocation) if it does not count
     */
    Wall admitted(int inflight, long startNanos) {
        if (!standing() || inflight < resumeLevel || startNanos - sinceNanos <= 0
                || admittedCount == Integer.MAX_VALUE) {
            // A wall that stood through two billion successes has its average already.
            return this;
        }
        return new Wall(refused, held, refusals, top, proven, sinceNanos, waitNanos, refusalRttNanos, atMost,
                resumeLevel, admittedSum + inflight, admittedCount + 1);
    }

    /**
     * A failure (not a rate limit) of an attempt of the same burst, admitted before the decrease
     * the first refusal caused. One that came back about as fast as that refusal was refused too:
     * the server did not hold it, and it counts among the burst's {@code k}. A slower one was
     * served and failed: it says nothing about the cap.
     *
     * @param inflight attempts in flight when it was admitted, counting it
     * @param rttNanos how long it took to come back
     * @param min      the limit's minimum
     * @return the wall, with what this failure adds
     */
    Wall alsoDroppedAt(int inflight, long rttNanos, int min) {
        if (!standing() || rttNanos > (double) AS_FAST * refusalRttNanos) {
            return this;
        }
        return with(refused, refusals + 1, Math.max(top, inflight), min);
    }

    /**
     * Another refusal of the same burst (admitted before the decrease the first one caused).
     *
     * @param inflight attempts in flight when it was admitted, counting it
     * @param min      the limit's minimum
     * @return the wall, lowered by what this refusal adds
     */
    Wall alsoRefusedAt(int inflight, int min) {
        if (!standing()) {
            return this;
        }
        return with(Math.min(refused, Math.max(min + 1, inflight)), refusals + 1, Math.max(top, inflight), min);
    }

    private Wall with(int nextRefused, int k, int n, int min) {
        long held = Math.min(Math.max((long) n - k, proven), atMost);
        int boundedHeld = (int) Math.max(min, Math.min(nextRefused - 1L, held));
        return new Wall(nextRefused, boundedHeld, k, n, proven, sinceNanos, waitNanos, refusalRttNanos, atMost,
                resumeLevel, admittedSum, admittedCount);
    }

    /**
     * @return how long the wall stands before its refused level is probed again: one Retry-After
     *         per refused slot, since a wrong probe idles the whole window for one Retry-After
     */
    long patienceNanos() {
        return (long) Math.min(Long.MAX_VALUE, (double) waitNanos * Math.max(MIN_PATIENCE, held));
    }

    /**
     * @param limit    the limit now
     * @param next     what the algorithm would grow to
     * @param nowNanos the time of the decision
     * @param patient  whether the algorithm has seen enough quiet decisions in a row to probe
     *                 the refused level, once the wall has stood long enough
     * @return {@code next}, bounded by the wall
     */
    long bound(long limit, long next, long nowNanos, boolean patient) {
        if (!standing() || next <= held) {
            return next;
        }
        if (limit < held) {
            return held;
        }
        if (limit == held && patient && nowNanos - sinceNanos >= patienceNanos()) {
            return limit + 1;
        }
        return Math.max(limit, Math.min(next, held));
    }

    /**
     * @param level    the concurrency a whole probe just ended at, without a refusal
     * @param nowNanos when it ended
     * @return no wall if the probe was at or past the refused level (the cap has moved); a wall
     *         whose held level is {@code level} if it was above the held one (the probe of one more
     *         slot succeeded, and the next waits for the patience again); else this
     */
    Wall afterQuietProbeAt(int level, long nowNanos) {
        if (!standing() || level <= held) {
            return this;
        }
        return level >= refused ? NONE
                : new Wall(refused, level, refusals, top, proven, nowNanos, waitNanos, refusalRttNanos, atMost,
                        resumeLevel, admittedSum, admittedCount);
    }

    /**
     * The unit of a wall's patience: what one wrong probe of the refused level costs. A refusal
     * with a {@code Retry-After} costs that whole pause. A silent one (a 429 without
     * {@code Retry-After}) costs no pause, only the decrease it brings, which the limit climbs back
     * from within a few round trips: the unit is then one round trip of a success. Without one
     * (nothing succeeded yet) the unit is zero and the refused level may be probed again at once,
     * as before anything was known.
     *
     * @param retryAfter    what the refusal announced, zero when nothing
     * @param roundTripNanos the algorithm's round trip of a success (its baseline), 0 if none yet
     * @return the time to count the wall's patience in
     */
    static Duration waitUnit(Duration retryAfter, double roundTripNanos) {
        if (!retryAfter.isZero() || !(roundTripNanos > 0) || Double.isInfinite(roundTripNanos)) {
            return retryAfter;
        }
        return Duration.ofNanos((long) Math.min(Long.MAX_VALUE, roundTripNanos));
    }

    private static long saturatedNanos(Duration d) {
        try {
            return Math.max(0, d.toNanos());
        } catch (ArithmeticException overflow) {
            return Long.MAX_VALUE;
        }
    }
}
