package io.dask4j.runtime.task;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Walks task arguments: top-level values, {@link List}s, {@link Map}s and {@code Object[]}s, nested.
 * The client uses it to turn {@code DaskFuture}s into {@link KeyRef}s (collecting the dependencies);
 * workers use it to turn {@link KeyRef}s into values. Containers are copied only when they hold
 * something to replace, so plain arguments pass through untouched. Stateless and thread-safe.
 */
public final class Arguments {

    private Arguments() {
    }

    /**
     * Replaces every instance of {@code leafType} with {@code replace}'s answer (which may be null);
     * returns {@code value} itself when nothing changed.
     */
    public static <L> Object replace(Object value, Class<L> leafType, Function<? super L, Object> replace) {
        if (leafType.isInstance(value)) {
            return replace.apply(leafType.cast(value));
        }
        switch (value) {
            case List<?> list -> {
                List<Object> copy = null;
                for (int i = 0; i < list.size(); i++) {
                    Object v = list.get(i);
                    Object r = replace(v, leafType, replace);
                    if (r != v && copy == null) {
                        copy = new ArrayList<>(list.subList(0, i));
                    }
                    if (copy != null) {
                        copy.add(r);
                    }
                }
                return copy == null ? value : copy;
            }
            case Map<?, ?> map -> {
                boolean changed = false;
                Map<Object, Object> copy = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    Object r = replace(e.getValue(), leafType, replace);
                    changed |= r != e.getValue();
                    copy.put(e.getKey(), r);
                }
                return changed ? copy : value;
            }
            case Object[] array -> {
                Object[] copy = null;
                for (int i = 0; i < array.length; i++) {
                    Object r = replace(array[i], leafType, replace);
                    if (r != array[i]) {
                        if (copy == null) {
                            copy = array.clone();
                        }
                        copy[i] = r;
                    }
                }
                return copy == null ? value : copy;
            }
            case null, default -> {
                return value;
            }
        }
    }


    /** Calls {@code visit} for every leaf (and container) reachable through lists, maps and arrays. */
    public static void visit(Object value, Consumer<Object> visit) {
        visit.accept(value);
        switch (value) {
            case Collection<?> c -> c.forEach(v -> visit(v, visit));
            case Map<?, ?> m -> m.values().forEach(v -> visit(v, visit));
            case Object[] a -> {
                for (Object v : a) {
                    visit(v, visit);
                }
            }
            case null, default -> { }
        }
    }
}
