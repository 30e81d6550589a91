#!/usr/bin/env bash
# Fuzzes the analyzer: builds every libFuzzer target of tests/fuzz/targets.txt with Debian's
# clang into build-fuzz/ (-DCLPROF_FUZZ=ON: ASan + UBSan, any UB fatal) and runs each for
# SECONDS (default 60, what CI runs; a longer campaign: bash scripts/fuzz.sh 3600).
#
# Corpora live in build-fuzz/corpus/<target> (kept between runs), seeded from the test data
# named in targets.txt and from tests/fuzz/regressions/<target>. A finding (crash, sanitizer
# report, leak, timeout of 10 s, more than 2 GB) is written to build-fuzz/findings/<target>/
# and makes the script fail: fix the bug, then keep the input in
# tests/fuzz/regressions/<target>/, where ctest fuzz_regressions_<target> replays it in the
# plain build. One line per target (executions, corpus, findings) goes to stdout and to
# build-fuzz/summary.txt. Targets run side by side, one per core.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/install-deps.sh
cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DCLPROF_FUZZ=ON -DCLPROF_BUILD_TESTS=OFF \
  -DCLPROF_BUILD_EXAMPLES=OFF -DCLPROF_BUILD_BENCH=OFF >/dev/null
mapfile -t lines < <(grep -E '^[a-z]' tests/fuzz/targets.txt)
targets=()
for line in "${lines[@]}"; do targets+=("${line%% *}"); done
mkdir -p build-fuzz/logs
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}" > build-fuzz/logs/build.log 2>&1 ||
  { tail -40 build-fuzz/logs/build.log; exit 1; }

# Any UB report ends the run (halt_on_error), except the third-party ones suppressed there.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$PWD/tests/sanitizers/ubsan.supp"
: > build-fuzz/summary.txt
# One target per core at a time: each libFuzzer run is single-threaded, so on 2 cores two
# targets fuzz side by side, each for its full SECONDS (CI's stage takes half the time).
fuzz_one() {  # TARGET SEEDS...: runs one target, prints its line; status 1 on a finding
  local target=$1
  shift
  local corpus=build-fuzz/corpus/$target findings=build-fuzz/findings/$target
  rm -rf "$findings"  # reported by the run that found them
  mkdir -p "$corpus" "$findings"
  local dirs=("$corpus") s
  for s in "$@" "tests/fuzz/regressions/$target"; do [ -d "$s" ] && dirs+=("$s"); done
  local log=build-fuzz/logs/$target.log rc=0
  build-fuzz/bin/fuzz_"$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$findings/" "${dirs[@]}" \
    > "$log" 2>&1 || rc=$?
  local runs found
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(find "$findings" -type f | wc -l)
  echo "$target: ${runs:-?} executions in ${seconds} s, corpus $(find "$corpus" -type f | wc -l) inputs, findings $found" |
    tee -a build-fuzz/summary.txt
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "  finding(s) in $findings (log: $log):" >&2
    grep -m5 -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" >&2 || true
    return 1
  fi
}
status=0
jobs_max=$(nproc)
running=0
for line in "${lines[@]}"; do
  read -r target seeds <<< "$line"
  # shellcheck disable=SC2086  # seeds: a space-separated list of folders
  fuzz_one "$target" $seeds &
  running=$((running + 1))
  if [ "$running" -ge "$jobs_max" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
