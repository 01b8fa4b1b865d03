package org.example.mpiuser;

import io.dask4j.launcher.MpiCluster;
import io.dask4j.launcher.MpiClusterOptions;
import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A user program outside the runtime's package, run under mpirun with the default allow-list: every rank's
 * main class is this one, so its package is allowed on the workers and the client rank without any setting.
 * Its tasks are lambdas of this class returning records of this package. {@code UserProgramMain LOGDIR}.
 */
public final class UserProgramMain {

    /** A result type of the user's own. */
    public record Scaled(int input, long value) implements Serializable {
    }

    private UserProgramMain() {
    }

    public static void main(String[] args) {
        Client client = MpiCluster.initialize(MpiClusterOptions.defaults().withLogDirectory(Path.of(args[0])));
        long factor = 3;
        List<DaskFuture<Scaled>> scaled = client.map((Integer x) -> new Scaled(x, x * factor),
                IntStream.rangeClosed(1, 10).boxed().toList());
        long sum = client.gather(scaled).stream().mapToLong(Scaled::value).sum();
        System.out.println("USER RESULT " + sum);
    }
}
