#!/usr/bin/env bash
# Every benchmark the issues ask for, ours and the Python peer's (Debian python3-distributed), one after
# another, on a quiet machine. Usage: dask4j-bench/run-all-benchmarks.sh [OUTPUT_DIR]; each run writes
# OUTPUT_DIR/<name>.out (JSON lines) and OUTPUT_DIR/log.txt its exit code and duration.
set -u
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="${1:-bench-results}"; mkdir -p "$out"
py=dask4j-bench/src/main/python
run() { local name=$1; shift; echo "== $name: $*" >> "$out"/log.txt; local t0=$(date +%s); "$@" > "$out"/$name.out 2> "$out"/$name.err; echo "   rc=$? $(( $(date +%s)-t0 ))s" >> "$out"/log.txt; }
./dask4j build
uptime >> "$out"/log.txt
for i in 1 2 3; do run comm-tcp-$i ./dask4j bench comm --backend tcp --json; done
run comm-inproc-1 ./dask4j bench comm --backend inproc --json
for i in 1 2; do run dask-comm-tcp-$i /usr/bin/python3 $py/dask_comm_bench.py --backend tcp --json; done
run dask-comm-inproc-1 /usr/bin/python3 $py/dask_comm_bench.py --backend inproc --json
for m in openmpi mpich; do for i in 1 2 3; do run comm-mpi-$m-$i ./dask4j bench comm --backend mpi --mpi $m --json; done; done
for i in 1 2; do run mpi-c-$i sh dask4j-bench/src/main/c/measure-mpi-c.sh; done
for i in 1 2 3; do
  run tasks-tcp-$i ./dask4j bench tasks --backend tcp --workers 2 --threads 1 --n 100000 --json
  run tasks-tcp-dashboard-$i ./dask4j bench tasks --backend tcp --workers 2 --threads 1 --n 100000 --dashboard --json
done
run tasks-inproc-1 ./dask4j bench tasks --backend inproc --workers 2 --threads 1 --n 100000 --json
for i in 1 2; do
  run tasks-mpi-$i ./dask4j bench tasks --backend mpi --workers 2 --n 20000 --json
  run tasks-mpirun-tcp-$i ./dask4j bench tasks --backend mpi --protocol tcp --workers 2 --n 20000 --json
done
run dask-tasks-1 /usr/bin/python3 $py/dask_tasks_bench.py --n 3000 --repeat 2
uptime >> "$out"/log.txt
# The seed jobs start every JVM with its role's AOT cache; the first job of a shape trains them and its times
# include that, so train each shape once, untimed, before the timed jobs (those then say "aot":"cached").
for b in tcp mpi; do
  run seed-train-small-$b ./dask4j bench seed --backend $b --n 10000 --chunk 500 --runs 1 --json
  run seed-train-big-$b ./dask4j bench seed --backend $b --n 20000 --runs 1 --json
  run seed-train-rowmajor-$b ./dask4j bench seed --backend $b --n 20000 --runs 1 --layout row-major --json
done
run seed-small-tcp ./dask4j bench seed --backend tcp --n 10000 --chunk 500 --runs 5 --json
run seed-small-mpi ./dask4j bench seed --backend mpi --n 10000 --chunk 500 --runs 5 --json
run dask-seed-small /usr/bin/python3 $py/dask_seed_bench.py --n 10000 --chunk 500 --runs 5 --json
for i in 1 2; do
  run seed-big-tcp-$i ./dask4j bench seed --backend tcp --n 20000 --runs 5 --json
  run seed-big-mpi-$i ./dask4j bench seed --backend mpi --n 20000 --runs 5 --json
done
run dask-seed-big /usr/bin/python3 $py/dask_seed_bench.py --n 20000 --runs 5 --json
run dask-seed-big-mirrors /usr/bin/python3 $py/dask_seed_bench.py --n 20000 --runs 5 --layout mirrors --json
run seed-big-tcp-rowmajor ./dask4j bench seed --backend tcp --n 20000 --runs 5 --layout row-major --json
run seed-big-mpi-rowmajor ./dask4j bench seed --backend mpi --n 20000 --runs 5 --layout row-major --json
echo "== all done $(date)" >> "$out"/log.txt
