#!/usr/bin/env bash
# The enqueue benchmark: host cost per kernel launch, bare vs. under libclprof.so.
#
# Usage:   bench/enqueue/run.sh [BUILD_DIR]          (default: /work/main/build)
#
# Builds nothing. BUILD_DIR must hold bin/enqueue_bench, lib/libclprof.so and
# fake_icd_vendors/clprof_fake.icd, i.e. first:
#   cmake --build BUILD_DIR --target enqueue_bench   (depends on clprof_shim and, with
#   CLPROF_BUILD_TESTS=ON, the default, on clprof_fake_icd; else run with PLATFORMS=pocl)
#
# What it does, per platform (PoCL; the fake driver of tests/fake_icd; and "fake-null", the
# fake driver again with the trace written to /dev/null, which separates clprof's own cost
# from the file system's: on the fake driver the background thread, which formats and writes
# every record, becomes the limit once the kernel's page-cache writes are added):
#   * ROUNDS rounds of: one bare run, one run with LD_PRELOAD=libclprof.so, and one bare
#     "events" run (the app itself uses a profiling queue and asks for an event per launch,
#     released at once: the driver-side work any event-based tracer causes), interleaved so
#     that machine noise hits all modes alike. Each run: enqueue_bench ITERS
#     iterations of clSetKernelArg x3 + clEnqueueNDRangeKernel (no event, queue without
#     profiling, clFinish every FINISH_EVERY launches), after a 2000-launch warm-up.
#   * reports the medians: bare ns/iter, shim ns/iter, added ns per launch (shim - bare),
#     the ratio shim/bare, trace bytes per launch (file size / launches) and launch records
#     per launch (1.00 = every launch has its full record); also the CPU time per iteration
#     of the enqueuing thread and of the whole process (the process figure includes the
#     driver's and clprof's background threads: it is the total host cost, wherever it runs);
#   * peak RSS (VmHWM): the median of the bare runs and of the shim runs above, and the
#     median of three shim runs of 4 x ITERS iterations: the trace is streamed and every
#     buffer is bounded, so memory must not grow with the run length.
#
# Environment knobs: ROUNDS (25), ITERS_POCL (200000), ITERS_FAKE (1000000), FINISH_EVERY (1000),
#   PLATFORMS ("pocl fake fake-null"), POCL_ICD (/etc/OpenCL/vendors/pocl.icd).
# 25 rounds take about 90 s. Fewer rounds are too few on a shared 2-vCPU VM: single PoCL runs
# vary by up to 2x there, and with 9 rounds the median ratio moved by +-5% from run to run.
# Timing is wall clock of the enqueue loop; run on an otherwise idle machine.
# On a VM whose memory the host backs lazily (e.g. Firecracker with free page reporting), a
# shim round whose trace lands in pages not used for a second or two is several times slower
# (the page-cache copy pays the host's faults): the "fake" shim runs can then be bimodal,
# the median being that of the fast rounds (bench/enqueue/RESULTS.md, 2026-11-22 07:42).
set -euo pipefail

BUILD_DIR=$(cd "${1:-/work/main/build}" && pwd)
ROUNDS=${ROUNDS:-25}
ITERS_POCL=${ITERS_POCL:-200000}
ITERS_FAKE=${ITERS_FAKE:-1000000}
FINISH_EVERY=${FINISH_EVERY:-1000}
PLATFORMS=${PLATFORMS:-"pocl fake fake-null"}
POCL_ICD=${POCL_ICD:-/etc/OpenCL/vendors/pocl.icd}

