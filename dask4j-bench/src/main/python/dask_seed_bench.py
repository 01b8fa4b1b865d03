#!/usr/bin/python3
"""The seed workload on Python Dask, measured the way `./dask4j bench seed` measures dask4j.

    /usr/bin/python3 dask_seed_bench.py [--n 20000] [--chunk auto|N] [--workers 3] [--runs 5] [--json]

Persists x = random((n, n)), waits for it, then times (x + x.T).transpose().sum() over several runs.
Workers are separate processes with one thread each, as in the dask-mpi layout. Each run computes anew:
compute() releases its result keys only asynchronously, so before the next run this waits until the
scheduler holds nothing but x's chunks; otherwise an identical graph would be served from memory.
"""
import argparse
import json
import statistics
import time

import dask.array as da
from distributed import Client, LocalCluster, wait


def wait_until_only_x_is_held(client, x, timeout_s=60.0):
    chunks = x.npartitions
    deadline = time.monotonic() + timeout_s
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) > chunks:
        if time.monotonic() > deadline:
            raise RuntimeError("the scheduler still holds the previous run's keys")
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--chunk", default="auto")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    chunks = "auto" if args.chunk == "auto" else (int(args.chunk), int(args.chunk))

    with LocalCluster(n_workers=args.workers, threads_per_worker=args.threads, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, Client(cluster) as client:
        x = da.random.random((args.n, args.n), chunks=chunks).persist()
        wait(x)
        times, result = [], None
        for _ in range(args.runs):
            wait_until_only_x_is_held(client, x)
            started = time.perf_counter()
            result = (x + x.T).transpose().sum().compute()
            times.append(time.perf_counter() - started)
        chunk = x.chunksize[0]
        record = {"backend": "python-dask-tcp", "n": args.n, "chunk": chunk, "workers": args.workers,
                  "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
                  "result": float(result), "runs": len(times), "runs_s": times}
        if args.json:
            print(json.dumps(record))
        else:
            print(f"python dask: n={args.n} chunk={chunk} workers={args.workers} "
                  f"median={record['median_s']:.3f}s min={record['min_s']:.3f}s max={record['max_s']:.3f}s "
                  f"sum={result:.6e}")


if __name__ == "__main__":
    main()
