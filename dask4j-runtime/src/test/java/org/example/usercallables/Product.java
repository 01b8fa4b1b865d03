package org.example.usercallables;

import java.io.Serializable;
import java.util.concurrent.Callable;

/** A user's Callable outside the runtime's packages, which no allow-list allows unless the user declares it. */
public record Product(int a, int b) implements Callable<Integer>, Serializable {
    @Override
    public Integer call() {
        return a * b;
    }
}
