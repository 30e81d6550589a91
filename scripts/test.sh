#!/usr/bin/env bash
# The whole test suite: install dependencies, build everything (shim, CLI, fake OpenCL
# driver, examples, tests) and run ctest on both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
# PoCL caches compiled kernels; keep that cache inside the build tree.
export POCL_CACHE_DIR="$PWD/build/pocl-cache"
mkdir -p "$POCL_CACHE_DIR"
cd build
ctest --output-on-failure -j"$(nproc)" --timeout 600
