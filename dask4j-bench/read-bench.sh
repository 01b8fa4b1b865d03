#!/usr/bin/env bash
# Reading an array file into 3 workers, side by side in one run (docs/arrays.md, "How fast reading is").
#
# usage: dask4j-bench/read-bench.sh ZARR_DIR HDF5_FILE DATASET [PAIRS] [LOG]
#   e.g. dask4j-bench/read-bench.sh /data/x.zarr /data/x.h5 /x 2 read-bench.log
#
# The files hold one square float64 array in uncompressed chunks (Zarr v2; a chunked, unfiltered HDF5 dataset).
# For each pair and format, in an order that rotates from pair to pair:
#   cat      the files to /dev/null (reads, fills no memory: the file system's speed);
#   floor    fill_floor.py: 3 processes pread every third chunk into fresh 4 KiB-page buffers (filling memory only);
#   jvmfloor `./dask4j bench fill-floor`: 3 JVMs copy every third chunk into fresh double[]s out of a mapping of the
#            file (filling heap only), 4 reads, each dropping the last one's arrays first;
#   dask4j   `./dask4j bench seed --backend tcp --input ... --rereads 3`: the first read into fresh worker JVMs,
#            then 3 more on the same workers, x released before each; dask4j-b is the same again (the A/A pair);
#   pretouch the same with the workers started with -XX:+AlwaysPreTouch (their heap touched at start-up);
#   dask     dask_seed_bench.py --input ... --rereads 3: Python Dask, 3 worker processes of one thread.
# Every side but cat starts after the files were read once more and 20 s of rest, so that each finds the page
# cache and free memory in the same state (a VM that hands freed memory back to its host needs those seconds).
# Each line of LOG: pair, format, side, first read (s), later reads (s), the side's wall time (s).
set -u
zarr=$1; h5=$2; dataset=$3; pairs=${4:-2}; log=${5:-read-bench.log}
cd "$(dirname "$0")/.."
py=dask4j-bench/src/main/python
./dask4j build > /dev/null
input() { [ "$1" = zarr ] && echo "zarr:$zarr" || echo "hdf5:$h5:$dataset"; }
files() { [ "$1" = zarr ] && ls -d "$zarr"/* "$zarr"/.z* 2> /dev/null || echo "$h5"; }
# first and later reads from a bench seed or dask_seed_bench JSON line
reads() { python3 -c 'import json,sys; d=json.loads(sys.stdin.readlines()[-1]); print("%.3f" % d["persist_s"], " ".join("%.3f" % s for s in d["rereads_s"]))'; }
echo "start $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2> /dev/null) load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$log"
seed() { ./dask4j bench seed --backend tcp --input "$(input $1)" --runs 1 --warmup 0 --rereads 3 "${@:2}" --json; }
for fmt in zarr hdf5; do   # the AOT caches of each job (its key covers the options), trained outside the timed sides
  seed $fmt > /dev/null
  seed $fmt --jvm-arg=-XX:+AlwaysPreTouch > /dev/null
done
sides=(dask4j floor dask dask4j-b pretouch jvmfloor)
lists=$(mktemp -d)
for fmt in zarr hdf5; do   # the chunk lists of the JVM floor
  if [ $fmt = zarr ]; then args=(zarr "$zarr"); else args=(hdf5 "$h5" "$dataset"); fi
  /usr/bin/python3 $py/fill_floor.py --list "${args[@]}" > "$lists/$fmt"
done
for p in $(seq 1 "$pairs"); do
  for fmt in zarr hdf5; do
    mapfile -t fs < <(files $fmt)
    cat "${fs[@]}" > /dev/null
    t0=$(date +%s.%N); cat "${fs[@]}" > /dev/null; t1=$(date +%s.%N)
    echo "pair $p $fmt cat $(echo "$t1 - $t0" | bc) - -" >> "$log"
    n=${#sides[@]}
    for k in $(seq 0 $((n - 1))); do
      side=${sides[$(( (k + p) % n ))]}
      cat "${fs[@]}" > /dev/null
      sleep 20
      t0=$(date +%s.%N)
      case $side in
        floor) if [ $fmt = zarr ]; then args=(zarr "$zarr"); else args=(hdf5 "$h5" "$dataset"); fi
               v="$(NUMPY_MADVISE_HUGEPAGE=0 /usr/bin/python3 $py/fill_floor.py "${args[@]}") -" ;;
        dask4j|dask4j-b) v=$(seed $fmt | reads) ;;
        pretouch) v=$(seed $fmt --jvm-arg=-XX:+AlwaysPreTouch | reads) ;;
        jvmfloor) v=$(./dask4j bench fill-floor "$lists/$fmt" --readers 3 --reads 4) ;;
        dask) v=$(/usr/bin/python3 $py/dask_seed_bench.py --input "$(input $fmt)" --runs 1 --rereads 3 --json 2> /dev/null | reads) ;;
      esac
      t1=$(date +%s.%N)
      echo "pair $p $fmt $side ${v:-failed} wall $(echo "$t1 - $t0" | bc)" >> "$log"
    done
  done
done
rm -r "$lists"
echo "end $(date -u +%FT%TZ)" >> "$log"
