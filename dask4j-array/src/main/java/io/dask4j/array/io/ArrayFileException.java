package io.dask4j.array.io;

import java.nio.file.Path;

/**
 * An array file could not be read or written: missing, truncated, of a format or element type dask4j does
 * not read, or with metadata that contradicts itself. Names the file and the problem; thrown on the client
 * while the metadata is read (before any task runs) where the metadata shows the problem, otherwise by the
 * task that reads or writes the block, which the client then raises as the task's remote error.
 */
public class ArrayFileException extends RuntimeException {
    private final String file;
    private final String problem;

    public ArrayFileException(Path file, String problem) {
        this(file, problem, null);
    }

    public ArrayFileException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = String.valueOf(file);
        this.problem = problem;
    }

    /** The file (or directory, for Zarr) the problem is in. */
    public String file() {
        return file;
    }

    /** What is wrong with it, without the file name. */
    public String problem() {
        return problem;
    }
}
