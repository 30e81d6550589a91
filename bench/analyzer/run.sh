#!/bin/bash
# The analyzer benchmark in one command: generates a synthetic trace, times clprof on it
# and pandas (seed 001's notebook approach) on a slice of it, and prints MB/s, peak RSS
# and the clprof/pandas ratio.
#
#   bench/analyzer/run.sh [BUILD_DIR] [SIZE_MB]
#
# BUILD_DIR defaults to ./build next to bench/, SIZE_MB to 1024. Environment:
#   PANDAS_MB (default 150)  size of the slice given to pandas: json.load needs several
#                            GB of RAM per GB of trace, so pandas never gets the full size
#   THREADS   (default 0 = all cores) reading threads of clprof_bench_reader
#   KEEP=1    keep the temporary directory with the traces
#   RECORDED=FILE  a recorded trace: every command runs on it too ("recorded")
#   COMMANDS=0     only the reader, kernels, gemm and pandas (issue 3's run), not every command
#   TMPDIR_BENCH   where the traces go (default /tmp); 1 GB of trace needs ~1.1 GB there
# With every command, the floors beside timeline and export: cat of the timeline JSON, and
# clprof_sqlite_floor (build it) storing the export's rows with SQLite alone.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
size_mb=${2:-1024}
pandas_mb=${PANDAS_MB:-150}
threads=${THREADS:-0}
python=/usr/bin/python3
gen=$build/bin/clprof_gen_trace
reader=$build/bin/clprof_bench_reader
clprof=$build/bin/clprof

for tool in "$gen" "$reader"; do
  [[ -x $tool ]] || { echo "missing $tool: build the targets clprof_gen_trace clprof_bench_reader" >&2; exit 2; }
done
if awk "BEGIN {exit !($pandas_mb > $size_mb)}"; then pandas_mb=$size_mb; fi

tmp=$(mktemp -d "${TMPDIR_BENCH:-/tmp}/clprof_bench.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi

echo "== $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== generating $size_mb MB (and the $pandas_mb MB slice: the same seed, so a prefix of the same records) in $tmp"
"$gen" "$tmp/trace.json" "$size_mb" 1
"$gen" "$tmp/slice.json" "$pandas_mb" 1
# Warm the page cache: this measures parsing and analysis, not the disk.
cat "$tmp/trace.json" "$tmp/slice.json" > /dev/null

results=()
# measure NAME FILE CMD...: runs CMD under /usr/bin/time -v, output to $tmp/NAME.out
measure() {
  local name=$1 file=$2
  shift 2
  if ! /usr/bin/time -v -o "$tmp/$name.time" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
    echo "FAILED: $name: $*" >&2
    cat "$tmp/$name.err" >&2
    return 0
  fi
  local bytes wall rss mbs
  bytes=$(stat -c %s "$file")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$tmp/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/$name.time")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$tmp/$name.time")
  mbs=$(awk "BEGIN {printf \"%.1f\", $bytes / 1e6 / ($wall > 0 ? $wall : 0.01)}")
  printf '%-30s %8.1f MB %7.2f s %8s MB/s %7.2f s CPU %7.1f MB/CPU-s %7.1f MB RSS\n' "$name" \
    "$(awk "BEGIN {print $bytes / 1e6}")" "$wall" "$mbs" "$cpu" \
    "$(awk "BEGIN {print $bytes / 1e6 / ($cpu > 0 ? $cpu : 0.01)}")" "$(awk "BEGIN {print $rss / 1024}")"
  results+=("$name=$mbs")
}
mbs_of() {
  local r
  for r in "${results[@]}"; do [[ ${r%%=*} == "$1" ]] && { echo "${r#*=}"; return; }; done
  echo ""
}

