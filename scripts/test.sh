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
cd ..
# The shim-only configuration (-DCLPROF_BUILD_ANALYZER=OFF, for boards that only record): it
# must configure without the analyzer's packages and still build libclprof.so.
cmake --no-warn-unused-cli -S . -B build-shim-only -DCLPROF_BUILD_ANALYZER=OFF -DCLPROF_BUILD_TESTS=OFF \
  -DCLPROF_BUILD_EXAMPLES=OFF -DCLPROF_BUILD_BENCH=OFF -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_simdjson=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON >/dev/null
cmake --build build-shim-only -j"$(nproc)" --target clprof_shim >/dev/null
test -f build-shim-only/lib/libclprof.so
echo "shim-only build (-DCLPROF_BUILD_ANALYZER=OFF): build-shim-only/lib/libclprof.so"
