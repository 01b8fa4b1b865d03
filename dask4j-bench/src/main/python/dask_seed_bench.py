#!/usr/bin/python3
"""The seed workload on Python Dask, measured the way `./dask4j bench seed` measures dask4j.

    /usr/bin/python3 dask_seed_bench.py [--n 20000] [--chunk auto|N] [--workers 3] [--runs 5] [--json]
                                        [--layout default|mirrors] [--input random|zarr:DIR|...] [--rereads 0]

Persists x = random((n, n)) (or reads it from a file), waits for it, then times (x + x.T).transpose().sum()
over several runs. --rereads N releases x after the first persist and persists it again N times on the same
workers, each timed (rereads_s), as `./dask4j bench seed --rereads N` does.
--layout default lets Dask place x's blocks as it does; --layout mirrors pins them the way dask4j's
default layout puts them (block (i, j) next to its mirror (j, i) in a growing-square order, cut into
contiguous equal runs, one per worker; see BlockOrder.java), for a like-for-like comparison.
Workers are separate processes with one thread each, as in the dask-mpi layout. Each run computes anew:
compute() releases its result keys only asynchronously, so before the next run this waits until the
scheduler holds nothing but x's chunks; otherwise an identical graph would be served from memory.
"""
import argparse
import json
import statistics
import time

import dask
import dask.array as da
from distributed import Client, LocalCluster, wait


def held_tasks(client):
    return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


def wait_until_only_x_is_held(client, held, timeout_s=60.0):
    """held: the tasks the scheduler holds for x alone (its chunks, and for a file the array object they read)."""
    chunks = held
    deadline = time.monotonic() + timeout_s
    while held_tasks(client) > chunks:
        if time.monotonic() > deadline:
            raise RuntimeError("the scheduler still holds the previous run's keys")
        time.sleep(0.05)


def mirrors_together(rows, cols):
    """Block (i, j) indices in dask4j's MIRRORS_TOGETHER order (BlockOrder.mirrorsTogether)."""
    order = []
    for k in range(max(rows, cols)):
        for i in range(k):
            if i < rows and k < cols:
                order.append((i, k))
            if k < rows and i < cols:
                order.append((k, i))
        if k < rows and k < cols:
            order.append((k, k))
    return order


def random_with_layout(client, n, chunks, layout):
    if layout == "default":
        return da.random.random((n, n), chunks=chunks)
    workers = sorted(client.scheduler_info()["workers"])
    grid = da.random.random((n, n), chunks=chunks).numblocks
    order = mirrors_together(*grid)
    quota = -(-len(order) // len(workers))
    home = {block: workers[p // quota] for p, block in enumerate(order)}
    with dask.annotate(workers=lambda key: [home[(key[1], key[2])]], allow_other_workers=False):
        return da.random.random((n, n), chunks=chunks)


def open_input(spec, chunk):
    """x read from a file, as Dask users do: da.from_zarr, or da.from_array over np.load / an h5py dataset."""
    kind, _, rest = spec.partition(":")
    chunks = None if chunk == "auto" else (int(chunk), int(chunk))
    if kind == "zarr":
        return da.from_zarr(rest) if chunks is None else da.from_zarr(rest, chunks=chunks)
    if kind == "npy":
        import numpy as np
        return da.from_array(np.load(rest, mmap_mode="r"), chunks=chunks or "auto")
    if kind == "hdf5":
        import h5py
        path, _, dataset = rest.rpartition(":")
        dset = h5py.File(path, "r")[dataset]
        return da.from_array(dset, chunks=chunks or dset.chunks or "auto")
    raise SystemExit("--input must be random, zarr:DIR, npy:FILE or hdf5:FILE:/dataset")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--chunk", default="auto")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--layout", choices=["default", "mirrors"], default="default")
    parser.add_argument("--input", default="random", help="random, zarr:DIR, npy:FILE or hdf5:FILE:/dataset")
    parser.add_argument("--rereads", type=int, default=0)
    args = parser.parse_args()
    chunks = "auto" if args.chunk == "auto" else (int(args.chunk), int(args.chunk))

    with LocalCluster(n_workers=args.workers, threads_per_worker=args.threads, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, Client(cluster) as client:
        def persisted():
            if args.input != "random":
                x = open_input(args.input, args.chunk).persist()
            else:
                x = random_with_layout(client, args.n, chunks, args.layout)
                # optimizing the graph would drop the per-block worker annotations of the mirrors layout
                x = x.persist() if args.layout == "default" else x.persist(optimize_graph=False)
            wait(x)
            return x

        started = time.perf_counter()
        x = persisted()
        persist_s = time.perf_counter() - started
        rereads_s = []
        for _ in range(args.rereads):
            x = None  # releases x's chunks, as dask4j's x.release() does
            # x's keys are the same each time: wait until they are gone, or the read would be served from memory
            wait_until_only_x_is_held(client, 0)
            started = time.perf_counter()
            x = persisted()
            rereads_s.append(time.perf_counter() - started)
        held = held_tasks(client)
        times, result = [], None
        for _ in range(args.runs):
            wait_until_only_x_is_held(client, held)
            started = time.perf_counter()
            result = (x + x.T).transpose().sum().compute()
            times.append(time.perf_counter() - started)
        chunk = x.chunksize[0]
        record = {"backend": "python-dask-tcp", "n": x.shape[0], "input": args.input, "persist_s": persist_s, "rereads_s": rereads_s, "chunk": chunk, "workers": args.workers,
                  "layout": args.layout, "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
                  "result": float(result), "runs": len(times), "runs_s": times}
        if args.json:
            print(json.dumps(record))
        else:
            print(f"python dask: n={args.n} chunk={chunk} workers={args.workers} "
                  f"median={record['median_s']:.3f}s min={record['min_s']:.3f}s max={record['max_s']:.3f}s "
                  f"sum={result:.6e}")


if __name__ == "__main__":
    main()
