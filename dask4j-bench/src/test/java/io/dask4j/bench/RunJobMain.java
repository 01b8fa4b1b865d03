package io.dask4j.bench;

import java.util.List;

/** A command that runs a job through {@link MpiJobs#run} and waits: the process a test stops with a signal. */
public final class RunJobMain {
    private RunJobMain() {
    }

    public static void main(String[] args) throws Exception {
        MpiJobs.run(List.of(args), "RESULT ", 600, "test job");
    }
}
