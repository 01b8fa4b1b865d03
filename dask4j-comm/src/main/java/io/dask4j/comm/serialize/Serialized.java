package io.dask4j.comm.serialize;

import io.dask4j.comm.Frame;
import java.util.List;
import java.util.Objects;

/**
 * An object turned into frames by {@link Serialization#encode}: the codec name says how to turn the
 * frames back ({@code raw:double[]}, {@code kryo}, ...; see {@link Serialization}). Put the codec in a
 * message header field and the frames in the message's frames. Immutable (the frames are views: do not
 * modify their memory while they are in flight).
 */
public record Serialized(String codec, List<Frame> frames) {

    public Serialized {
        Objects.requireNonNull(codec, "codec");
        frames = List.copyOf(frames);
    }

    /** Total bytes of the frames. */
    public long byteSize() {
        long total = 0;
        for (Frame f : frames) {
            total += f.size();
        }
        return total;
    }
}
