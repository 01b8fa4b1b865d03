package io.dask4j.runtime.client;

/**
 * Wraps the convenient task shapes (supplier, function, bi-function) as {@link TaskFunction}, the one
 * form workers run. Records: they serialize as their single component.
 */
final class Adapters {
    private Adapters() {
    }

    /** The user's function inside an adapter (the cache key for its serialized bytes), else {@code fn} itself. */
    static Object identity(TaskFunction<?> fn) {
        return switch (fn) {
            case OfSupplier<?> s -> s.fn();
            case OfFunction<?, ?> f -> f.fn();
            case OfBiFunction<?, ?, ?> b -> b.fn();
            default -> fn;
        };
    }

    record OfSupplier<R>(SerializableSupplier<R> fn) implements TaskFunction<R> {
        @Override
        public R apply(Object... args) {
            return fn.get();
        }
    }

    record OfFunction<T, R>(SerializableFunction<T, R> fn) implements TaskFunction<R> {
        @Override
        @SuppressWarnings("unchecked")
        public R apply(Object... args) {
            return fn.apply((T) args[0]);
        }
    }

    record OfBiFunction<T, U, R>(SerializableBiFunction<T, U, R> fn) implements TaskFunction<R> {
        @Override
        @SuppressWarnings("unchecked")
        public R apply(Object... args) {
            return fn.apply((T) args[0], (U) args[1]);
        }
    }
}
