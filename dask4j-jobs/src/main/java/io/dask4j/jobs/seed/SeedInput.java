package io.dask4j.jobs.seed;

import io.dask4j.array.ChunkSpec;
import io.dask4j.array.DArray;
import io.dask4j.array.DArrays;

import java.nio.file.Path;

/**
 * Where the seed workload's {@code x} comes from: the seeded random generator (the reference workload) or an
 * array file read by the workers ({@code zarr:DIR}, {@code npy:FILE}, {@code hdf5:FILE:/dataset}), so that the
 * persist time measures reading real data. Immutable; parsed from {@code bench seed --input}.
 *
 * @param format {@code random}, {@code zarr}, {@code npy} or {@code hdf5}
 * @param path   the file or directory ({@code null} for random)
 * @param dataset the HDF5 dataset's path ({@code null} otherwise)
 */
record SeedInput(String format, Path path, String dataset) {

    static final SeedInput RANDOM = new SeedInput("random", null, null);

    /** Parses {@code random}, {@code zarr:DIR}, {@code npy:FILE} or {@code hdf5:FILE:/dataset}; paths are made absolute. */
    static SeedInput parse(String text) {
        if (text.equals("random")) {
            return RANDOM;
        }
        int colon = text.indexOf(':');
        String format = colon < 0 ? "" : text.substring(0, colon);
        String rest = colon < 0 ? "" : text.substring(colon + 1);
        return switch (format) {
            case "zarr", "npy" -> new SeedInput(format, Path.of(rest).toAbsolutePath(), null);
            case "hdf5" -> {
                int ds = rest.lastIndexOf(":/");
                if (ds < 0) {
                    throw new IllegalArgumentException("hdf5 input needs a dataset: hdf5:FILE:/dataset, got '" + text + "'");
                }
                yield new SeedInput(format, Path.of(rest.substring(0, ds)).toAbsolutePath(), rest.substring(ds + 1));
            }
            default -> throw new IllegalArgumentException("input must be random, zarr:DIR, npy:FILE or hdf5:FILE:/dataset, got '" + text + "'");
        };
    }

    /**
     * The unpersisted {@code x}: random of {@code n x n} in blocks of {@code chunks}, or the file's array in its own
     * blocks ({@code chunks} only when {@code explicitChunks}), which must be square.
     */
    DArray array(int n, ChunkSpec chunks, boolean explicitChunks, long seed) {
        DArray x = switch (format) {
            case "random" -> DArrays.random(n, n, chunks, seed);
            case "zarr" -> explicitChunks ? DArrays.fromZarr(path, chunks) : DArrays.fromZarr(path);
            case "npy" -> explicitChunks ? DArrays.fromNpy(path, chunks) : DArrays.fromNpy(path);
            case "hdf5" -> explicitChunks ? DArrays.fromHdf5(path, dataset, chunks) : DArrays.fromHdf5(path, dataset);
            default -> throw new IllegalStateException("unknown input format " + format);
        };
        if (x.ndim() != 2 || x.shape()[0] != x.shape()[1]) {
            throw new IllegalArgumentException("the seed workload needs a square 2-D array; " + this + " is " + x);
        }
        return x;
    }

    /** As {@code --input} takes it. */
    @Override
    public String toString() {
        return format.equals("random") ? "random" : format + ":" + path + (dataset == null ? "" : ":" + dataset);
    }
}
