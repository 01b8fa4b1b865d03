package io.dask4j.array.io;

/** The order of a 2-D array's elements in a file: row-major ({@code C}) or column-major ({@code F}, Fortran's). */
public enum StorageOrder {
    /** Row after row: NumPy's and Zarr's default. */
    C,
    /** Column after column, as Fortran and MATLAB store arrays. */
    F
}
