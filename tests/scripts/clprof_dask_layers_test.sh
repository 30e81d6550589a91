#!/usr/bin/env bash
# scripts/clprof-dask layers on a local cluster of 2 workers prints, byte for byte, the JSON
# of clprof layers --merge over the same traces (three shardings), and figures derived by
# hand; --partial and --from-partials refuse --per-iteration, --by and --speedup (exit 2).
# Skips (77) without python3-dask and python3-distributed.
# Usage: clprof_dask_layers_test.sh CLPROF SCRIPT DATA_DIR GEN_TRACE
set -euo pipefail
clprof=$1 script=$2 data=$3 gen=$4
source "$(dirname "$0")/dask_lib.sh"
# Three generated traces of 2 MB (seeds 1-3, every iteration a range named "iteration": 23
# layer paths "iteration/..."), basic.json (tests/analyzer/data/README.md: 2 iterations of
# inference{conv1, fc}, one vadd outside every range) and a copy of it (another process, and
# with --shard-size 1 or 2 another shard): unrelated runs, hence --merge. The generator
# writes pid 31337 whatever the seed, and one clprof refuses two traces of one process:
# each copy gets a pid of its own (header, line 1).
for seed in 1 2 3; do
  "$gen" "$tmp/gen$seed.json" 2 "$seed" iteration > /dev/null 2>&1
  sed -i "1s/\"pid\":31337,/\"pid\":$((40000 + seed)),/" "$tmp/gen$seed.json"
done
sed '1s/"pid":100,/"pid":101,/' "$data/basic.json" > "$tmp/basic_copy.json"
traces=("$tmp/gen1.json" "$data/basic.json" "$tmp/gen2.json" "$tmp/basic_copy.json"
        "$tmp/gen3.json")
# One trace per task (5 partials, 4 merges), 2 per task, the default (4 tasks per worker).
same_as_merge layers 2 "${traces[@]}"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
rows = {r["layer"]: r for r in json.load(open(sys.argv[1] + "/one.json"))}
# By hand (tests/golden/layers-basic-json/cmd): basic.json's conv1 instances take 600 and
# 900 ns (vadd 200 + XgemmDirectNN 400, vadd 300 + XgemmDirectNN 600), so with its copy
# 600, 900, 600, 900: Iter 4, total 3000, median (600 + 900) / 2 = 750, min 600, max 900;
# its vadd 4 launches, 2 x (200 + 300) = 1000 ns. The generated traces have no "inference".
c = rows["inference/conv1"]
got = (c["instances"], c["total_ns"], c["median_ns"], c["min_ns"], c["max_ns"])
assert got == (4, 3000, 750, 600, 900), got
v = {k["name"]: k for k in c["kernels"]}["vadd"]
assert (v["count"], v["total_ns"]) == (4, 1000), v
# Launches outside every range are one instance of the whole run (as one clprof counts
# them), not one per shard: basic.json's vadd of 100 ns twice is Iter 1 of 200 ns.
n = rows["(no layer)"]
assert (n["instances"], n["median_ns"]) == (1, 200), n
assert any(p.startswith("iteration/") for p in rows), sorted(rows)
print("clprof-dask layers (3 shardings) equals clprof layers --merge byte for byte")
PY
# The partials carry the plain layer rows only: the others are usage errors (exit 2).
"$clprof" layers --partial --format json "$data/basic.json" > "$tmp/basic.partial.json"
for extra in "--per-iteration" "--by device" "--speedup vadd=2"; do
  for mode in "--partial $data/basic.json" "--from-partials $tmp/basic.partial.json"; do
    status=0
    # shellcheck disable=SC2086  # words on purpose
    "$clprof" layers $mode $extra > /dev/null 2> "$tmp/err" || status=$?
    [ "$status" = 2 ] && grep -q "plain layer rows" "$tmp/err" ||
      { echo "FAIL: layers $mode $extra: exit $status, $(cat "$tmp/err")"; exit 1; }
  done
done
echo OK