BENCH=$BUILD_DIR/bin/enqueue_bench
SHIM=$BUILD_DIR/lib/libclprof.so
FAKE_ICD=$BUILD_DIR/fake_icd_vendors/clprof_fake.icd
for f in "$BENCH" "$SHIM" "$FAKE_ICD"; do
  [[ -e $f ]] || { echo "run.sh: missing $f (build enqueue_bench clprof_shim clprof_fake_icd)" >&2; exit 2; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/clprof_enqueue_bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Runs the benchmark once; prints
# "ns launches peak_rss_kb trace_bytes launch_records thread_cpu_ns process_cpu_ns".
run_one() {  # icd mode(bare|shim|events) iterations [trace path, default a file in WORK]
  local icd=$1 mode=$2 iters=$3 out trace=${4:-$WORK/trace.json}
  [[ -f $trace ]] && rm -f "$trace"  # never a device such as /dev/null
  # Only the variables of this benchmark; a CLPROF_* setting from the caller would skew it.
  local -a unset=(-u LD_PRELOAD -u ENQUEUE_BENCH_EVENTS) set=(OCL_ICD_VENDORS="$icd")
  for v in $(compgen -e | grep -E '^(CLPROF_|FAKE_CL_)' || true); do unset+=(-u "$v"); done
  [[ $mode == shim ]] && set+=(LD_PRELOAD="$SHIM" CLPROF_OUTPUT="$trace")
  [[ $mode == events ]] && set+=(ENQUEUE_BENCH_EVENTS=1)
  out=$(env "${unset[@]}" "${set[@]}" "$BENCH" "$iters" "$FINISH_EVERY") ||
    { echo "run.sh: enqueue_bench failed ($mode, $icd)" >&2; exit 1; }
  local ns launches rss bytes=0 records=0 tcpu pcpu
  ns=$(awk '$1=="ns_per_iter"{print $2}' <<<"$out")
  tcpu=$(awk '$1=="thread_cpu_ns_per_iter"{print $2}' <<<"$out")
  pcpu=$(awk '$1=="process_cpu_ns_per_iter"{print $2}' <<<"$out")
  launches=$(awk '$1=="launches"{print $2}' <<<"$out")
  rss=$(awk '$1=="peak_rss_kb"{print $2}' <<<"$out")
  if [[ $mode == shim && $trace != /dev/null ]]; then
    bytes=$(stat -c %s "$trace")
    records=$(grep -c '"type":"launch"' "$trace" || true)
  fi
  echo "$ns $launches $rss $bytes $records $tcpu $pcpu"
}

summarise() {  # platform iters rows-file rss_long (comma-separated KiB of the 4x runs)
  /usr/bin/python3 - "$@" <<'EOF'
import statistics, sys
platform, iters, path, rss_long = sys.argv[1:5]
rows = [l.split() for l in open(path) if l.strip()]
bare = [float(r[1]) for r in rows if r[0] == "bare"]
shim = [float(r[1]) for r in rows if r[0] == "shim"]
bpl = [int(r[4]) / int(r[2]) for r in rows if r[0] == "shim"]
rpl = [int(r[5]) / int(r[2]) for r in rows if r[0] == "shim"]
b, s = statistics.median(bare), statistics.median(shim)
med = lambda mode, col: statistics.median(float(r[col]) for r in rows if r[0] == mode)
print(f"{platform}: {iters} iterations x {len(bare)} rounds (bare runs: {' '.join(f'{x:.0f}' for x in bare)}; shim runs: {' '.join(f'{x:.0f}' for x in shim)} ns/iter)")
print(f"  bare ns/iter (median)        {b:10.1f}")
print(f"  shim ns/iter (median)        {s:10.1f}")
print(f"  added host ns per launch     {s - b:10.1f}")
print(f"  ratio shim/bare              {s / b:10.3f}")
ev = med('events', 1)
print(f"  bare+profiling+event ns/iter {ev:10.1f}  (driver floor for an event per launch: {ev - b:+.1f} ns)")
print(f"  enqueuing-thread CPU ns/iter {med('bare', 6):10.1f} bare {med('shim', 6):10.1f} shim {med('events', 6):10.1f} bare+events")
print(f"  process CPU ns/iter          {med('bare', 7):10.1f} bare {med('shim', 7):10.1f} shim {med('events', 7):10.1f} bare+events")
if any(int(r[4]) for r in rows if r[0] == "shim"):
    print(f"  trace bytes per launch       {statistics.median(bpl):10.1f}")
    print(f"  launch records per launch    {statistics.median(rpl):10.3f}")
else:
    print("  trace bytes per launch              n/a  (trace written to /dev/null)")
rss_long = [int(x) for x in rss_long.split(",")]
print(f"  peak RSS bare, {iters} iters (median)         {med('bare', 3):8.0f} KiB")
print(f"  peak RSS with shim, {iters} iters (median)    {med('shim', 3):8.0f} KiB")
print(f"  peak RSS with shim, 4x{iters} iters (median)  {statistics.median(rss_long):8.0f} KiB"
      f"  (runs: {' '.join(str(x) for x in rss_long)})")
EOF
}

echo "clprof enqueue benchmark  $(date -u +%Y-%m-%dT%H:%M:%SZ)  build: $BUILD_DIR"
echo "host: $(uname -n), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for platform in $PLATFORMS; do
  case $platform in
    pocl) icd=$POCL_ICD; iters=$ITERS_POCL; trace= ;;
    fake) icd=$FAKE_ICD; iters=$ITERS_FAKE; trace= ;;
    fake-null) icd=$FAKE_ICD; iters=$ITERS_FAKE; trace=/dev/null ;;
    *) echo "run.sh: unknown platform $platform" >&2; exit 2 ;;
  esac
  rows=$WORK/$platform.rows
  : >"$rows"
  for ((r = 1; r <= ROUNDS; r++)); do
    echo "bare $(run_one "$icd" bare "$iters")" >>"$rows"
    echo "shim $(run_one "$icd" shim "$iters" $trace)" >>"$rows"
    echo "events $(run_one "$icd" events "$iters")" >>"$rows"
  done
  # Memory must not grow with run length: the rounds' shim runs give the peak at ITERS;
  # three runs 4x as long give it there (peaks vary by a few MB from run to run on PoCL).
  rss_long=
  for ((r = 1; r <= 3; r++)); do
    rss_long+=${rss_long:+,}$(run_one "$icd" shim $((4 * iters)) $trace | awk '{print $3}')
  done
  summarise "$platform" "$iters" "$rows" "$rss_long"
  echo
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
