package io.dask4j.comm.wire;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import java.util.List;
import java.util.Map;

/**
 * A decoded message header: op, fields, and for each frame that follows on the wire its length in bytes
 * and its kind ({@link WireCodec#KIND_BYTES}, {@link WireCodec#KIND_DOUBLES}, {@link WireCodec#KIND_LONGS}, {@link WireCodec#KIND_NATIVE}),
 * which tells the receiver what exactly-sized array to read the frame into. Immutable by convention (do
 * not modify the arrays).
 */
public record MessageHeader(String op, Map<String, Object> fields, long[] frameLengths, byte[] frameKinds) {

    public int frameCount() {
        return frameLengths.length;
    }

    public long frameBytes() {
        long total = 0;
        for (long n : frameLengths) {
            total += n;
        }
        return total;
    }

    /** The message, once its frames have been read. */
    public Message toMessage(List<Frame> frames) {
        return new Message(op, fields, frames);
    }
}
