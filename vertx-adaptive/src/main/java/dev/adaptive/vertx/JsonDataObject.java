package dev.adaptive.vertx;

import io.vertx.core.json.JsonObject;

/**
 * What the module's data objects share: their JSON is their value, so equality, hash and text
 * follow {@link #toJson()}. Each subclass's {@code toJson} is its generated converter's.
 */
abstract class JsonDataObject {

    /** @return the object as JSON, under the keys its JSON constructor reads */
    public abstract JsonObject toJson();

    @Override
    public boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && toJson().equals(((JsonDataObject) o).toJson());
    }

    @Override
    public int hashCode() {
        return toJson().hashCode();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + toJson().encode();
    }
}