# every_command FILE LABEL: each clprof command on FILE, the floor (wc -l, a plain read) first.
# timeline and export write next to the traces and are deleted at once.
every_command() {
  local file=$1 label=$2 c
  measure "read, dd bs=8M ($label)" "$file" dd if="$file" of=/dev/null bs=8M status=none
  measure "wc -l ($label)" "$file" wc -l "$file"
  for c in summary kernels "launches --top 10" layers gemm transfers api ranks advise; do
    # shellcheck disable=SC2086
    measure "clprof $c ($label)" "$file" "$clprof" $c "$file"
  done
  measure "clprof timeline ($label)" "$file" "$clprof" timeline "$file" -o "$tmp/out.timeline.json"
  # The floor of writing the timeline's bytes: cat copies them into a file (NAME.out).
  [[ -f $tmp/out.timeline.json ]] &&
    measure "cat of the timeline JSON ($label)" "$tmp/out.timeline.json" cat "$tmp/out.timeline.json"
  rm -f "$tmp/out.timeline.json" "$tmp/cat of the timeline JSON ($label).out"
  measure "clprof export sqlite ($label)" "$file" "$clprof" export "$file" -o "$tmp/out.db"
  # The SQLite floor: the same rows stored by SQLite alone (sqlite_floor.cpp says how).
  if [[ -x $build/bin/clprof_sqlite_floor && -f $tmp/out.db ]]; then
    measure "sqlite floor of the export ($label)" "$file" "$build/bin/clprof_sqlite_floor" \
      "$tmp/out.db" "$tmp/floor.db" "$(stat -c %s "$file")"
    tail -n 2 "$tmp/sqlite floor of the export ($label).out"
  fi
  rm -f "$tmp/out.db" "$tmp/floor.db"
}

echo "== timings (wall clock; CPU = user + sys; peak RSS; all from /usr/bin/time -v)"
if [[ ${COMMANDS:-1} != 0 && -x $clprof ]]; then
  every_command "$tmp/trace.json" full
  [[ -n ${RECORDED:-} ]] && every_command "$RECORDED" recorded
fi
measure "bench_reader stream (full)" "$tmp/trace.json" "$reader" --threads "$threads" "$tmp/trace.json"
if [[ ${COMMANDS:-1} == 0 && -x $clprof ]]; then
  measure "clprof kernels (full)" "$tmp/trace.json" "$clprof" kernels "$tmp/trace.json"
  measure "clprof gemm (full)" "$tmp/trace.json" "$clprof" gemm "$tmp/trace.json"
  measure "clprof kernels (slice)" "$tmp/slice.json" "$clprof" kernels "$tmp/slice.json"
elif [[ ! -x $clprof ]]; then
  echo "(no $clprof yet: only the reader driver is timed)"
fi
measure "bench_reader stream (slice)" "$tmp/slice.json" "$reader" --threads "$threads" "$tmp/slice.json"
measure "bench_reader --load (slice)" "$tmp/slice.json" "$reader" --load "$tmp/slice.json"
measure "pandas (slice)" "$tmp/slice.json" "$python" "$here/pandas_kernels.py" "$tmp/slice.json"

echo "== checks"
if cmp -s "$tmp/bench_reader stream (slice).out" "$tmp/pandas (slice).out"; then
  echo "per-kernel tables of clprof_bench_reader and pandas on the slice: identical"
else
  echo "per-kernel tables of clprof_bench_reader and pandas DIFFER:"
  diff "$tmp/bench_reader stream (slice).out" "$tmp/pandas (slice).out" | head -20 || true
fi

echo "== ratios (MB/s over MB/s)"
pandas=$(mbs_of "pandas (slice)")
for name in "clprof kernels (full)" "clprof gemm (full)" "bench_reader stream (full)" "clprof kernels (slice)" "bench_reader stream (slice)"; do
  v=$(mbs_of "$name")
  [[ -n $v && -n $pandas ]] && awk "BEGIN {printf \"%-30s / pandas (slice): %6.1fx\n\", \"$name\", $v / $pandas}"
done
exit 0
