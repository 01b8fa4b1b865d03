#!/usr/bin/env python3
"""Dask's comm layer measured the way `dask4j bench comm` measures ours, for a side-by-side figure.

One-way latency is half a ping-pong round trip (median and p99); bandwidth is the payload over the
median one-way time. tcp runs between two processes (this one and an echo server it starts), inproc
between two coroutines of one process. Small sizes (<= 1 KiB) travel as a bytes value inside the
message dict (Dask's usual small message); larger ones as a numpy array through to_serialize (frames).

    python3 dask_comm_bench.py --backend tcp [--json] [--iterations 2000]
"""
import argparse
import asyncio
import json
import subprocess
import sys
import time

import numpy as np
from distributed.comm import connect, listen
from distributed.comm.core import CommClosedError
from distributed.protocol import to_serialize

SIZES = [8, 1024, 1 << 20, 16 << 20, 64 << 20]


async def echo(comm):
    try:
        while True:
            await comm.write(await comm.read())
    except CommClosedError:
        pass


async def serve(address):
    listener = listen(address, echo, deserialize=False)
    await listener.start()
    print("LISTENING", listener.contact_address, flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)   # until the parent closes our stdin
    listener.stop()


def human(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


async def measure(address, backend, iterations, as_json):
    comm = await connect(address)
    if not as_json:
        print(f"{'backend':<7} {'size':>10} {'rounds':>8} {'one-way p50':>14} {'one-way p99':>14} {'bandwidth':>12}")
    for size in SIZES:
        rounds = max(10, min(iterations, (1 << 30) // size))
        if size <= 1024:
            msg = {"op": "ping", "data": b"x" * size}
        else:
            msg = {"op": "ping", "data": to_serialize(np.ones(size, dtype=np.uint8))}
        for _ in range(max(2, rounds // 10)):
            await comm.write(msg)
            await comm.read()
        rtts = []
        for _ in range(rounds):
            start = time.perf_counter_ns()
            await comm.write(msg)
            await comm.read()
            rtts.append(time.perf_counter_ns() - start)
        rtts.sort()
        median_us = rtts[len(rtts) // 2] / 2e3
        p99_us = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))] / 2e3
        gbps = size / (median_us * 1e3)
        if as_json:
            print(json.dumps({"backend": f"dask-{backend}", "size_bytes": size, "iterations": rounds,
                              "latency_us_median": round(median_us, 3), "latency_us_p99": round(p99_us, 3),
                              "bandwidth_gbps": round(gbps, 4)}), flush=True)
        else:
            print(f"{'dask-' + backend:<7} {human(size):>10} {rounds:>8} {median_us:>11.2f} us {p99_us:>11.2f} us "
                  f"{gbps:>7.3f} GB/s", flush=True)
    await comm.close()


async def main_async(args):
    if args.backend == "inproc":
        listener = listen("inproc://", echo, deserialize=False)
        await listener.start()
        await measure(listener.contact_address, "inproc", args.iterations, args.json)
        listener.stop()
        return
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        line = server.stdout.readline()
        if not line.startswith("LISTENING "):
            raise SystemExit("the echo server did not start")
        await measure(line.split()[1], "tcp", args.iterations, args.json)
    finally:
        server.stdin.close()
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["tcp", "inproc"], default="tcp")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve("tcp://127.0.0.1:0"))
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
