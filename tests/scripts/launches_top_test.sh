#!/usr/bin/env bash
# `clprof launches --top K` keeps a heap of K launches (cli/cmd_launches.cpp) instead of every
# launch: its rows must be the first K rows of the full, sorted output, for every column a
# launch alone decides, ties (basic.json's two 1000 ns gemmlowp launches) and several
# processes (the four ranks) included.
# Usage: launches_top_test.sh CLPROF DATA_DIR
set -euo pipefail
clprof=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
checked=0
for inputs in "$data/basic.json" "$data/ranks/rank2.json $data/ranks/rank0.json $data/ranks/rank3.json $data/ranks/rank1.json"; do
  for sort in "" seq name duration_ns queued_to_submit_ns submit_to_start_ns host_enqueue_ns status host_start_ns; do
    opt=()
    [ -n "$sort" ] && opt=(--sort "$sort")
    # shellcheck disable=SC2086
    "$clprof" launches --format json "${opt[@]}" $inputs > "$tmp/all.json" 2>/dev/null
    for k in 1 2 3 5 100; do
      # shellcheck disable=SC2086
      "$clprof" launches --format json "${opt[@]}" --top "$k" $inputs > "$tmp/top.json" 2>/dev/null
      /usr/bin/python3 - "$tmp/all.json" "$tmp/top.json" "$k" "$sort" <<'PY'
import json, sys
full, top, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
if top != full[:k]:
    sys.exit(f"--top {k} --sort '{sys.argv[4]}': {[r['seq'] for r in top]} "
             f"!= {[r['seq'] for r in full[:k]]}")
PY
      checked=$((checked + 1))
    done
  done
done
echo "launches --top: $checked cases equal the first K rows of the full output"
