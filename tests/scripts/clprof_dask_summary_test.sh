#!/usr/bin/env bash
# scripts/clprof-dask summary on a local cluster of 2 workers prints, byte for byte, the JSON
# of clprof summary --merge over the same traces (three shardings), and figures derived by
# hand. Skips (77) without python3-dask and python3-distributed.
# Usage: clprof_dask_summary_test.sh CLPROF SCRIPT DATA_DIR
set -euo pipefail
clprof=$1 script=$2 data=$3
source "$(dirname "$0")/dask_lib.sh"
# Eight files, ten processes (tests/analyzer/data/README.md): the four ranks (one device 'TestDev' each,
# rank 3 first), basic.json (a fifth 'TestDev', GEMM work, builds), transfers.json (its own
# device, transfers), and a Caffe profile twice (the second a copy: another file; clprof
# reads each as 2 processes), whose layer lies on the unknown device 0 at [30, 51230] ns in
# both: device 0 is two shards'. 4 + 1 + 1 + 2 x 2 = 10 processes.
caffe=$data/../readers/caffe/data/caffe_ck_point_two_repetitions.json
cp "$caffe" "$tmp/caffe_copy.json"
traces=("$data/ranks/rank3.json" "$data/ranks/rank1.json" "$data/ranks/rank0.json"
        "$data/ranks/rank2.json" "$data/basic.json" "$caffe" "$data/transfers.json"
        "$tmp/caffe_copy.json")
# One trace per task (8 partials, 7 merges), 3 per task, the default (4 tasks per worker).
same_as_merge summary 3 "${traces[@]}"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/one.json"))
devices = {d["device"]: d for d in s["devices"]}
# By hand: device 0 is the two Caffe copies' layer, [30, 51230] twice: kernel time 2 x 51200,
# busy the union, 51200 (a sum per shard would say 102400).
assert (devices[None]["kernel_ns"], devices[None]["device_busy_ns"]) == (102400, 51200), devices[None]
# Devices numbered in the order given, one per trace: rank 3 (pid 2001) is 1, rank 1 (pid
# 1001) 2, rank 0 (1000) 3, rank 2 (2000) 4, basic.json's 5; five devices named 'TestDev',
# so each row says its pid. Rank 1's second gemm starts 100 ns before the first ends: busy
# 2100 < kernel 2200; rank 3: gemm 3000 + 3000 + relu 100 = 6100.
names = {i: devices[i]["name"] for i in range(1, 6)}
assert names == {1: "TestDev (pid 2001)", 2: "TestDev (pid 1001)", 3: "TestDev (pid 1000)",
                 4: "TestDev (pid 2000)", 5: "TestDev (pid 100)"}, names
assert (devices[2]["device_busy_ns"], devices[2]["kernel_ns"]) == (2100, 2200), devices[2]
assert devices[1]["kernel_ns"] == 6100, devices[1]
# basic.json (tests/golden/summary-basic-json/cmd): union 3500 ns, GEMM 4 x 65536 flop =
# 0.000262144 GFLOP, the run's only GEMM work.
assert (devices[5]["device_busy_ns"], devices[5]["gflop_total"]) == (3500, 0.000262144), devices[5]
assert s["gflop_total"] == 0.000262144 and s["processes"] == 10, s
print("clprof-dask summary (3 shardings) equals clprof summary --merge byte for byte")
PY
echo OK
