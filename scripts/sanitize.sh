#!/usr/bin/env bash
# The sanitizer stages (CI runs them after scripts/test.sh; results in docs/reliability.md):
#   asan  build-asan (-DCLPROF_ASAN=ON: AddressSanitizer + UndefinedBehaviorSanitizer): the
#         whole suite. Any UB report stops the process that made it, so its test fails
#         (third-party reports silenced in tests/sanitizers/ubsan.supp, each explained).
#   tsan  build-tsan (-DCLPROF_TSAN=ON): the shim's tests, for its threads.
# The shim's tests preload the sanitizer's runtime ahead of the instrumented libclprof.so,
# as a user of a sanitizer build of an app would:
#   LD_PRELOAD=$(gcc -print-file-name=libasan.so):build-asan/lib/libclprof.so ./app
# Usage: bash scripts/sanitize.sh [asan] [tsan]   (default: both; several minutes each on
# 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=(asan tsan)
supp="$PWD/tests/sanitizers/ubsan.supp"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$supp"
for kind in "${kinds[@]}"; do
  dir=build-$kind
  case $kind in
    asan)
      # -O0 and line tables only (-g1, enough for symbolised reports): this stage builds the
      # whole tree, and at -O1 code generation was most of each unit's compile; -O0 halves
      # the build and the suite runs no slower (measured: docs/reliability.md).
      cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLPROF_ASAN=ON \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -g1" >/dev/null
      cmake --build "$dir" -j"$(nproc)"
      # Leaks are not checked: apps run under the shim exit with OpenCL objects alive.
      export POCL_CACHE_DIR="$PWD/$dir/pocl-cache"
      mkdir -p "$POCL_CACHE_DIR"
      # analyzer_long_work (label long) checks memory ceilings of the plain build: under ASan
      # it only takes minutes (shadow memory), so it is left to scripts/test.sh.
      (cd "$dir" && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j"$(nproc)" --timeout 900 -LE '^long$')
      ;;
    tsan)
      cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLPROF_TSAN=ON >/dev/null
      cmake --build "$dir" -j"$(nproc)" --target clprof_shim clprof_fake_icd shim_test_app \
        clprof_shim_runtime_tests \
        shim_trace_test clprof_shim_unit_tests shim_dlopen_test
      # shim.blas runs real CLBlast on PoCL (not built here); the scenarios on the fake
      # driver exercise the shim's threads.
      (cd "$dir" && ctest --output-on-failure -R '^shim' -E '^shim[.]blas$' -j"$(nproc)")
      ;;
    *)
      echo "sanitize.sh: unknown stage '$kind' (asan, tsan)" >&2
      exit 2
      ;;
  esac
done
