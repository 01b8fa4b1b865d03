package org.example.usertasks;

import io.dask4j.runtime.client.SerializableFunction;
import java.io.Serializable;

/** A user's task code outside the runtime's package, which no allow-list allows unless the user declares it. */
public final class UserTasks {

    public record Params(String name, int scale) implements Serializable {
    }

    private UserTasks() {
    }

    public static SerializableFunction<Integer, Integer> scaleBy(int factor) {
        return x -> x * factor;
    }

    public static SerializableFunction<Integer, Params> params(String name) {
        return x -> new Params(name, x);
    }
}
