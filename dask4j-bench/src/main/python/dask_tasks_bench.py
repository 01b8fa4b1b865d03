#!/usr/bin/python3
"""Dask's side of `dask4j bench tasks`: the same three workloads, measured the same way.

    /usr/bin/python3 dask_tasks_bench.py [--workers 2] [--threads 1] [--n 100000] [--repeat 3] [--processes]

Prints one JSON object per workload (backend, workload, n, tasks_per_s, seconds), like the Java
command with --json. backend is "dask-tcp" (worker processes, the default LocalCluster) or
"dask-inproc" (--no-processes: workers as threads of this process).
"""
import argparse
import json
import statistics
import time

from dask.distributed import Client, LocalCluster, wait


def noop(x):
    return x


def add(a, b):
    return a + b


def leaf(i):
    return i


def run_map(client, n):
    start = time.perf_counter()
    futures = client.map(noop, range(n), pure=False)
    wait(futures)
    seconds = time.perf_counter() - start
    del futures
    return seconds


def run_tree(client, n, run):
    prefix = f"tree{run}-"
    graph = {}
    level = []
    for i in range(n):
        key = f"{prefix}leaf-{i}"
        graph[key] = (leaf, i)
        level.append(key)
    k = 0
    while len(level) > 1:
        nxt = []
        for i in range(0, len(level) - 1, 2):
            key = f"{prefix}sum-{k}"
            k += 1
            graph[key] = (add, level[i], level[i + 1])
            nxt.append(key)
        if len(level) % 2 == 1:
            nxt.append(level[-1])
        level = nxt
    root = level[0]
    start = time.perf_counter()
    result = client.get(graph, root)
    seconds = time.perf_counter() - start
    assert result == n * (n - 1) // 2, result
    return seconds


def run_round_trip(client, rounds=200):
    times = []
    for i in range(-20, rounds):
        start = time.perf_counter()
        assert client.submit(noop, i, pure=False).result() == i
        if i >= 0:
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--n", type=int, default=100000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--processes", dest="processes", action="store_true", default=True)
    p.add_argument("--no-processes", dest="processes", action="store_false")
    args = p.parse_args()
    backend = "dask-tcp" if args.processes else "dask-inproc"
    with LocalCluster(n_workers=args.workers, threads_per_worker=args.threads, processes=args.processes,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        def measure(workload, tasks, fn):
            fn(0)
            times = sorted(fn(r + 1) for r in range(max(1, args.repeat)))
            median = times[len(times) // 2]
            print(json.dumps({"backend": backend, "workload": workload, "n": tasks,
                              "tasks_per_s": round(tasks / median, 1), "seconds": round(median, 6)}), flush=True)

        measure("map", args.n, lambda r: run_map(client, args.n))
        measure("tree", 2 * args.n - 1, lambda r: run_tree(client, args.n, r))
        rt = run_round_trip(client)
        print(json.dumps({"backend": backend, "workload": "round-trip", "n": 1,
                          "tasks_per_s": round(1 / rt, 1), "seconds": round(rt, 6)}), flush=True)


if __name__ == "__main__":
    main()
