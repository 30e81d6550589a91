#!/usr/bin/env bash
# The shim under the sanitizers: builds build-asan (address + undefined behaviour) and
# build-tsan (threads) and runs the shim's unit tests and its fake-driver integration
# tests in each. Those tests preload the sanitizer's runtime ahead of the instrumented
# libclprof.so, as a user of a sanitizer build of an app would:
#   LD_PRELOAD=$(gcc -print-file-name=libasan.so):build-asan/lib/libclprof.so ./app
# Not part of scripts/test.sh (two more builds: several minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
targets=(clprof_shim clprof_fake_icd shim_test_app shim_trace_test clprof_shim_unit_tests
  shim_dlopen_test)
for kind in asan tsan; do
  dir=build-$kind
  option=-DCLPROF_${kind^^}=ON
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$option" >/dev/null
  cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
  (cd "$dir" && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -R '^shim' -j"$(nproc)")
done
