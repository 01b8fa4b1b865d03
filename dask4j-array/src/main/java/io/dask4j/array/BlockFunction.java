package io.dask4j.array;

import java.io.Serializable;

/**
 * A user function applied to every block by {@link DArray#mapBlocks}: gets a block of {@code rows x
 * cols} values (row-major) and returns a new array of the same size. Runs on a worker's task thread;
 * must be serializable (a lambda assigned to this type is) and must NOT modify {@code block}, which may
 * be another task's stored result (in-process clusters hand arrays over without copying).
 */
@FunctionalInterface
public interface BlockFunction extends Serializable {
    double[] apply(double[] block, int rows, int cols);
}
