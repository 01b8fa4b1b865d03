package io.dask4j.runtime.protocol;

import io.dask4j.comm.Message;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A task failure as it travels: the remote exception's class name, message, stack frames (as text,
 * never as a deserialized Throwable) and the worker that ran the task. Immutable.
 *
 * @param key the task that failed first (dependents that erred because of it carry the same info)
 */
public record ErrorInfo(String key, String type, String message, List<String> stack, String worker) {

    public ErrorInfo {
        stack = List.copyOf(stack);
        message = message == null ? "" : message;
    }

    /** Captures a throwable raised by task {@code key} on {@code worker}, keeping its cause chain's frames. */
    public static ErrorInfo of(String key, Throwable error, String worker) {
        List<String> frames = new ArrayList<>();
        for (StackTraceElement e : error.getStackTrace()) {
            frames.add(e.getClassName() + "|" + e.getMethodName() + "|" + e.getFileName() + "|" + e.getLineNumber());
        }
        String msg = error.getMessage();
        if (error.getCause() != null) {
            msg = (msg == null ? "" : msg) + " [caused by " + error.getCause() + "]";
        }
        return new ErrorInfo(key, error.getClass().getName(), msg, frames, worker);
    }

    public static ErrorInfo simple(String key, String type, String message) {
        return new ErrorInfo(key, type, message, List.of(), "");
    }

    public StackTraceElement[] stackTrace() {
        StackTraceElement[] out = new StackTraceElement[stack.size()];
        for (int i = 0; i < out.length; i++) {
            String[] p = stack.get(i).split("\\|", -1);
            int line = -1;
            try {
                line = p.length > 3 ? Integer.parseInt(p[3]) : -1;
            } catch (NumberFormatException ignored) {
                // keep -1: an unknown line
            }
            out[i] = new StackTraceElement(p[0], p.length > 1 ? p[1] : "?", p.length > 2 && !"null".equals(p[2]) ? p[2] : null, line);
        }
        return out;
    }

    public void putInto(Map<String, Object> fields) {
        fields.put("ekey", key);
        fields.put("etype", type);
        fields.put("emsg", message);
        fields.put("estack", stack);
        fields.put("eworker", worker);
    }

    public Map<String, Object> toFields() {
        Map<String, Object> m = new HashMap<>();
        putInto(m);
        return m;
    }

    public static ErrorInfo from(Message m) {
        List<String> frames = new ArrayList<>();
        for (Object o : m.getList("estack")) {
            frames.add(String.valueOf(o));
        }
        return new ErrorInfo(m.getString("ekey"), m.getString("etype"), m.getString("emsg"), frames, m.getString("eworker"));
    }
}
