#!/usr/bin/env bash
# Installs clprof's build, test and example dependencies from Debian 12 packages.
# Idempotent: runs apt-get only for what is missing. Must run as root (or with sudo).
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libspdlog-dev rapidjson-dev doctest-dev libcli11-dev libsimdjson-dev
  libclblast-dev clblast-utils clblast-tests clpeak
  python3 python3-pyopencl python3-numpy python3-pandas python3-pytest
  libsqlite3-dev libre2-dev time
  libzstd-dev zstd  # .zst traces (analyzer/readers/reader.cpp); the zstd CLI for tests
  chromium libpng-dev
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer targets (clang's -fsanitize=fuzzer)
  clang-format  # scripts/check-format.sh (ctest style.clang_format)
  python3-dask python3-distributed  # scripts/clprof-dask (docs/scale.md)
  oclgrind  # a second, simulated OpenCL device for device checks
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
