package io.dask4j.comm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Comm} carries: an operation name, a small header of named fields, and zero or more raw
 * binary {@link Frame}s.
 *
 * <p>The header is encoded with a safe, schema'd format (msgpack), never Java serialization. Field
 * values must be one of: {@code null}, {@link Boolean}, {@link Integer}/{@link Long} (decoded as Long),
 * {@link Double}, {@link String}, {@code byte[]}, {@link List} of those, or {@link Map} with String keys
 * of those. Anything else is rejected by the encoder with an {@link IllegalArgumentException}. User
 * objects travel in frames, serialized by the comm layer's object codec, only after authentication.
 *
 * <p>Immutable once built; safe to share between threads. The typed getters throw {@link
 * ProtocolException} when a field is missing or has the wrong type, so a handler can turn a malformed
 * message into an error reply in one place.
 *
 * <p>A received message may hold frames in memory the transport wants back: {@link #release()} gives it
 * back once the reader is done with the frames (see {@link Frame#release()}); the usual patterns are
 * "decode, then release" and, for a relay or echo, "write it on, then release".
 */
public record Message(String op, Map<String, Object> fields, List<Frame> frames) {

    public Message {
        Objects.requireNonNull(op, "op");
        fields = fields == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        frames = frames == null ? List.of() : List.copyOf(frames);
    }

    public static Message of(String op) {
        return new Message(op, Map.of(), List.of());
    }

    public static Message of(String op, Map<String, Object> fields) {
        return new Message(op, fields, List.of());
    }

    public static Message of(String op, Map<String, Object> fields, List<Frame> frames) {
        return new Message(op, fields, frames);
    }

    /** A copy with one more field. Builds a new map each call: for hot paths, build the map once. */
    public Message with(String name, Object value) {
        Map<String, Object> copy = new LinkedHashMap<>(fields);
        copy.put(name, value);
        return new Message(op, copy, frames);
    }

    public boolean has(String name) {
        return fields.containsKey(name);
    }

    public Object get(String name) {
        Object value = fields.get(name);
        if (value == null && !fields.containsKey(name)) {
            throw missing(name);
        }
        return value;
    }

    public String getString(String name) {
        return as(name, String.class);
    }

    public long getLong(String name) {
        return as(name, Number.class).longValue();
    }

    public int getInt(String name) {
        long v = getLong(name);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new ProtocolException("field '" + name + "' of '" + op + "' is out of int range: " + v);
        }
        return (int) v;
    }

    public double getDouble(String name) {
        return as(name, Number.class).doubleValue();
    }

    public boolean getBoolean(String name) {
        return as(name, Boolean.class);
    }

    public byte[] getBytes(String name) {
        return as(name, byte[].class);
    }

    @SuppressWarnings("unchecked")
    public List<Object> getList(String name) {
        return as(name, List.class);
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> getMap(String name) {
        return as(name, Map.class);
    }

    /** The frame at {@code index}, or a ProtocolException naming the message if there is none. */
    public Frame frame(int index) {
        if (index < 0 || index >= frames.size()) {
            throw new ProtocolException("message '" + op + "' has no frame " + index + " (it has " + frames.size() + ")");
        }
        return frames.get(index);
    }

    /** Total bytes of all frames. */
    public long frameBytes() {
        long total = 0;
        for (Frame f : frames) {
            total += f.size();
        }
        return total;
    }

    /**
     * Releases every frame (see {@link Frame#release()}): optional, idempotent, and a no-op for messages
     * whose frames are not releasable. Call it from the thread that owns the message, once nothing uses
     * its frames any more; afterwards reading a released frame throws {@link IllegalStateException}.
     *
     * @throws IllegalStateException if a frame is still in use; the other frames are released anyway
     */
    public void release() {
        IllegalStateException first = null;
        for (Frame f : frames) {
            try {
                f.release();
            } catch (IllegalStateException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private <T> T as(String name, Class<T> type) {
        Object value = fields.get(name);
        if (value == null) {
            throw missing(name);
        }
        if (!type.isInstance(value)) {
            throw new ProtocolException("field '" + name + "' of '" + op + "' should be " + type.getSimpleName()
                    + " but is " + value.getClass().getSimpleName());
        }
        return type.cast(value);
    }

    private ProtocolException missing(String name) {
        return new ProtocolException("message '" + op + "' lacks required field '" + name + "'");
    }

    @Override
    public String toString() {
        return "Message[" + op + " " + fields.keySet() + (frames.isEmpty() ? "" : ", " + frames.size() + " frames") + "]";
    }
}
