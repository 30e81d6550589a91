#!/usr/bin/env bash
# scripts/clprof-dask --time-window over shards whose traces start at different times: every
# task measures the window from the whole run's start (the earliest trace's), as one clprof
# run does, not from its own shard's. Skips (77) without python3-dask and python3-distributed.
# Usage: clprof_dask_window_test.sh CLPROF SCRIPT DATA_DIR
set -euo pipefail
clprof=$1 script=$2 data=$3
source "$(dirname "$0")/dask_lib.sh"
# ranks/rank{0,1,2,3}.json (tests/analyzer/data/README.md) start at host_start_ns 5000000 +
# 1000 * rank and have no clock sync: a launch's time is its enqueue's host begin, 1000, 2000
# and 3000 ns into its trace (gemm, gemm, relu), so 1000 * rank + 1000/2000/3000 on the run's
# clock (rank 0 first). rank0 is not the first given: the run's start is the earliest, not
# the first trace's.
traces=("$data/ranks/rank3.json" "$data/ranks/rank1.json" "$data/ranks/rank0.json"
        "$data/ranks/rank2.json")
window=2500ns:3500ns
for size in 1 2; do
  dask --shard-size "$size" kernels --time-window "$window" --format json "${traces[@]}" \
    > "$tmp/kernels_dask$size.json"
done
"$clprof" kernels --merge --time-window "$window" --format json "${traces[@]}" > "$tmp/kernels_one.json"
dask --shard-size 1 ranks --time-window="$window" --format json "${traces[@]}" > "$tmp/ranks_dask.json"
"$clprof" ranks --time-window="$window" --format json "${traces[@]}" > "$tmp/ranks_one.json"
dask --shard-size 1 summary --time-window "$window" --format json "${traces[@]}" > "$tmp/summary_dask.json"
"$clprof" summary --merge --time-window "$window" --format json "${traces[@]}" > "$tmp/summary_one.json"
for n in kernels_dask1 kernels_dask2; do
  cmp "$tmp/kernels_one.json" "$tmp/$n.json" || { echo "FAIL: $n differs from one clprof run"; exit 1; }
done
cmp "$tmp/ranks_one.json" "$tmp/ranks_dask.json" || { echo "FAIL: ranks differ"; exit 1; }
cmp "$tmp/summary_one.json" "$tmp/summary_dask.json" || { echo "FAIL: summary differs"; exit 1; }
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
kernels = {r["name"]: (r["count"], r["total_ns"]) for r in json.load(open(f"{d}/kernels_one.json"))}
# By hand: in [2500, 3500) ns lie rank 0's relu (3000: 100 ns), rank 1's second gemm
# (1000 + 2000: 1100 ns) and rank 2's first gemm (2000 + 1000: 900 ns); rank 3's launches
# (4000, 5000, 6000) are out. A shard measuring from its own start would keep the four relus
# (each at 3000 in its trace) and no gemm.
assert kernels == {"gemm": (2, 2000), "relu": (1, 100)}, kernels
s = json.load(open(f"{d}/summary_one.json"))
# The wall: the three launches at 3000 (abs. 5003000) to the end of rank 0's clFinish
# [3100, 6000] (in the window by its begin), clipped to the window's end 3500: 500 ns.
assert (s["wall_ns"], s["launches"]) == (500, 3), s
print("clprof-dask --time-window: kernels (2 shardings), ranks, summary equal one clprof run")
PY
echo OK
