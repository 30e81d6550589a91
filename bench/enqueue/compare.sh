#!/usr/bin/env bash
# Compares shim builds side by side on the enqueue benchmark: how a change to libclprof.so
# moves the cost per launch, with machine noise spread over all builds alike.
#
# Usage:   bench/enqueue/compare.sh ROUNDS BUILD_DIR LIB_A.so LIB_B.so [LIB_C.so ...]
#   e.g.   cp build-perf/lib/libclprof.so /tmp/before.so   # then change, rebuild, and:
#          bench/enqueue/compare.sh 11 build-perf /tmp/before.so build-perf/lib/libclprof.so
#
# Each round runs `enqueue_bench ITERS 1000` once under each library in turn, on the fake
# driver of BUILD_DIR (or on ICD=/etc/OpenCL/vendors/pocl.icd), writing the trace to OUT (a
# file in a temporary directory; OUT=/dev/null takes the file system out). Prints per
# library the medians of ns per iteration, the enqueuing thread's CPU ns and the whole
# process's CPU ns per iteration, and every round's ns per iteration.
# Knobs: ITERS (1000000), ICD, OUT. Run on an otherwise idle machine.
set -euo pipefail

if (($# < 4)); then
  echo "usage: $0 ROUNDS BUILD_DIR LIB_A.so LIB_B.so [LIB_C.so ...]" >&2
  exit 2
fi
ROUNDS=$1
BUILD_DIR=$(cd "$2" && pwd)
shift 2
BENCH=$BUILD_DIR/bin/enqueue_bench
ICD=${ICD:-$BUILD_DIR/fake_icd_vendors/clprof_fake.icd}
ITERS=${ITERS:-1000000}
for f in "$BENCH" "$ICD" "$@"; do
  [[ -e $f ]] || { echo "compare.sh: missing $f" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/clprof_compare.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
OUT=${OUT:-$WORK/trace.json}

declare -A rows
for ((round = 0; round < ROUNDS; ++round)); do
  for lib in "$@"; do
    [[ -f $OUT ]] && rm -f "$OUT"  # never a device such as /dev/null
    # Only this benchmark's variables: a CLPROF_* or FAKE_CL_* setting of the caller would skew it.
    unset_args=()
    for v in $(compgen -e | grep -E '^(CLPROF_|FAKE_CL_)' || true); do unset_args+=(-u "$v"); done
    out=$(env "${unset_args[@]}" OCL_ICD_VENDORS="$ICD" LD_PRELOAD="$lib" CLPROF_OUTPUT="$OUT" \
      "$BENCH" "$ITERS" 1000) || { echo "compare.sh: enqueue_bench failed under $lib" >&2; exit 1; }
    rows[$lib]+="$(awk '$1=="ns_per_iter"{a=$2} $1=="thread_cpu_ns_per_iter"{b=$2}
                        $1=="process_cpu_ns_per_iter"{c=$2} END{print a "," b "," c}' <<<"$out") "
  done
done
[[ -f $OUT ]] && rm -f "$OUT"

echo "enqueue_bench $ITERS x $ROUNDS rounds, ICD $ICD, trace $OUT; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
for lib in "$@"; do
  /usr/bin/python3 - "$lib" "${rows[$lib]}" <<'EOF'
import statistics, sys
lib, data = sys.argv[1], sys.argv[2].split()
rows = [[float(x) for x in row.split(",")] for row in data]
med = lambda i: statistics.median(r[i] for r in rows)
print(f"{lib}\n  ns/iter {med(0):7.1f}   app thread CPU {med(1):7.1f}   process CPU {med(2):7.1f}"
      f"   rounds: {' '.join(f'{r[0]:.0f}' for r in rows)}")
EOF
done
