package dev.adaptive.vertx;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;

/**
 * A message body of a type of its own: the event bus sends it only with a codec registered for
 * it, here one registered by name only, so that only a request that names the codec can send it.
 *
 * @param text what it carries
 */
record Parcel(String text) {

    /** @return a codec of parcels registered by {@code name} only, for one JVM or a cluster */
    static MessageCodec<Parcel, Parcel> codec(String name) {
        return new ParcelCodec(name, true);
    }

    /**
     * @return a codec of parcels that writes them but cannot read them back (a version mismatch
     *         between nodes, say): on a clustered event bus the receiving node fails to decode
     */
    static MessageCodec<Parcel, Parcel> unreadableCodec(String name) {
        return new ParcelCodec(name, false);
    }

    private record ParcelCodec(String name, boolean readable) implements MessageCodec<Parcel, Parcel> {
        @Override
        public void encodeToWire(Buffer buffer, Parcel parcel) {
            buffer.appendString(parcel.text());
        }

        @Override
        public Parcel decodeFromWire(int pos, Buffer buffer) {
            if (!readable) {
                throw new IllegalStateException(name + ": unreadable on this node");
            }
            return new Parcel(buffer.getString(pos, buffer.length()));
        }

        @Override
        public Parcel transform(Parcel parcel) {
            return parcel;
        }

        @Override
        public byte systemCodecID() {
            return -1;
        }
    }
}
