package io.dask4j.array;

import io.dask4j.array.io.BlockReader;
import io.dask4j.array.io.RawArray;
import io.dask4j.array.io.ZarrArray;
import io.dask4j.runtime.task.TaskFunction;

/**
 * The task functions that move blocks between files and workers. Each reads or writes one block on the
 * worker that runs it (the one holding the block, for writes), so array data never passes through the
 * client. Called on worker task threads.
 */
enum FileTasks implements TaskFunction<Object> {
    /** (BlockReader file, long rowStart, long colStart, int rows, int cols) -> the block as a row-major double[]. */
    READ {
        @Override
        public Object apply(Object... a) {
            return ((BlockReader) a[0]).read((Long) a[1], (Long) a[2], (Integer) a[3], (Integer) a[4]);
        }
    },
    /** (ZarrArray target, int i, int j, int rows, int cols, double[] block) -> bytes of data written. */
    WRITE_ZARR_CHUNK {
        @Override
        public Object apply(Object... a) {
            double[] block = (double[]) a[5];
            ((ZarrArray) a[0]).writeChunk((Integer) a[1], (Integer) a[2], (Integer) a[3], (Integer) a[4], block);
            return (long) block.length * Double.BYTES;
        }
    },
    /** (RawArray target, long rowStart, long colStart, int rows, int cols, double[] block) -> bytes written. */
    WRITE_RUN {
        @Override
        public Object apply(Object... a) {
            double[] block = (double[]) a[5];
            ((RawArray) a[0]).write((Long) a[1], (Long) a[2], (Integer) a[3], (Integer) a[4], block);
            return (long) block.length * Double.BYTES;
        }
    }
}
