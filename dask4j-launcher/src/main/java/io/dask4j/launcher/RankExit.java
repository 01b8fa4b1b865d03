package io.dask4j.launcher;

/**
 * Start-up of this rank ended in a way every rank of the job agrees on (too few ranks, the scheduler did
 * not start, ...): the rank finalizes MPI and exits with {@link #code()}; {@link #show()} says whether
 * this rank prints the message on the console (one rank does, so the console shows it once).
 */
final class RankExit extends RuntimeException {
    private final int code;
    private final boolean show;

    RankExit(int code, String message, boolean show, Throwable cause) {
        super(message, cause);
        this.code = code;
        this.show = show;
    }

    int code() {
        return code;
    }

    boolean show() {
        return show;
    }
}
