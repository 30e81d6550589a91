#!/usr/bin/env bash
# The shim on 64-bit Arm: cross-builds libclprof.so, the fake OpenCL driver and the shim's
# tests for aarch64 into build-aarch64 (cmake/aarch64-linux-gnu.cmake; Debian's
# g++-aarch64-linux-gnu, arm64 libraries through multiarch; no analyzer, examples or
# benchmarks), checks that build-aarch64/lib/libclprof.so is an ARM aarch64 library, and
# runs the shim's unit tests and its fake-driver integration tests (ctest -R '^(shim|fake_icd)')
# under user-mode QEMU. Those tests start aarch64 child programs themselves (the test app,
# exec, fork), so binfmt_misc must hand aarch64 binaries to qemu-aarch64; set up here.
# Not part of scripts/test.sh: QEMU makes it slow (1.5 minutes on 2 cores from scratch, 20 s
# again). QEMU runs the Arm code with x86-64's stronger memory ordering: it does not model
# Arm's weaker ordering, so a missing barrier in the shim goes unnoticed here; only Arm
# hardware shows that. QEMU 7.2 lacks execveat, so the fexecve exec case is skipped (with a
# message). QEMU's slowness widens timing windows: it exposed two races that native runs
# rarely hit (both fixed: commits 649406e and c7093ef).
# Must run as root (or with sudo) when something is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs a command as root: directly, or through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    echo "cross-aarch64: need root (or sudo) for: $*" >&2
    exit 1
  fi
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
updated=0
# apt-get install (extra options first) of those of the packages that are missing; one
# apt-get update per run, and only when something is missing.
apt_install() {
  local options=() missing=() p
  while [ "${1:-}" != "--" ]; do options+=("$1"); shift; done
  shift
  for p in "$@"; do installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$updated" -eq 0 ]; then
    as_root apt-get update -qq
    updated=1
  fi
  echo "cross-aarch64: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" \
    "${missing[@]}"
}

# The native build tools and headers (cmake, OpenCL headers, RapidJSON, doctest).
bash scripts/install-deps.sh
apt_install -- g++-aarch64-linux-gnu qemu-user-static binfmt-support file
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  as_root dpkg --add-architecture arm64
  as_root apt-get update -qq
  updated=1
fi
# The target's run-time libraries: ocl-icd's libOpenCL.so.1 (linked by the test programs;
# no libOpenCL.so link, see the top CMakeLists.txt), libstdc++, and ThreadSanitizer's
# runtime for the shim test app built with -fsanitize=thread.
apt_install --no-install-recommends -- ocl-icd-libopencl1:arm64 libstdc++6:arm64 \
  libtsan2:arm64

# binfmt_misc: mounted, and qemu-aarch64 registered and enabled.
# shellcheck source=scripts/qemu_binfmt.sh
source scripts/qemu_binfmt.sh
enable_qemu_aarch64

dir=build-aarch64
jobs=$(nproc)
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DCLPROF_BUILD_ANALYZER=OFF -DCLPROF_BUILD_EXAMPLES=OFF -DCLPROF_BUILD_BENCH=OFF >/dev/null
targets=(clprof_shim clprof_fake_icd fake_icd_test clprof_shim_unit_tests shim_test_app
  shim_trace_test shim_dlopen_test)
cmake --build "$dir" -j"$jobs" --target "${targets[@]}"

description=$(file -L "$dir/lib/libclprof.so")
echo "$description"
case "$description" in
  *"ARM aarch64"*) ;;
  *) echo "cross-aarch64: $dir/lib/libclprof.so is not an aarch64 library" >&2; exit 1 ;;
esac

# Debian's arm64 libraries (multiarch: /lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu)
# serve QEMU as they would an Arm machine: no QEMU_LD_PREFIX. (With
# QEMU_LD_PREFIX=/usr/aarch64-linux-gnu two glibc builds get mixed and fake_icd tests time out.)
unset QEMU_LD_PREFIX
(cd "$dir" && ctest --output-on-failure -R '^(shim|fake_icd)' -j"$jobs")
