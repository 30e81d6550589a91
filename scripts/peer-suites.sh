#!/usr/bin/env bash
# Peers' own test suites under libclprof.so (issue 18; docs/reliability.md, "Shim").
#
# Each suite runs bare and then under the shim in each mode (LD_PRELOAD, OPENCL_LAYERS):
#   clinfo    its whole output must be byte for byte the bare run's (but for the two
#             numbers PoCL derives from the memory free at the time)
#   clblast   CLBlast's correctness tests (Debian clblast-tests, clblast_test_*): the same
#             passed / skipped / failed counts as bare
#   pyopencl  pyopencl's own pytest suite, from its source at the release of Debian's
#             python3-pyopencl (not in Debian's binary package; see --pyopencl-src): the
#             same passed / failed / skipped counts as bare
#   clpeak    Debian's clpeak (--quick: its kernel-latency test, 20,002 launches each
#             followed by clFinish): the same test and unit lines as bare, numbers masked
#             (they are its measurements)
# and, under the shim, the traces must be complete (an end record with nothing dropped or
# incomplete) and hold every kernel launch PoCL itself counted (POCL_DEBUG=events logs one
# "Command ndrange_kernel" event per launch, in every run, bare too), and `clprof advise`
# must read them (exit 0, a JSON array of findings): the rules that fired are printed on
# the run's line, to be read (docs/advice.md, "On real traces", says why each is right).
#
#   bash scripts/peer-suites.sh            # whole suites (about an hour on a 2-core machine)
#   bash scripts/peer-suites.sh --quick    # the selection ctest runs (peers.clinfo, .clblast, .pyopencl)
#
# Options:
#   --quick              a short selection: clinfo, clblast_test_{xaxpy,xdot,xamax}, and
#                        pyopencl's test_enqueue_copy.py and 5 tests of test_clmath.py
#   --build DIR          the build tree (default: build), for lib/libclprof.so
#   --shim FILE          libclprof.so (default: DIR/lib/libclprof.so)
#   --preload-first LIB  a sanitizer build of the shim: its runtime (libasan.so, libtsan.so),
#                        preloaded ahead of the shim in every mode (it must come first)
#   --work DIR           where outputs and traces go (default: BUILD/peer-suites)
#   --modes "M ..."      preload, layer, both (default: "preload layer")
#   --suites "S ..."     clinfo, clblast, pyopencl, clpeak (default: all four)
#   --clblast "T ..."    only these CLBlast programs (xgemm, xgemv, ...; to resume a
#                        whole run). Default: all clblast_test_x* (--quick: the three above)
#   --pyopencl "F ..."   only these files of pyopencl's test/ (test_wrapper.py, ...).
#                        Default: the whole directory (--quick: the selection above)
#   --pyopencl-src DIR   pyopencl's source tree (its test/ directory is run). Debian's
#                        python3-pyopencl installs no tests. Default:
#                        $CLPROF_PEERS_DIR/pyopencl-<python3-pyopencl's version>, if
#                        there (CLPROF_PEERS_DIR: /work/peers unless set). Without it
#                        the first line is "skip pyopencl: ..." and the suite is not run.
#                        One way to get it: the `fetch` of github:inducer/pyopencl, then
#                        git archive --prefix=pyopencl-2022.3.1/ v2022.3.1 test | tar -x -C /work/peers
#                        (nothing of it is committed). pytest: apt-get install python3-pytest.
# Output: one line per check ("ok ..." or "FAIL ..."), then "N passed, N failed". Exit 1 if
# any check failed, 2 on bad usage. Needs PoCL as the OpenCL platform for the launch counts.
set -uo pipefail

quick=0
build=build
shim=""
preload_first=""
work=""
modes="preload layer"
suites="clinfo clblast pyopencl clpeak"
pyopencl_src=""
clblast_tests=""
pyopencl_tests=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --build) build="$2"; shift ;;
    --shim) shim="$2"; shift ;;
    --preload-first) preload_first="$2"; shift ;;
    --work) work="$2"; shift ;;
    --modes) modes="$2"; shift ;;
    --suites) suites="$2"; shift ;;
    --pyopencl-src) pyopencl_src="$2"; shift ;;
    --clblast) clblast_tests="$2"; shift ;;
    --pyopencl) pyopencl_tests="$2"; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "peer-suites: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$shim" ] || shim="$build/lib/libclprof.so"
[ -n "$work" ] || work="$build/peer-suites"
shim=$(realpath "$shim" 2>/dev/null || echo "$shim")
clprof="$build/bin/clprof"
if [ ! -f "$shim" ]; then
  echo "peer-suites: no shim at '$shim' (build it, or give --build/--shim)" >&2
  exit 2
fi
for m in $modes; do
  case "$m" in preload|layer|both) ;; *) echo "peer-suites: unknown mode '$m' (preload, layer, both)" >&2; exit 2 ;; esac
done
for s in $suites; do
  case "$s" in clinfo|clblast|pyopencl|clpeak) ;; *) echo "peer-suites: unknown suite '$s' (clinfo, clblast, pyopencl, clpeak)" >&2; exit 2 ;; esac
