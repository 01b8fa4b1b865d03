#!/bin/sh
# Manual reference measurement (not part of the build): compiles mpi_pingpong.c with each MPI's compiler
# wrapper into a temporary directory and runs it on 2 ranks, printing one JSON line per size, for
# comparison with `dask4j bench comm --backend mpi --json` (goal: 64 MiB >= 80% of this).
# Usage: dask4j-bench/src/main/c/measure-mpi-c.sh [iterations]
set -e
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
iterations=${1:-20000}
if command -v mpicc.openmpi >/dev/null; then
    mpicc.openmpi -O2 -o "$out/pingpong-openmpi" "$here/mpi_pingpong.c"
    echo "# Open MPI (vader, single copy off, as the Java bench runs it)"
    mpirun.openmpi --allow-run-as-root --oversubscribe --mca btl_vader_single_copy_mechanism none -np 2 \
        "$out/pingpong-openmpi" "$iterations"
fi
if command -v mpicc.mpich >/dev/null; then
    mpicc.mpich -O2 -o "$out/pingpong-mpich" "$here/mpi_pingpong.c"
    echo "# MPICH"
    mpirun.mpich -np 2 "$out/pingpong-mpich" "$iterations"
fi
