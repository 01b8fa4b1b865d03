package io.dask4j.bench.report;

/**
 * How one benchmark of a report ran: its wall time, the bound it had, how it ended ({@code ok}, {@code timed out},
 * {@code exit code N} or {@code could not start: ...}) and how many results it printed (a run that failed keeps
 * the results it printed before). Immutable.
 */
record BenchRun(String name, double seconds, long boundSeconds, String outcome, int results) {
    static final String OK = "ok";

    boolean ok() {
        return OK.equals(outcome);
    }
}
