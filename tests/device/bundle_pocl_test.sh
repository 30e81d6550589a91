#!/usr/bin/env bash
# ctest device.bundle_pocl: tests/device/bundle_pocl_test.sh SOURCE_DIR BUILD_DIR
#
# The device bundle, self-tested on this machine's OpenCL device (PoCL) as a GPU machine
# would run it: scripts/device-bundle.sh packs BUILD_DIR into a temporary folder, the bundle
# is copied elsewhere, and its device-check.sh --quick --device-type cpu runs with env -i,
# PATH=/usr/bin:/bin and, where a mount namespace can be had, SOURCE_DIR and BUILD_DIR
# hidden under empty tmpfs mounts (nothing of the build tree to fall back on). Then the
# outcomes are checked, not just the exit status: summary.md says PASS and every step
# passed, the multi-thread trace holds exactly the launches the program counted, every
# shim benchmark run's trace holds the program's launches, the CLBlast network's trace holds
# 23 launches per iteration (PoCL), the e2e cases passed, the report and timeline exist.
# A second, short run asks for a GPU with a 45 s budget: it must fall back loudly to the CPU,
# fail the devices step, end within its budget and exit non-zero. A third has no OpenCL
# driver at all (/etc/OpenCL/vendors hidden): it must say so and run nothing on a device.
set -uo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tmp=$(mktemp -d /tmp/clprof-device-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
errors=0
bad() { echo "FAIL: $*"; errors=$((errors + 1)); }

echo "== scripts/device-bundle.sh $build $tmp/packed"
bash "$src/scripts/device-bundle.sh" "$build" "$tmp/packed" || { echo "FAIL: the bundle could not be built"; exit 1; }
mkdir -p "$tmp/elsewhere"
cp -a "$tmp/packed" "$tmp/elsewhere/bundle"
rm -rf "$tmp/packed"
b=$tmp/elsewhere/bundle
bytes=$(du -sb "$b" | cut -f1)
((bytes <= 64 * 1024 * 1024)) || bad "the bundle is $bytes bytes, over 64 MiB"
for f in bin/clprof bin/run bin/clinfo bin/enqueue_bench bin/multi_thread bin/clprof_device_e2e \
  lib/libclprof.so lib/libOpenCL.so.1 env.sh device-check.sh MANIFEST.txt; do
  [[ -e $b/$f ]] || bad "the bundle lacks $f"
done
# No glibc and no OpenCL driver inside.
for f in "$b"/lib/libc.so* "$b"/lib/ld-linux* "$b"/lib/libpocl* "$b"/lib/libnvidia*; do
  [[ -e $f ]] && bad "the bundle holds $(basename "$f")"
done

# run_check OUT ARGS...: the bundle's check in a clean environment, with the source and build
# trees (and the folders in $also_hide) hidden under empty tmpfs mounts where a mount
# namespace can be had.
hidden=no
also_hide=()
run_check() {
  local out=$1
  shift
  local cmd=(env -i PATH=/usr/bin:/bin TMPDIR="$tmp" bash "$b/device-check.sh" "$@" "$out")
  # A folder inside one already hidden is gone: skipped.
  # shellcheck disable=SC2016  # expanded by the inner bash
  local hide='while [[ $1 != -- ]]; do if [[ -d $1 ]]; then mount -t tmpfs none "$1" || exit 99; fi; shift; done; shift; exec "$@"'
  local ns=()
  if unshare -m true 2>/dev/null; then
    ns=(unshare -m)
  elif unshare -rm true 2>/dev/null; then
    ns=(unshare -rm)
  fi
  if ((${#ns[@]})) && "${ns[@]}" bash -c "$hide" hide "$src" "$build" "${also_hide[@]}" -- true 2>/dev/null; then
    hidden=yes
    "${ns[@]}" bash -c "$hide" hide "$src" "$build" "${also_hide[@]}" -- "${cmd[@]}"
  else
    hidden=no
    "${cmd[@]}"
  fi
}

echo "== device-check.sh --quick --device-type cpu (env -i)"
start=$(date +%s)
run_check "$tmp/out" --quick --device-type cpu
rc=$?
echo "== exit $rc after $(($(date +%s) - start)) s; source and build trees hidden: $hidden"
o=$tmp/out
echo "---- summary.md"
cat "$o/summary.md" 2>/dev/null || bad "no summary.md"
echo "----"
((rc == 0)) || bad "device-check exited $rc"
grep -q '^Result: \*\*PASS\*\*' "$o/summary.md" || bad "summary.md does not say PASS"
for step in host devices main bench threads e2e; do
  grep -q "^| $step | pass |" "$o/summary.md" || bad "summary.md: step $step did not pass"
done
grep -q 'NOT A GPU' "$o/summary.md" || bad "summary.md does not say loudly that the device is not a GPU"
v() { awk -F'\t' -v s="$1" -v k="$2" '$1 == s && $2 == k {print $3; exit}' "$o/results.tsv"; }
kind=$(v devices device)
[[ $kind == *"(CPU)"* ]] || bad "the chosen device is not PoCL's CPU: $kind"
program=$(v threads program_launches)
expected=$(v threads expected_launches)
summary=$(v threads summary_launches)
rows=$(v threads launch_rows)
echo "multi_thread: program $program, expected $expected, clprof summary $summary, clprof launches $rows"
[[ -n $program && $program == "$expected" && $summary == "$program" && $rows == "$program" ]] ||
  bad "multi_thread launch counts differ"
# The count the check reports against its own reading of the trace file.
main_launches=$(v main launches)
[[ $main_launches == 46 ]] || bad "clblast_network --iterations 2 on PoCL: $main_launches launches, not 2 x 23"
[[ $(v bench "shim runs whose trace holds every launch") == "4 of 4" ]] || bad "bench: not every shim run's trace holds the program's launches"
[[ -n $(v bench "loop ns/launch bare") && -n $(v bench "latency host us shim") ]] || bad "bench: medians missing"
[[ $(v e2e e2e_passed) == "11 of 11" ]] || bad "e2e: $(v e2e e2e_passed) cases passed, not 11 of 11"
for f in main/report.html main/timeline.json clinfo.txt clinfo-l.txt logs/1-host.log logs/6-e2e.log; do
  [[ -s $o/$f ]] || bad "no $f"
done
grep -q 'Portable Computing Language' "$o/clinfo-l.txt" || bad "clinfo -l does not list PoCL"

echo "== device-check.sh --budget 45 (a GPU wanted: none here)"
start=$(date +%s)
run_check "$tmp/out-gpu" --budget 45
rc=$?
took=$(($(date +%s) - start))
echo "== exit $rc after $took s"
((rc != 0)) || bad "asked for a GPU where there is none, the check exited 0"
((took <= 60)) || bad "the check took $took s on a 45 s budget"
grep -q 'NO OPENCL GPU FOUND' "$o-gpu/summary.md" || bad "summary.md does not say that no GPU was found"
grep -q '^| devices | FAIL |' "$o-gpu/summary.md" || bad "the devices step did not fail without a GPU"

# No OpenCL driver at all (the system's vendor folder hidden too, where it can be): the
# devices step says so, the steps after it are not run, the check fails at once.
if [[ $hidden == yes && -d /etc/OpenCL/vendors ]]; then
  echo "== device-check.sh --quick with no OpenCL driver (/etc/OpenCL/vendors hidden)"
  also_hide=(/etc/OpenCL/vendors)
  start=$(date +%s)
  run_check "$tmp/out-none" --quick
  rc=$?
  echo "== exit $rc after $(($(date +%s) - start)) s"
  ((rc != 0)) || bad "with no OpenCL driver the check exited 0"
  grep -q 'no OpenCL device at all' "$o-none/summary.md" || bad "summary.md does not say that there is no OpenCL device"
  grep -q '^| main | FAIL (not run: no OpenCL device) |' "$o-none/summary.md" || bad "with no device the main job was run anyway"
fi

if ((errors)); then
  echo "device.bundle_pocl: $errors failure(s); logs were in $o (removed)"
  exit 1
fi
echo "device.bundle_pocl: OK (bundle $bytes bytes; trees hidden: $hidden)"
