#!/usr/bin/env bash
# Fails when a test says it skips but would count as passed: a doctest MESSAGE (or INFO,
# WARN) that speaks of a skip, instead of CLPROF_SKIP / CLPROF_SKIP_PART
# (tests/support/skip.hpp), which make the binary exit 77 so that ctest reports "Skipped".
# Usage: bash scripts/check-skips.sh [DIR]   (default: tests/ beside this script)
#        bash scripts/check-skips.sh --self-test   (shows the check can fail)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ ${1:-} == --self-test ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  printf 'TEST_CASE("x") {\n  if (!ok) {\n    MESSAGE("no tool: case skipped");\n    return;\n  }\n}\n' \
    > "$tmp/bad_test.cpp"
  if bash "$0" "$tmp" > "$tmp/out" 2>&1; then
    echo "self-test: a MESSAGE-skip was not found" >&2
    exit 1
  fi
  grep -q "bad_test.cpp:3:" "$tmp/out" || { echo "self-test: the place was not named" >&2; cat "$tmp/out" >&2; exit 1; }
  echo "self-test: the check fails on a MESSAGE-skip, naming its file and line"
  exit 0
fi
dir=${1:-$here/../tests}
if found=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.c' \
  '\b(MESSAGE|INFO|WARN)\s*\(.*\b[Ss]kip(ped|ping|s)?\b' "$dir"); then
  echo "$found"
  echo "check-skips: these cases say they skip but would pass: use CLPROF_SKIP(\"why\")" \
    "or CLPROF_SKIP_PART (tests/support/skip.hpp), and give the case a ctest entry of its own" >&2
  exit 1
fi
echo "check-skips: no test says it skips without reporting it (exit 77)"
