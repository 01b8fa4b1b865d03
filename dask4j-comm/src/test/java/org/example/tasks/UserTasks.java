package org.example.tasks;

import java.io.Serializable;
import java.util.function.Function;

/** A user's task code outside the runtime's package: a record and a lambda captured in this class. */
public final class UserTasks {

    public record Params(String name, int scale) implements Serializable {
    }

    private UserTasks() {
    }

    public static Function<Integer, Integer> scaleBy(int factor) {
        return (Function<Integer, Integer> & Serializable) x -> x * factor;
    }

    public static Function<Object, Object> capturing(Object captured) {
        return (Function<Object, Object> & Serializable) x -> captured;
    }
}
