#!/usr/bin/env bash
# The shim's stress, ending and fork scenarios, repeated (docs/reliability.md, "Shim endings"):
#   bash scripts/stress-shim.sh [ROUNDS [LAUNCHES_PER_THREAD]]      (defaults: 5, 20000)
# Each round runs the ctest groups shim.stress* (8 threads x LAUNCHES on the fake driver and
# on PoCL, and the ThreadSanitizer build of the app), shim.endings* and shim.exit*. With
# SANITIZERS=1 it then builds the shim with ASan+UBSan and with TSan and runs every shim test
# there too (scripts/sanitize.sh). Exits non-zero at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
launches=${2:-20000}
build=${BUILD_DIR:-build}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target clprof_shim clprof_fake_icd shim_test_app shim_trace_test
for round in $(seq "$rounds"); do
  echo "== round $round of $rounds: $launches launches a thread"
  (cd "$build" && SHIM_TEST_STRESS_LAUNCHES=$launches ctest --output-on-failure \
    -R '^shim\.(stress|endings|exit)([.]|$)')
done
if [ "${SANITIZERS:-0}" = 1 ]; then
  bash scripts/sanitize.sh
fi
