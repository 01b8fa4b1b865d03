#!/usr/bin/python3
"""The floor for reading an array file into fresh memory, to compare readers with: 3 processes (as 3 workers), each
reading every third chunk of the file(s) with pread into a fresh NumPy buffer, in parallel. Prints the slowest
process's own read time in seconds (process start-up is not counted).

usage: fill_floor.py [--list] zarr DIR | hdf5 FILE DATASET

--list prints the chunks instead, one per line as "path offset length": the chunk list of the JVM's floor
(io.dask4j.bench.floor.JvmFillFloor, which reads the same chunks into fresh Java arrays).

Uncompressed Zarr v2 chunk files, or a chunked, unfiltered HDF5 dataset (chunk offsets from h5py). NumPy advises
buffers of 4 MiB and more as huge pages; NUMPY_MADVISE_HUGEPAGE=0 in the environment turns that off."""
import os
import sys
import time
from multiprocessing import Process, Queue

import numpy as np

READERS = 3


def chunks(kind, path, dataset=None):
    """(file, offset, length) of every chunk."""
    if kind == "zarr":
        names = sorted(n for n in os.listdir(path) if not n.startswith("."))
        return [(os.path.join(path, n), 0, os.path.getsize(os.path.join(path, n))) for n in names]
    import h5py
    with h5py.File(path, "r") as f:
        d = f[dataset]
        if d.chunks is None or d.compression is not None:
            raise SystemExit(f"{path}:{dataset} is not a chunked, unfiltered dataset")
        infos = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]
    return [(path, c.byte_offset, c.size) for c in infos]


def read(items, results, go):
    kept = []
    go.get()
    started = time.perf_counter()
    for path, offset, length in items:
        buffer = np.empty(length, dtype=np.uint8)
        view = memoryview(buffer)
        fd = os.open(path, os.O_RDONLY)
        try:
            done = 0
            while done < length:
                n = os.preadv(fd, [view[done:]], offset + done)
                if n <= 0:
                    raise SystemExit(f"{path} ends before byte {offset + length}")
                done += n
        finally:
            os.close(fd)
        kept.append(buffer)
    results.put(time.perf_counter() - started)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--list":
        for path, offset, length in chunks(*sys.argv[2:5]):
            print(path, offset, length)
        return
    if len(sys.argv) < 3 or sys.argv[1] not in ("zarr", "hdf5") or (sys.argv[1] == "hdf5" and len(sys.argv) < 4):
        raise SystemExit(__doc__)
    items = chunks(*sys.argv[1:4])
    results, go = Queue(), Queue()
    readers = [Process(target=read, args=(items[i::READERS], results, go)) for i in range(READERS)]
    for r in readers:
        r.start()
    for _ in readers:
        go.put(1)
    times = [results.get() for _ in readers]
    for r in readers:
        r.join()
    print(f"{max(times):.3f}")


if __name__ == "__main__":
    main()
