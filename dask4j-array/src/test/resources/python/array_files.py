"""Writes and reads array files with Python's own libraries, for dask4j's compatibility tests.

  array_files.py write DIR      writes every case into DIR, each NAME with NAME.expected.f8 (its values as
                                little-endian float64, C order) beside it, and prints the case names
  array_files.py read KIND PATH [DATASET] OUT
                                reads PATH with numpy (npy), zarr or h5py and writes its values to OUT as
                                little-endian float64 in C order
"""
import os
import sys

import numpy as np


def expected(path, values):
    np.ascontiguousarray(values, dtype="<f8").tofile(path + ".expected.f8")


def write(d):
    import h5py
    import numcodecs
    import zarr

    rng = np.random.default_rng(42)
    base = rng.random((37, 53))
    cases = []

    def npy(name, values):
        np.save(os.path.join(d, name), values)
        expected(os.path.join(d, name), values)
        cases.append(name)

    npy("c_f8.npy", base)
    npy("fortran_f4.npy", np.asfortranarray(base.astype("<f4")))
    npy("big_i4.npy", (base * 1e6).astype(">i4") - 500000)
    npy("u2.npy", (base * 60000).astype("<u2"))
    npy("i1.npy", (base * 200 - 100).astype("i1"))
    npy("vector_u8.npy", np.arange(1000, dtype="<u8") * 3)

    def zarr_array(name, values, **kw):
        z = zarr.open(os.path.join(d, name), mode="w", shape=values.shape, dtype=values.dtype, **kw)
        z[...] = values
        expected(os.path.join(d, name), values)
        cases.append(name)

    zarr_array("default.zarr", base, chunks=(10, 16))
    zarr_array("zlib_f4.zarr", base.astype("<f4"), chunks=(8, 20), compressor=numcodecs.Zlib(level=3))
    zarr_array("gzip_i2.zarr", (base * 1000).astype("<i2"), chunks=(37, 7), compressor=numcodecs.GZip(level=4))
    zarr_array("zstd_fortran.zarr", base, chunks=(16, 16), compressor=numcodecs.Zstd(level=2), order="F")
    zarr_array("blosc_zstd_bitshuffle.zarr", base, chunks=(12, 12),
               compressor=numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.BITSHUFFLE))
    zarr_array("raw_vector.zarr", np.arange(500, dtype="<f8") / 7, chunks=(64,), compressor=None)
    nested = zarr.open(zarr.NestedDirectoryStore(os.path.join(d, "nested.zarr")), mode="w", shape=base.shape,
                       chunks=(20, 20), dtype="<f8")
    nested[...] = base
    expected(os.path.join(d, "nested.zarr"), base)
    cases.append("nested.zarr")
    sparse = zarr.open(os.path.join(d, "sparse.zarr"), mode="w", shape=(30, 30), chunks=(10, 10), dtype="<f8",
                       fill_value=-1.5)
    sparse[0:10, 0:10] = 7.0  # the other eight chunks are never written: they read as the fill value
    expected(os.path.join(d, "sparse.zarr"), sparse[...])
    cases.append("sparse.zarr")

    with h5py.File(os.path.join(d, "data.h5"), "w") as f:
        f.create_dataset("contiguous", data=base)
        f.create_dataset("group/chunked_gzip_f4", data=base.astype("<f4"), chunks=(10, 10), compression="gzip")
        f.create_dataset("chunked_i2_vector", data=np.arange(-300, 300, dtype="<i2"), chunks=(50,))
        f.create_dataset("big_endian_f8", data=base.astype(">f8"))
        f.create_dataset("shuffled_lzf", data=base, chunks=(16, 32), shuffle=True, compression="lzf")
        # h5py allocates a chunk only when something is written into it: the others read as the fill value.
        holes = f.create_dataset("holes_f8", shape=base.shape, dtype="<f8", chunks=(10, 10))
        holes[0:10, 0:20] = base[0:10, 0:20]
        holes[30:37, 50:53] = base[30:37, 50:53]
        filled = f.create_dataset("holes_gzip_filled", shape=base.shape, dtype="<f8", chunks=(8, 16),
                                  compression="gzip", fillvalue=-2.5)
        filled[8:16, 16:32] = base[8:16, 16:32]
        ints = f.create_dataset("holes_i2_vector", shape=(600,), dtype=">i2", chunks=(50,), fillvalue=-7)
        ints[120:180] = np.arange(60)
        f.create_dataset("never_written", shape=(20, 30), dtype="<f4", chunks=(5, 5), fillvalue=3.25)
        unwritten = {name: f[name][...] for name in ("holes_f8", "holes_gzip_filled", "holes_i2_vector", "never_written")}
    for name, values in [("contiguous", base), ("group/chunked_gzip_f4", base.astype("<f4")),
                         ("chunked_i2_vector", np.arange(-300, 300, dtype="<i2")),
                         ("big_endian_f8", base), ("shuffled_lzf", base)] + list(unwritten.items()):
        expected(os.path.join(d, "data.h5." + name.replace("/", "_")), values)
        cases.append("data.h5:" + name)
    print("\n".join(cases))


def read(kind, path, dataset, out):
    if kind == "npy":
        values = np.load(path)
    elif kind == "zarr":
        import zarr
        values = zarr.open(path, mode="r")[...]
    elif kind == "h5":
        import h5py
        with h5py.File(path, "r") as f:
            values = f[dataset][...]
    else:
        raise SystemExit("unknown kind " + kind)
    np.ascontiguousarray(values, dtype="<f8").tofile(out)
    print(values.shape, values.dtype)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "read":
        args = sys.argv[2:]
        read(args[0], args[1], args[2] if len(args) == 4 else None, args[-1])
