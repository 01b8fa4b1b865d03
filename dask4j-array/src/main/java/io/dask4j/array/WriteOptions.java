package io.dask4j.array;

import io.dask4j.array.io.ZarrCompressor;

import java.util.Objects;

/**
 * How {@link DArray#toZarr}, {@link DArray#toNpy} and {@link DArray#toRaw} write: whether an existing target
 * may be replaced, and how Zarr chunks are compressed. Immutable.
 *
 * @param overwrite  replace an existing target; without it an existing file or array is an error
 * @param compressor the Zarr chunks' compressor ({@link ZarrCompressor#NONE} by default; ignored by .npy and raw)
 */
public record WriteOptions(boolean overwrite, ZarrCompressor compressor) {

    /** Refuses to replace anything; uncompressed Zarr chunks. */
    public static final WriteOptions DEFAULT = new WriteOptions(false, ZarrCompressor.NONE);

    public WriteOptions {
        Objects.requireNonNull(compressor, "compressor");
    }

    /** The same, allowed to replace an existing target. */
    public WriteOptions overwriting() {
        return new WriteOptions(true, compressor);
    }

    /** The same, with Zarr chunks compressed by {@code c}. */
    public WriteOptions compressedWith(ZarrCompressor c) {
        return new WriteOptions(overwrite, c);
    }
}