done
mkdir -p "$work"
work=$(realpath "$work")
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$(realpath "$build")/pocl-cache}"
mkdir -p "$POCL_CACHE_DIR"
run_timeout=$([ $quick = 1 ] && echo 600 || echo 7200)

passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }

# Every variable that would change what is being compared is set per run, not inherited.
clean_env=(env -u LD_PRELOAD -u OPENCL_LAYERS -u CLPROF_OUTPUT -u CLPROF_ROOT_PID
  -u CLPROF_DISABLE -u CLPROF_OPENCL_LIBRARY -u POCL_DEBUG)

# run TAG MODE CMD...: runs CMD in $work/TAG/ (bare when MODE is "bare"), stdout to out.txt,
# stderr to err.txt (PoCL's event log included), traces to trace-<pid>.json. Sets $rc.
run() {
  local tag="$1" mode="$2"
  shift 2
  local dir="$work/$tag"
  rm -rf "$dir"
  mkdir -p "$dir"
  local vars=(POCL_DEBUG=events)
  local first="${preload_first:+$preload_first:}"
  case "$mode" in
    preload) vars+=("LD_PRELOAD=$first$shim" "CLPROF_OUTPUT=$dir/trace-%p.json") ;;
    layer)
      vars+=("OPENCL_LAYERS=$shim" "CLPROF_OUTPUT=$dir/trace-%p.json")
      [ -n "$preload_first" ] && vars+=("LD_PRELOAD=$preload_first")
      ;;
    both) vars+=("LD_PRELOAD=$first$shim" "OPENCL_LAYERS=$shim" "CLPROF_OUTPUT=$dir/trace-%p.json") ;;
  esac
  (cd "$dir" && "${clean_env[@]}" "${vars[@]}" timeout "$run_timeout" "$@" >out.txt 2>err.txt)
  rc=$?
}

# The launches PoCL logged in run TAG.
pocl_launches() {
  sed 's/\x1b\[[0-9;]*m//g' "$work/$1/err.txt" | grep -c 'Command ndrange_kernel'
}

# check_traces TAG: every trace of run TAG is complete and the launches in them are PoCL's.
# Sets $trace_note; returns 1 (with the reason in $trace_note) when not.
check_traces() {
  local dir="$work/$1" n=0 launches=0 f
  for f in "$dir"/trace-*.json; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    launches=$((launches + $(grep -c '^{"type":"launch"' "$f")))
    local last
    last=$(tail -n 1 "$f")
    case "$last" in
      '{"type":"end"'*'"incomplete":0,"dropped":0'*) ;;
      *) trace_note="$(basename "$f") is not complete: ${last:0:160}"; return 1 ;;
    esac
  done
  local pocl
  pocl=$(pocl_launches "$1")
  trace_note="$launches launches in $n trace(s), PoCL counted $pocl"
  [ "$launches" = "$pocl" ]
}

# check_advise TAG: `clprof advise --format json` over the traces of run TAG exits 0 with a
# JSON array. Sets $advise_note (the rules fired, "rule/severity", or why it failed);
# returns 1 when advise failed.
check_advise() {
  local dir="$work/$1" out rc=0
  local traces=("$dir"/trace-*.json)
  [ -e "${traces[0]}" ] || { advise_note="advise: no trace"; return 0; }
  out=$("$clprof" advise --format json "${traces[@]}" 2>"$dir/advise-err.txt") || rc=$?
  printf '%s\n' "$out" >"$dir/advise.json"
  if [ "$rc" -ne 0 ] || [ "${out:0:1}" != "[" ]; then
    advise_note="clprof advise exited $rc: $(head -c 200 "$dir/advise-err.txt")"
    return 1
  fi
  local fired
  fired=$(printf '%s\n' "$out" | tr -d '\n' | grep -oE '"rule": *"[a-z-]+", *"severity": *"[a-z]+"' |
    sed -E 's/"rule": *"([a-z-]+)", *"severity": *"([a-z]+)"/\1\/\2/' | tr '\n' ' ')
  advise_note="advise: ${fired:-no finding}"
}

# under_shim SUITE NAME RESULT_FN CMD...: the bare run and one run per mode; RESULT_FN TAG
# prints the run's result summary, which must equal the bare run's.
under_shim() {
  local suite="$1" name="$2" result_fn="$3"
  shift 3
  run "$suite/$name/bare" bare "$@"
  local bare_rc=$rc bare_result
  bare_result=$($result_fn "$suite/$name/bare")
  for mode in $modes; do
    local tag="$suite/$name/$mode" result
    run "$tag" "$mode" "$@"
    result=$($result_fn "$tag")
    local what="$suite $name ($mode): $result"
    if [ "$rc" != "$bare_rc" ]; then
      fail "$what: exit $rc, bare $bare_rc"
    elif [ "$result" != "$bare_result" ]; then
      fail "$what: bare gave $bare_result"
    elif ! check_traces "$tag"; then
      fail "$what: $trace_note"
    elif ! check_advise "$tag"; then
      fail "$what: $advise_note"
    else
      ok "$what, as bare; $trace_note; $advise_note"
    fi
  done
}

