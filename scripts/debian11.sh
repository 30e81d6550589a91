#!/usr/bin/env bash
# The shim on an older glibc and toolchain: builds libclprof.so, the fake OpenCL driver and
# the shim's tests with Debian 11's own compiler and libraries (glibc 2.31, where libdl and
# libpthread are still libraries of their own; GCC 10 with its ThreadSanitizer runtime
# libtsan.so.0; CMake 3.18; ocl-icd 2.2.14) in a debootstrap chroot, build-debian11/root,
# and runs them there (ctest -R '^(shim|fake_icd)': LD_PRELOAD and dlsym interposition, an
# app that dlopens libOpenCL with RTLD_LOCAL, exec, fork, threads, kill -9, a TSan-built
# app). The build and the test suite of the main machine, Debian 12, are scripts/test.sh.
#
# Not part of scripts/test.sh: the first run downloads Debian 11 from MIRROR
# (http://deb.debian.org/debian; ~700 MB on disk in build-debian11/, kept for the next runs)
# and takes about 1.5 minutes on 2 cores; later runs rebuild only what changed. The source
# is the files git tracks, as they are in the work tree (uncommitted edits included).
# This is how the shim's own waits were found to need pthread_cond_timedwait (commit
# eb9ca5a): with std::condition_variable the TSan-built app failed here (libtsan.so.0 does
# not intercept pthread_cond_clockwait), while it passed on Debian 12.
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
mirror=${MIRROR:-http://deb.debian.org/debian}
root=$PWD/build-debian11/root
packages=(g++ make cmake opencl-headers ocl-icd-opencl-dev rapidjson-dev doctest-dev)

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
fi
if [ ! -e "$root/etc/debian_version" ]; then
  echo "debian11: debootstrap bullseye into $root"
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --variant=minbase bullseye "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    tail -20 "$root.debootstrap.log" >&2
    exit 1
  }
fi

# /proc and /dev inside the chroot while this runs, unmounted on every exit. The /dev bind
# is made a slave first, so that unmounting it never reaches the machine's own /dev.
mounted=()
unmount_all() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -lR "${mounted[i]}"
  done
}
trap unmount_all EXIT
if ! mountpoint -q "$root/proc"; then
  mount -t proc proc "$root/proc"
  mounted+=("$root/proc")
fi
if ! mountpoint -q "$root/dev"; then
  mount --rbind /dev "$root/dev"
  mount --make-rslave "$root/dev"
  mounted+=("$root/dev")
fi

# Runs a command in the chroot with a clean environment.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

missing=()
for p in "${packages[@]}"; do
  in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "debian11: installing ${missing[*]} in the chroot"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  in_root apt-get update -qq
  in_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The tracked files of the work tree; the chroot's build directory is kept between runs.
mkdir -p "$root/src"
find "$root/src" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"

echo "debian11: $(in_root ldd --version | head -1); $(in_root g++ --version | head -1);" \
  "$(in_root cmake --version | head -1)"
jobs=$(nproc)
in_root cmake -S /src -B /src/build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCLPROF_BUILD_ANALYZER=OFF -DCLPROF_BUILD_EXAMPLES=OFF -DCLPROF_BUILD_BENCH=OFF >/dev/null
in_root cmake --build /src/build -j"$jobs"
in_root sh -c "cd /src/build && ctest --output-on-failure -R '^(shim|fake_icd)' -j$jobs"
