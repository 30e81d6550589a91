#!/usr/bin/env bash
# scripts/check-rooms.py can fail: a made-up component whose rooms a and b include each
# other must fail naming both includes (FILE:LINE); one with b -> a only passes its circle
# check but fails --order b,a (a stands above b... a includes nothing; b includes a, which
# the order puts above b), and passes --order a,b. Expected outcomes derived by hand from
# the three files written below.
set -euo pipefail
checker=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/c/a" "$tmp/c/b"
printf '#pragma once\n#include "b/b.hpp"\n' >"$tmp/c/a/a.hpp"
printf '#pragma once\n#include <vector>\n#include "a/a.hpp"\n' >"$tmp/c/b/b.hpp"
set +e
out=$(python3 "$checker" "$tmp/c" 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "circle: expected exit 1, got $rc: $out"; exit 1; }
grep -q 'circle among .*: a <-> b' <<<"$out" || { echo "circle not named: $out"; exit 1; }
grep -q 'c/a/a.hpp:2: #include "b/b.hpp"' <<<"$out" || { echo "a's include not named: $out"; exit 1; }
grep -q 'c/b/b.hpp:3: #include "a/a.hpp"' <<<"$out" || { echo "b's include not named: $out"; exit 1; }
# No circle once a no longer includes b.
printf '#pragma once\n' >"$tmp/c/a/a.hpp"
python3 "$checker" "$tmp/c" >/dev/null
python3 "$checker" "$tmp/c" --order a,b >/dev/null
set +e
out=$(python3 "$checker" "$tmp/c" --order b,a 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "upward include: expected exit 1, got $rc: $out"; exit 1; }
grep -q 'room b includes a, which stands above it' <<<"$out" || { echo "upward include not named: $out"; exit 1; }
# A room the order leaves out is refused too.
set +e
out=$(python3 "$checker" "$tmp/c" --order a 2>&1); rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q 'rooms the order does not name: b' <<<"$out" || { echo "unnamed room: $rc $out"; exit 1; }
set +e
python3 "$checker" "$tmp/none" >/dev/null 2>&1; rc=$?
set -e
[ "$rc" -eq 2 ] || { echo "missing folder: expected 2, got $rc"; exit 1; }
echo "check-rooms self-test: passed"
