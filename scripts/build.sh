#!/usr/bin/env bash
# Configures and builds clprof into build/ (build/bin/clprof, build/lib/libclprof.so).
# Extra arguments go to the cmake configure step, e.g. -DCLPROF_ASAN=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build build -j"$(nproc)"
