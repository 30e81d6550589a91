#!/usr/bin/env bash
# The shim on an older glibc and toolchain: builds libclprof.so, the fake OpenCL driver and
# the shim's tests with Debian 11's own compiler and libraries (glibc 2.31, where libdl and
# libpthread are still libraries of their own; GCC 10 with its ThreadSanitizer runtime
# libtsan.so.0; CMake 3.18; ocl-icd 2.2.14) in a debootstrap chroot, and runs them there
# (ctest -R '^(shim|fake_icd)': LD_PRELOAD and dlsym interposition, an app that dlopens
# libOpenCL with RTLD_LOCAL, exec, fork, threads, kill -9, a TSan-built app). The build and
# the test suite of the main machine, Debian 12, are scripts/test.sh.
#
# Usage: scripts/debian11.sh              x86-64, in build-debian11/root
#        ARCH=arm64 scripts/debian11.sh   64-bit Arm (what Arm boards with glibc 2.31 run,
#                                         e.g. Ubuntu 20.04), in build-debian11-arm64/root:
#                                         everything in the chroot, compiler included, runs
#                                         under user-mode QEMU (qemu-user-static)
#
# Not part of scripts/test.sh: the first run downloads Debian 11 from MIRROR
# (http://deb.debian.org/debian; ~800 MB on disk, kept for the next runs) and takes about
# 1.5 minutes on 2 cores for x86-64, ~7.5 minutes for arm64 (the compiler under QEMU); later
# runs rebuild only what changed. The source is the files git tracks, as they are in the
# work tree (uncommitted edits included). QEMU does not model Arm's weaker memory ordering,
# and QEMU 7.2 has no execveat (the fexecve exec case is skipped): see cross-aarch64.sh.
# Two bugs that Debian 12 does not show were found here: the TSan-built app failed
# (libtsan.so.0 does not intercept the pthread_cond_clockwait of std::condition_variable;
# fixed in eb9ca5a) and the ASan-built app crashed (a failed dlvsym lookup of the shim's
# inside AddressSanitizer's start-up; fixed in 0b29ec9). Under QEMU (arm64) AddressSanitizer
# does not run, and the ASan case is skipped.
# Debian 11's own OpenCL drivers are not used: on the AMD family-19h CPU of the project's
# machine its PoCL 1.6 (LLVM 11) fails to build any kernel ("unknown target CPU 'generic'",
# without clprof too) and oclgrind is too slow for the examples.
# Must run as root: debootstrap, mount and chroot.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "debian11: must run as root (debootstrap, mount, chroot)" >&2
  exit 1
fi
arch=${ARCH:-amd64}
case $arch in
  amd64) root=$PWD/build-debian11/root ;;
  arm64) root=$PWD/build-debian11-arm64/root ;;
  *)
    echo "debian11: ARCH must be amd64 or arm64, not '$arch'" >&2
    exit 2
    ;;
esac
packages=(g++ make cmake opencl-headers ocl-icd-opencl-dev rapidjson-dev doctest-dev)
# shellcheck source=scripts/chroot_lib.sh
source scripts/chroot_lib.sh

host_tools=(debootstrap)
[ "$arch" = arm64 ] && host_tools+=(qemu-user-static binfmt-support)
mapfile -t missing < <(chroot_missing / "${host_tools[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi
if [ "$arch" = arm64 ]; then
  # shellcheck source=scripts/qemu_binfmt.sh
  source scripts/qemu_binfmt.sh
  enable_qemu_aarch64
fi

chroot_create "$root" bullseye "$arch"
chroot_mount "$root"
mapfile -t missing < <(chroot_missing "$root" "${packages[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  echo "debian11: installing ${missing[*]} in the chroot"
  chroot_run "$root" apt-get update -qq
  chroot_run "$root" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tracked files of the work tree; the chroot's build directory is kept between runs.
mkdir -p "$root/src"
find "$root/src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"

in_root() { chroot_run "$root" "$@"; }
echo "debian11: $(in_root uname -m); $(in_root ldd --version | head -1);" \
  "$(in_root g++ --version | head -1); $(in_root cmake --version | head -1)"
jobs=$(nproc)
in_root cmake -S /src -B /src/build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCLPROF_BUILD_ANALYZER=OFF -DCLPROF_BUILD_EXAMPLES=OFF -DCLPROF_BUILD_BENCH=OFF >/dev/null
in_root cmake --build /src/build -j"$jobs"
in_root sh -c "cd /src/build && ctest --output-on-failure -R '^(shim|fake_icd)' -j$jobs"