# ---- clinfo: the whole output ------------------------------------------------------------
# PoCL sizes its device's global memory (and so its largest allocation) from the memory
# free at the time: those two numbers change from run to run, bare or not, and are
# compared as "N". Everything else, byte for byte.
clinfo_result() {
  local masked
  masked=$(sed -E '/^ *(Global memory size|Max memory allocation) /s/[0-9][0-9.]*/N/g' \
    "$work/$1/out.txt")
  echo "$(wc -l <"$work/$1/out.txt") lines, sha256 $(echo "$masked" | sha256sum | cut -c1-12)"
}

# ---- CLBlast: the summaries each routine prints --------------------------------------------
clblast_result() {
  sed 's/\x1b\[[0-9;]*m//g' "$work/$1/out.txt" | awk '
    /test\(s\) passed/ { p += $1 } /test\(s\) skipped/ { s += $1 } /test\(s\) failed/ { f += $1 }
    END { printf "%d passed / %d skipped / %d failed", p, s, f }'
}

# ---- pyopencl: pytest's closing line ---------------------------------------------------
pytest_result() {
  local line
  line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error)' "$work/$1/out.txt" | tail -n 1)
  echo "$line" | sed -E 's/^=+ //; s/ in [0-9.]+s.*$//; s/, [0-9]+ warnings?//'
}

# ---- clpeak: its test and unit lines, numbers masked -------------------------------------
clpeak_result() {
  local masked
  masked=$(sed -E 's/[0-9]+([.][0-9]+)?/N/g' "$work/$1/out.txt")
  echo "$(wc -l <"$work/$1/out.txt") lines, sha256 $(echo "$masked" | sha256sum | cut -c1-12)"
}

if [[ " $suites " == *" clinfo "* ]]; then
  if command -v clinfo >/dev/null; then
    under_shim clinfo clinfo clinfo_result clinfo
  else
    fail "clinfo: not installed (apt-get install clinfo)"
  fi
fi

if [[ " $suites " == *" clblast "* ]]; then
  if [ -n "$clblast_tests" ]; then
    read -r -a tests <<<"$clblast_tests"
  elif [ $quick = 1 ]; then
    tests=(xaxpy xdot xamax)
  else
    mapfile -t tests < <(cd /usr/bin && ls clblast_test_x* 2>/dev/null | sed 's/^clblast_test_//' | sort)
  fi
  if [ ${#tests[@]} -eq 0 ] || ! command -v clblast_test_xaxpy >/dev/null; then
    fail "clblast: no clblast_test_* programs (apt-get install clblast-tests)"
  fi
  for t in "${tests[@]}"; do
    if ! command -v "clblast_test_$t" >/dev/null; then
      fail "clblast $t: no program clblast_test_$t"
      continue
    fi
    under_shim clblast "$t" clblast_result "clblast_test_$t"
  done
fi

if [[ " $suites " == *" pyopencl "* ]]; then
  if [ -z "$pyopencl_src" ]; then
    version=$(dpkg-query -W -f='${Version}' python3-pyopencl 2>/dev/null | sed 's/-[^-]*$//')
    peers_dir=${CLPROF_PEERS_DIR:-/work/peers}
    [ -d "$peers_dir/pyopencl-$version/test" ] && pyopencl_src="$peers_dir/pyopencl-$version"
  fi
  if [ -z "$pyopencl_src" ]; then
    echo "skip pyopencl: no source tree (--pyopencl-src DIR; not packaged by Debian)"
  elif ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
    fail "pyopencl: no pytest for /usr/bin/python3 (apt-get install python3-pytest)"
  else
    test_dir=$(realpath "$pyopencl_src")/test
    selection=("$test_dir")
    # The quick selection: copies, and kernels of pyopencl's own math library (a few
    # seconds once PoCL's cache holds them; the first, bare run compiles them).
    [ $quick = 1 ] && selection=("$test_dir/test_enqueue_copy.py" "$test_dir/test_clmath.py"
      -k "enqueue_copy or atan2 or fmod or ldexp or modf or frexp")
    if [ -n "$pyopencl_tests" ]; then
      read -r -a selection <<<"$pyopencl_tests"
      selection=("${selection[@]/#/$test_dir/}")
    fi
    # -s: PoCL's event log must reach err.txt (pytest would capture it per test).
    under_shim pyopencl tests pytest_result /usr/bin/python3 -m pytest -q -s -p no:cacheprovider \
      --rootdir "$test_dir" "${selection[@]}"
  fi
fi

if [[ " $suites " == *" clpeak "* ]]; then
  if command -v clpeak >/dev/null; then
    if [ $quick = 1 ]; then
      under_shim clpeak kernel-latency clpeak_result clpeak --kernel-latency
    else
      under_shim clpeak all clpeak_result clpeak
    fi
  else
    fail "clpeak: not installed (apt-get install clpeak)"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
