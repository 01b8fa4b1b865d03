package io.dask4j.runtime.client;

import io.dask4j.runtime.task.TaskFunction;

/**
 * Wraps the convenient task shapes (supplier, function, bi-function, callable, runnable) as {@link TaskFunction}, the one
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
            case OfCallable<?> c -> c.fn();
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

    record OfCallable<R>(java.util.concurrent.Callable<R> fn) implements TaskFunction<R> {
        @Override
        public R apply(Object... args) throws Exception {
            return fn.call();
        }
    }

    /** A Runnable with the value its future gives ({@code null} for {@code submit(Runnable)}). */
    record OfRunnable<R>(Runnable fn, R result) implements TaskFunction<R> {
        @Override
        public R apply(Object... args) {
            fn.run();
            return result;
        }
    }
}
