package io.dask4j.launcher;

/**
 * The job cannot be laid out as asked: too few ranks for the chosen scheduler, client and worker ranks,
 * or the same rank named for two exclusive roles. Every rank computes the layout alike, so every rank
 * throws it and the whole job exits non-zero without talking to another rank.
 */
public final class LayoutException extends IllegalArgumentException {
    public LayoutException(String message) {
        super(message);
    }
}
