package dev.adaptive.vertx;


import io.vertx.codegen.annotations.DataObject;
import io.vertx.codegen.json.annotations.JsonGen;
import io.vertx.core.json.JsonObject;

/**
 * One stretch of an {@link AdaptivePoolStats} run at one limit, as a Vert.x data object.
 */
@DataObject
@JsonGen(publicConverter = false)
public class AdaptivePoolSegment extends JsonDataObject {

    private int concurrency;
    private long durationMs;

    /** Every figure at zero. */
    public AdaptivePoolSegment() {
    }

    /** @param json the figures, as {@link #toJson()} writes them */
    public AdaptivePoolSegment(JsonObject json) {
        AdaptivePoolSegmentConverter.fromJson(json, this);
    }

    @Override
    public JsonObject toJson() {
        JsonObject json = new JsonObject();
        AdaptivePoolSegmentConverter.toJson(this, json);
        return json;
    }


    /** @return the limit during the stretch */
    public int getConcurrency() {
        return concurrency;
    }

    /**
     * @param concurrency the limit during the stretch
     * @return this
     */
    public AdaptivePoolSegment setConcurrency(int concurrency) {
        this.concurrency = concurrency;
        return this;
    }

    /** @return how long it lasted, ms */
    public long getDurationMs() {
        return durationMs;
    }

    /**
     * @param durationMs how long it lasted, ms
     * @return this
     */
    public AdaptivePoolSegment setDurationMs(long durationMs) {
        this.durationMs = durationMs;
        return this;
    }

}
