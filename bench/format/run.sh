#!/bin/bash
# Instructions the shim's hot formatter (format_op) spends per record, counted by callgrind
# on clprof_format_bench: a figure that does not depend on the machine's load, for
# comparing two versions of shim/output/record_format.cpp.
#
#   bench/format/run.sh [BUILD_DIR] [RECORDS]     (defaults: ./build, 200000)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
records=${2:-200000}
bench=$build/bin/clprof_format_bench
[[ -x $bench ]] || { echo "missing $bench: build the target clprof_format_bench" >&2; exit 2; }
out=$(mktemp /tmp/clprof_format_cg.XXXXXX)
trap 'rm -f "$out"' EXIT
"$bench" "$records"
ir=$(valgrind --tool=callgrind --callgrind-out-file="$out" \
  --toggle-collect='clprof::shim::format_op*' "$bench" "$records" 2>&1 |
  awk '/Collected :/ {print $4}')
echo "format_op: $ir instructions for $records records ($(awk "BEGIN {printf \"%.1f\", $ir / $records}") per record)"
