package io.dask4j.runtime.protocol;

import io.dask4j.comm.Frame;
import io.dask4j.comm.Message;
import io.dask4j.comm.ProtocolException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Packs many small messages into one {@code batch} message and back, so that a stream of per-task
 * messages costs one comm write per interval instead of one per task (Dask's BatchedSend format).
 *
 * <p>Each packed message becomes a map with its fields plus {@code "op"}; frames of all messages are
 * concatenated, and a message that carries frames records {@code "_f"} = [first, count]. Stateless and
 * thread-safe.
 */
public final class Batches {

    public static final String OP = "batch";
    private static final String FRAMES = "_f";

    private Batches() {
    }

    public static Message pack(List<Message> messages) {
        List<Object> items = new ArrayList<>(messages.size());
        List<Frame> frames = new ArrayList<>();
        for (Message m : messages) {
            Map<String, Object> item = new HashMap<>(m.fields().size() * 2 + 2);
            item.putAll(m.fields());
            item.put("op", m.op());
            if (!m.frames().isEmpty()) {
                item.put(FRAMES, List.of((long) frames.size(), (long) m.frames().size()));
                frames.addAll(m.frames());
            }
            items.add(item);
        }
        return new Message(OP, Map.of("msgs", items), frames);
    }

    /** The messages inside {@code message}, or the message itself when it is not a batch. */
    @SuppressWarnings("unchecked")
    public static List<Message> unpack(Message message) {
        if (!OP.equals(message.op())) {
            return List.of(message);
        }
        List<Object> items = message.getList("msgs");
        List<Message> out = new ArrayList<>(items.size());
        for (Object o : items) {
            if (!(o instanceof Map<?, ?> raw) || !(raw.get("op") instanceof String op)) {
                throw new ProtocolException("batch item without an op: " + o);
            }
            Map<String, Object> fields = (Map<String, Object>) raw;
            List<Frame> frames = List.of();
            if (fields.get(FRAMES) instanceof List<?> range && range.size() == 2
                    && range.get(0) instanceof Number first && range.get(1) instanceof Number count) {
                int from = first.intValue();
                int n = count.intValue();
                if (from < 0 || n < 0 || from + n > message.frames().size()) {
                    throw new ProtocolException("batch item " + op + " refers to missing frames " + range);
                }
                frames = message.frames().subList(from, from + n);
            }
            out.add(new Message(op, fields, frames));
        }
        return out;
    }
}
