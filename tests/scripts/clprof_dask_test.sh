#!/usr/bin/env bash
# scripts/clprof-dask on a local cluster of 2 workers prints the rows one clprof prints over
# the same traces (kernels --merge, ranks), and figures derived by hand. Skips (77) without
# Debian's python3-dask and python3-distributed.
# Usage: clprof_dask_test.sh CLPROF SCRIPT DATA_DIR
set -euo pipefail
clprof=$1 script=$2 data=$3
source "$(dirname "$0")/dask_lib.sh"
# rank3 first: the first gemm launch counted is rank 3's (3000 ns), as one clprof run says.
traces=("$data/ranks/rank3.json" "$data/ranks/rank1.json" "$data/ranks/rank0.json"
        "$data/ranks/rank2.json" "$data/basic.json" "$data/transfers.json")
# For kernels also morph_twice.json and the kernels-variants golden's trace: variants of morph
# (two options of one source, two sources) that the merge keeps apart as one clprof run does.
kernel_traces=("${traces[@]}" "$data/morph_twice.json"
               "$data/../../golden/kernels-variants-table/variants.json")
"$clprof" kernels --merge --format json "${kernel_traces[@]}" > "$tmp/one.json"
# One trace per task: 8 partials, merged in a tree of 7 merges.
dask --shard-size 1 kernels "${kernel_traces[@]}" \
  --format json > "$tmp/dask1.json"
dask kernels --format json "${kernel_traces[@]}" \
  > "$tmp/dask.json"
"$clprof" ranks --format json "${traces[@]}" > "$tmp/ranks_one.json"
dask --shard-size 2 ranks "${traces[@]}" --format json \
  > "$tmp/ranks_dask.json"
"$clprof" ranks --kernel gemm --format json "${traces[@]}" > "$tmp/gemm_one.json"
dask --shard-size 1 ranks --kernel gemm --format json \
  "${traces[@]}" > "$tmp/gemm_dask.json"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
d = sys.argv[1]
load = lambda n: json.load(open(f"{d}/{n}.json"))
one = load("one")
for n in ("dask1", "dask"):
    assert load(n) == one, f"{n} differs from clprof kernels --merge:\n{load(n)}\n{one}"
assert load("ranks_dask") == load("ranks_one"), "ranks differ"
assert load("gemm_dask") == load("gemm_one"), "ranks --kernel gemm differs"
# By hand (tests/analyzer/data/README.md): gemm 1000+1100 (rank 1), 1000+1000, 900+1000,
# 3000+3000: 8 launches, total 12000, median of 900 1000 1000 1000 1000 1100 3000 3000 = 1000,
# first counted: rank 3's 3000 (given first).
gemm = [r for r in one if r["name"] == "gemm"]
assert len(gemm) == 1, one
g = gemm[0]
assert (g["count"], g["total_ns"], g["median_ns"], g["min_ns"], g["max_ns"], g["first_ns"]) == \
    (8, 12000, 1000, 900, 3000, 3000), g
# morph by hand (tests/analyzer/data/README.md, tests/golden/kernels-variants-table/cmd): four
# variants, no option word common to all, two sources: morph_twice's -D OP_ERODE 100 + 200 ns,
# -D OP_DILATE 400; the golden trace's ERODE (programs 1 and 3) 100 + 200 + 300, DILATE 400.
morph = {r["name"]: (r["count"], r["total_ns"]) for r in one if r["name"].startswith("morph")}
assert morph == {"morph [-D OP_ERODE, source 00000000]": (2, 300),
                 "morph [-D OP_DILATE, source 00000000]": (1, 400),
                 "morph [-D T=uchar -D OP_ERODE, source d1d1d1d1]": (3, 600),
                 "morph [-D T=uchar -D OP_DILATE, source d1d1d1d1]": (1, 400)}, morph
ranks = load("ranks_one")
assert [r["rank"] for r in ranks] == [0, 1, 2, 3, None, None], ranks
assert [r["outlier"] for r in ranks][:4] == [False, False, False, True], ranks
print("clprof-dask: kernels (2 shardings), ranks and ranks --kernel equal one clprof run")
PY
# A bad trace fails the run with clprof's message (exit non-zero).
echo '{"format":"clprof-trace"' > "$tmp/bad.json"
if "$script" --workers 1 --clprof "$clprof" kernels "$tmp/bad.json" > /dev/null 2> "$tmp/err"; then
  echo "FAIL: a bad trace passed"; exit 1
fi
grep -q "bad.json" "$tmp/err" || { echo "FAIL: the error does not name the file:"; cat "$tmp/err"; exit 1; }
echo OK
