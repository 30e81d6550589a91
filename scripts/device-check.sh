#!/usr/bin/env bash
# device-check.sh [--device-type gpu|cpu|any] [--quick] [--budget SECONDS] OUT_DIR
#
# Runs from a device bundle (scripts/device-bundle.sh copies it there; docs/devices.md):
# profiles with clprof on whatever OpenCL GPU the machine has, or says loudly that it could
# only use another device. Steps, each with its own log and time limit:
#
#   host      the machine: OS, kernel, glibc (against the bundle's need), CPUs, memory,
#             nvidia-smi when present
#   devices   the OpenCL drivers: the system's .icd files, and NVIDIA's libnvidia-opencl.so.1
#             wherever it lies (ldconfig, the usual library folders), written into a private
#             OCL_ICD_VENDORS folder; every driver probed with the bundled clinfo; one device
#             chosen (--device-type: gpu, the default; cpu; any). No GPU: the other steps run
#             on what there is, and this step fails.
#   main      the main job: the CLBlast network under `clprof record`, its summary, kernel,
#             layer and GEMM tables, HTML report and timeline
#   bench     enqueue_bench's loop and --latency modes, bare and under the shim, in
#             interleaved rounds; medians; every shim run's trace holds the program's launches
#   threads   multi_thread under `clprof record`: the trace's launch count (summary and
#             launches) against the program's own count
#   e2e       the e2e suite's cases that run on any OpenCL device (clprof_device_e2e)
#
# Everything goes to OUT_DIR: logs/NN-STEP.log, one folder per step, summary.md (each figure
# with the command that produced it, pass/fail per step) and results.tsv (the same figures,
# tab-separated: step, key, value). Ends by itself within the budget (default 450 s; every
# command has its own timeout), exit 0 when every step passed, 1 otherwise, 2 on bad usage.
# --quick: fewer rounds and smaller counts (the self-test, tests/device).
# The steps and their helpers are called indirectly ("step_$STEP"), in a child process.
# shellcheck disable=SC2317
set -uo pipefail

B=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
STEPS=(host devices main bench threads e2e)

usage() {
  echo "usage: $0 [--device-type gpu|cpu|any] [--quick] [--budget SECONDS] OUT_DIR" >&2
  exit 2
}

# ---- helpers shared by the driver and the steps ---------------------------------------
now() { date +%s; }
# A timeout no later than the step's deadline (nested timeouts each get their own process
# group; capping them keeps the whole tree inside the step's limit).
cap() {
  local t=$1 left=$((STEP_DEADLINE - $(now)))
  ((left < t)) && t=$left
  ((t < 1)) && t=1
  echo "$t"
}
# How a command is shown in summary.md: $B the bundle, $O the output folder.
show() {
  local s="$*"
  s=${s//"$O"/\$O}
  s=${s//"$B"/\$B}
  s=${s//|/\\|}
  printf '%s' "$s"
}
# fig KEY VALUE DESCRIPTION COMMAND: one figure of the current step.
fig() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(show "$4")" >>"$O/results/$STEP.tsv"
  printf '  %-28s %s\n' "$1" "$2"
}
fail() {
  echo "FAIL: $*"
  echo "$*" >>"$O/results/$STEP.failed"
}
note() { echo "$*" >>"$O/results/$STEP.notes"; echo "note: $*"; }
# run TAG SECONDS CMD...: stdout to $O/$STEP/TAG.out, stderr to TAG.err, both (and the
# command) into the step's log through stderr, so that run's own stdout stays empty;
# returns the command's exit status (124/137: timed out).
run() {
  local tag=$1 t rc
  t=$(cap "$2")
  shift 2
  mkdir -p "$O/$STEP"
  {
    echo "\$ $(show "$@")   [timeout ${t}s]"
    timeout -k 5 "$t" "$@" >"$O/$STEP/$tag.out" 2>"$O/$STEP/$tag.err" </dev/null
    rc=$?
    cat "$O/$STEP/$tag.out"
    if [[ -s $O/$STEP/$tag.err ]]; then
      echo "--- stderr:"
      cat "$O/$STEP/$tag.err"
    fi
    echo "--- exit $rc$( ((rc == 124 || rc == 137)) && echo " (timed out after ${t}s)")"
  } >&2
  return "$rc"
}
# key VALUE FILE: the value of a "key value" line (enqueue_bench's output).
key() { awk -v k="$1" '$1 == k {print $2; exit}' "$2"; }
# jnum KEY FILE: the first "KEY": number in a JSON file (clprof summary --format json puts
# the run's own figures before its devices').
jnum() { grep -o "\"$1\": *[-0-9.eE+]*" "$2" | head -1 | sed 's/.*: *//'; }
jstr() { grep -o "\"$1\": *\"[^\"]*\"" "$2" | head -1 | sed 's/.*: *"//; s/"$//'; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# The launch count of a clprof trace, by `clprof summary`.
trace_launches() {
  local tag=$1 trace=$2
  run "$tag" 60 "$B/bin/clprof" summary --format json "$trace" >/dev/null || return 1
  jnum launches "$O/$STEP/$tag.out"
}

# ---- the steps ---------------------------------------------------------------------------
step_host() {
  fig date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "UTC time of the check" "date -u"
  fig host "$(uname -srm)" "kernel" "uname -srm"
  local os="unknown"
  # shellcheck source=/dev/null
  [[ -r /etc/os-release ]] && os=$(. /etc/os-release && echo "${PRETTY_NAME:-$NAME}")
  fig os "$os" "distribution" "cat /etc/os-release"
  fig cpus "$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)" "online CPUs" "nproc"
  fig memory_mib "$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)" "memory" "grep MemTotal /proc/meminfo"
  fig bundle "$(sed -n 's/^source: *//p' "$B/MANIFEST.txt")" "the bundle's source commit" "cat \$B/MANIFEST.txt"
  local have need
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  [[ -n $have ]] || have=$(ldd --version 2>/dev/null | head -1 | grep -o '[0-9][0-9.]*$')
  need=$(cat "$B/GLIBC_NEEDED" 2>/dev/null || echo unknown)
  fig glibc "${have:-unknown} (bundle needs >= $need)" "the machine's glibc" "getconf GNU_LIBC_VERSION"
  if [[ -n $have && $need != unknown ]] &&
    [[ $(printf '%s\n%s\n' "$need" "$have" | sort -t. -k1,1n -k2,2n | head -1) != "$need" ]]; then
    fail "glibc $have is older than the $need the bundle's binaries need: they cannot run here"
  fi
  if command -v nvidia-smi >/dev/null; then
    run nvidia-smi 30 nvidia-smi && cp "$O/host/nvidia-smi.out" "$O/nvidia-smi.txt"
    if run nvidia-smi-query 30 nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader; then
      fig nvidia_gpu "$(head -1 "$O/host/nvidia-smi-query.out")" "nvidia-smi: name, driver, memory, compute capability" \
        "nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader"
    fi
    run nvidia-smi-q 30 nvidia-smi -q >/dev/null
  else
    fig nvidia_smi "not found" "nvidia-smi on PATH" "command -v nvidia-smi"
  fi
  local nodes
  nodes=$(for n in /dev/nvidia*; do [[ -e $n ]] && printf '%s ' "$n"; done)
  fig nvidia_dev_nodes "${nodes:-none}" "NVIDIA device nodes" "ls /dev/nvidia*"
}

# Where libnvidia-opencl.so.1 may lie: the linker cache, the caller's library path, the
# folders of /etc/ld.so.conf.d, the usual driver folders (distribution, container toolkit,
# CUDA compat).
nvidia_candidates() {
  local d f
  for c in /sbin/ldconfig /usr/sbin/ldconfig ldconfig; do
    if command -v "$c" >/dev/null; then
      "$c" -p 2>/dev/null | awk '/libnvidia-opencl\.so/ {print $NF}'
      break
    fi
  done
  {
    tr ':' '\n' <<<"${CALLER_LD_LIBRARY_PATH:-}"
    cat /etc/ld.so.conf.d/*.conf 2>/dev/null | grep '^/'
    printf '%s\n' /usr/lib64 /usr/lib /usr/lib/x86_64-linux-gnu /lib64 /lib/x86_64-linux-gnu \
      /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/nvidia /usr/lib64/nvidia \
      /usr/lib/x86_64-linux-gnu/nvidia/current /usr/local/cuda/lib64 /usr/local/cuda/compat \
      /usr/local/cuda/compat/lib /run/nvidia/driver/usr/lib64 \
      /run/nvidia/driver/usr/lib/x86_64-linux-gnu /opt/nvidia/lib64 /usr/lib/wsl/lib
  } | while read -r d; do
    [[ -n $d && -d $d ]] || continue
    for f in "$d"/libnvidia-opencl.so.1 "$d"/libnvidia-opencl.so.[0-9]*; do
      [[ -e $f ]] && echo "$f"
    done
  done
}

# probe ICD: the bundled clinfo with that driver alone; prints "TYPE<TAB>DEVICE<TAB>PLATFORM"
# of the platform's first device (the one the examples use), nothing when it has none.
probe() {
  local icd=$1 tag=$2
  OCL_ICD_VENDORS=$icd run "probe-$tag" 60 "$B/bin/clinfo" --raw >/dev/null
  # clinfo --raw: "[TAG/0]  CL_DEVICE_NAME  value" (device 0), "[TAG/*]  CL_PLATFORM_NAME  value".
  awk '
    function value(line, name) {sub("^.*" name " +", "", line); return line}
    /\] +CL_PLATFORM_NAME / && p == "" {p = value($0, "CL_PLATFORM_NAME")}
    /\/0\] +CL_DEVICE_NAME / && n == "" {n = value($0, "CL_DEVICE_NAME")}
    /\/0\] +CL_DEVICE_TYPE / && t == "" {t = value($0, "CL_DEVICE_TYPE"); gsub(/CL_DEVICE_TYPE_/, "", t)}
    END {if (n != "") printf "%s\t%s\t%s\n", t, n, p}' "$O/devices/probe-$tag.out"
}

step_devices() {
  local all=$O/icd/all chosen=$O/icd/chosen f n=0 found=() lib
  rm -rf "$O/icd"
  mkdir -p "$all" "$chosen"
  # 1. The system's drivers: the caller's OCL_ICD_VENDORS (folder or file), else the usual
  #    vendor folders.
  local sources=()
  if [[ -n ${CALLER_OCL_ICD_VENDORS:-} ]]; then
    sources+=("$CALLER_OCL_ICD_VENDORS")
  fi
  sources+=(/etc/OpenCL/vendors /usr/local/etc/OpenCL/vendors /usr/share/OpenCL/vendors
    /usr/local/nvidia/etc/OpenCL/vendors /usr/local/nvidia/share/OpenCL/vendors)
  for s in "${sources[@]}"; do
    if [[ -f $s ]]; then set -- "$s"; else set -- "$s"/*.icd; fi
    for f in "$@"; do
      [[ -f $f ]] || continue
      echo "system ICD $f: $(head -1 "$f")"
      # A vendor's .icd naming NVIDIA's library by name only: replaced by ours (absolute).
      grep -q 'libnvidia-opencl' "$f" && { echo "  (NVIDIA: the path found below is used)"; continue; }
      n=$((n + 1))
      cp "$f" "$all/$(printf '%02d' "$n")-$(basename "$f")"
    done
  done
  # 2. NVIDIA's driver library, wherever it is.
  mapfile -t found < <(nvidia_candidates | awk '!seen[$0]++')
  if ((${#found[@]} == 0)); then
    echo "libnvidia-opencl.so not found by ldconfig nor in the usual folders; searching / (30 s at most)"
    mapfile -t found < <(timeout -k 2 "$(cap 30)" find / -maxdepth 8 \( -path /proc -o -path /sys -o -path /dev -o -path "$O" \) -prune -o \
      -name 'libnvidia-opencl.so*' -print 2>/dev/null | awk '!seen[$0]++')
  fi
  for lib in "${found[@]}"; do echo "found $lib -> $(readlink -f "$lib")"; done
  if ((${#found[@]} > 0)); then
    lib=${found[0]}
    for f in "${found[@]}"; do [[ $f == */libnvidia-opencl.so.1 ]] && { lib=$f; break; }; done
    n=$((n + 1))
    echo "$lib" >"$all/$(printf '%02d' "$n")-nvidia-clprof.icd"
    fig nvidia_opencl "$lib ($(readlink -f "$lib"))" "NVIDIA's OpenCL driver library, named in \$O/icd/all/*nvidia-clprof.icd" \
      "ldconfig -p; ls /usr/lib64 /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 ... (device-check.sh nvidia_candidates)"
    run ldd-nvidia 20 ldd "$lib" >/dev/null
    grep -q 'not found' "$O/devices/ldd-nvidia.out" && note "$lib needs libraries this machine lacks: $(grep 'not found' "$O/devices/ldd-nvidia.out" | awk '{print $1}' | tr '\n' ' ')"
  else
    fig nvidia_opencl "not found" "libnvidia-opencl.so.1 (ldconfig, usual folders, find /)" \
      "ldconfig -p; ls /usr/lib64 /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64 ...; find / -name 'libnvidia-opencl.so*'"
  fi
  # What else of NVIDIA's driver there is (for the reader when OpenCL's library is missing).
  local cuda
  cuda=$(for c in /sbin/ldconfig /usr/sbin/ldconfig; do [[ -x $c ]] && { "$c" -p 2>/dev/null | awk '/libcuda\.so\.1 / {print $NF}'; break; }; done | awk '!n++')
  fig libcuda "${cuda:-not in the linker cache}" "CUDA's driver library (NVIDIA's OpenCL needs the same driver)" "ldconfig -p"
  for d in /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib64 /usr/lib/x86_64-linux-gnu; do
    [[ -d $d ]] || continue
    echo "== $d"
    for f in "$d"/*nvidia* "$d"/*cuda* "$d"/*OpenCL*; do [[ -e $f ]] && ls -ld "$f"; done
  done >"$O/devices/nvidia-libs.txt" 2>&1
  # 3. Every driver probed alone; the list and full clinfo of all of them together.
  OCL_ICD_VENDORS=$all run clinfo-l 60 "$B/bin/clinfo" -l >/dev/null
  cp "$O/devices/clinfo-l.out" "$O/clinfo-l.txt"
  OCL_ICD_VENDORS=$all run clinfo 60 "$B/bin/clinfo" >/dev/null
  cp "$O/devices/clinfo.out" "$O/clinfo.txt"
  local table=() line pick="" fallback=""
  for f in "$all"/*.icd; do
    [[ -f $f ]] || continue
    line=$(probe "$f" "$(basename "$f" .icd)")
    if [[ -z $line ]]; then
      echo "driver $(basename "$f") ($(head -1 "$f")): no device"
      fig "driver $(basename "$f" .icd)" "no platform or no device" "$(head -1 "$f")" "OCL_ICD_VENDORS=$f \$B/bin/clinfo --raw"
      continue
    fi
    echo "driver $(basename "$f"): $line"
    fig "driver $(basename "$f" .icd)" "$(cut -f1 <<<"$line"): $(cut -f2 <<<"$line") (platform $(cut -f3 <<<"$line"))" "its first device's type and name" "OCL_ICD_VENDORS=$f \$B/bin/clinfo --raw"
    table+=("$f	$line")
  done
  local want=$DEVICE_TYPE entry type
  for entry in "${table[@]}"; do
    type=$(cut -f2 <<<"$entry")
    if [[ -z $pick ]] && { [[ $want == any && $type == *GPU* ]] || [[ $want == gpu && $type == *GPU* ]] || [[ $want == cpu && $type == *CPU* ]]; }; then
      pick=$entry
    fi
    [[ -z $fallback ]] && fallback=$entry
  done
  [[ -z $pick && $want == any ]] && pick=$fallback
  local fell_back=0
  if [[ -z $pick && -n $fallback ]]; then
    pick=$fallback
    fell_back=1
  fi
  if [[ -z $pick ]]; then
    fail "no OpenCL device at all (no driver gave a device: see \$O/clinfo.txt, \$O/devices/probe-*.out)"
    return
  fi
  cp "$(cut -f1 <<<"$pick")" "$chosen/"
  {
    echo "DEVICE_KIND=$(cut -f2 <<<"$pick")"
    echo "DEVICE_NAME=$(cut -f3 <<<"$pick" | tr -d "'\"\\\\\$\`")"
    echo "DEVICE_PLATFORM=$(cut -f4 <<<"$pick" | tr -d "'\"\\\\\$\`")"
    echo "DEVICE_FELL_BACK=$fell_back"
  } | sed 's/=\(.*\)/="\1"/' >"$O/icd/chosen.env"
  OCL_ICD_VENDORS=$chosen run clinfo-chosen 60 "$B/bin/clinfo" >/dev/null
  fig device "$(cut -f3 <<<"$pick") ($(cut -f2 <<<"$pick"))" "the device every later step runs on" "OCL_ICD_VENDORS=\$O/icd/chosen \$B/bin/clinfo --raw"
  fig platform "$(cut -f4 <<<"$pick")" "its platform" "OCL_ICD_VENDORS=\$O/icd/chosen \$B/bin/clinfo --raw"
  local c=$O/devices/clinfo-chosen.out
  # A field of clinfo's table: the text after its label (values may hold double spaces).
  field() { sed -n "s/^ *$1  *//p" "$c" | head -1; }
  fig platform_version "$(field 'Platform Version')" "CL_PLATFORM_VERSION" "OCL_ICD_VENDORS=\$O/icd/chosen \$B/bin/clinfo"
  fig device_version "$(field 'Device Version')" "CL_DEVICE_VERSION" "\$B/bin/clinfo"
  fig driver_version "$(field 'Driver Version')" "CL_DRIVER_VERSION" "\$B/bin/clinfo"
  fig opencl_c "$(field 'Device OpenCL C Version')" "CL_DEVICE_OPENCL_C_VERSION" "\$B/bin/clinfo"
  fig compute_units "$(field 'Max compute units')" "CL_DEVICE_MAX_COMPUTE_UNITS" "\$B/bin/clinfo"
  fig global_memory "$(field 'Global memory size')" "CL_DEVICE_GLOBAL_MEM_SIZE" "\$B/bin/clinfo"
  if ((fell_back)); then
    fail "NO OPENCL ${want^^} FOUND: every later step ran on $(cut -f3 <<<"$pick") ($(cut -f2 <<<"$pick")), not on a ${want^^}"
  fi
}

step_main() {
  local iters=3 trace=$O/main/clblast_network.json
  ((QUICK)) && iters=2
  mkdir -p "$O/main"
  if [[ ! -x $B/bin/clblast_network ]]; then
    fail "the bundle has no clblast_network (built without CLBlast)"
    return
  fi
  local rec="$B/bin/clprof record -o $trace -- $B/bin/clblast_network --iterations $iters"
  # shellcheck disable=SC2086
  run record 240 $rec || { fail "clprof record -- clblast_network failed"; return; }
  local t
  for t in summary kernels layers gemm "gemm --group"; do
    # shellcheck disable=SC2086
    run "${t// /-}" 60 "$B/bin/clprof" $t "$trace" >/dev/null || fail "clprof $t failed"
  done
  run summary-json 60 "$B/bin/clprof" summary --format json "$trace" >/dev/null || fail "clprof summary --format json failed"
  run report 120 "$B/bin/clprof" report "$trace" -o "$O/main/report.html" >/dev/null || fail "clprof report failed"
  run timeline 120 "$B/bin/clprof" timeline "$trace" -o "$O/main/timeline.json" >/dev/null || fail "clprof timeline failed"
  local s=$O/main/summary-json.out launches layers
  launches=$(jnum launches "$s")
  fig launches "${launches:-?}" "kernel launches in the trace (PoCL: 23 per iteration)" "$rec; \$B/bin/clprof summary --format json $trace"
  fig wall_ms "$(awk -v v="$(jnum wall_ns "$s")" 'BEGIN {printf "%.1f", v / 1e6}')" "run wall time (first to last host event)" "\$B/bin/clprof summary --format json $trace"
  fig device_busy_ms "$(awk -v v="$(jnum device_busy_ns "$s")" 'BEGIN {printf "%.1f", v / 1e6}')" "union of kernel intervals on the device" "\$B/bin/clprof summary --format json $trace"
  fig utilization_pct "$(awk -v v="$(jnum utilization "$s")" 'BEGIN {printf "%.1f", v}')" "device busy / wall" "\$B/bin/clprof summary --format json $trace"
  fig gflop "$(awk -v v="$(jnum gflop_total "$s")" 'BEGIN {printf "%.3f", v}')" "GEMM work of the timed GEMM launches" "\$B/bin/clprof summary --format json $trace"
  fig build_ms "$(awk -v v="$(jnum build_ns "$s")" 'BEGIN {printf "%.1f", v / 1e6}')" "host time in clBuildProgram (CLBlast's kernels)" "\$B/bin/clprof summary --format json $trace"
  fig top_kernel "$(awk 'NR > 2 && NF > 1 {print $1; exit}' "$O/main/kernels.out")" "first row of the kernel table" "\$B/bin/clprof kernels $trace"
  [[ ${launches:-0} -gt 0 ]] || fail "the trace has no launch"
  layers=$(grep -cE '^([a-z]+/)?(conv[1-5]|fc[678]) ' "$O/main/layers.out")
  fig layer_rows "$layers" "layer rows of the layer table (conv1..conv5, fc6..fc8)" "\$B/bin/clprof layers $trace"
  [[ $layers == 8 ]] || fail "the layer table has $layers layer rows, not 8"
  for t in conv1 conv5 fc6 fc8; do grep -q "$t" "$O/main/layers.out" || fail "layer $t missing from clprof layers"; done
  [[ -s $O/main/report.html ]] || fail "no report.html"
  [[ -s $O/main/timeline.json ]] || fail "no timeline.json"
  fig report "\$O/main/report.html ($(stat -c %s "$O/main/report.html" 2>/dev/null) bytes)" "HTML report" "\$B/bin/clprof report $trace -o \$O/main/report.html"
  fig timeline "\$O/main/timeline.json ($(stat -c %s "$O/main/timeline.json" 2>/dev/null) bytes)" "Perfetto / chrome://tracing timeline" "\$B/bin/clprof timeline $trace -o \$O/main/timeline.json"
}

step_bench() {
  local rounds=5 loop=(20000 1000 2000) lat=(2000 1 200)
  if ((QUICK)); then rounds=2; loop=(3000 500 300); lat=(200 1 20); fi
  local bench=$B/bin/enqueue_bench tsv=$O/bench/rounds.tsv r mode args order kind tag trace want got ok=1
  mkdir -p "$O/bench"
  printf 'round\tmode\tkind\tns_per_iter\tcpu_ns_per_iter\tthread_cpu_ns_per_iter\tqueued_to_start_ns\tqueued_to_end_ns\tlaunches\ttrace_launches\n' >"$tsv"
  for ((r = 1; r <= rounds; r++)); do
    # Interleaved, and which of bare/shim goes first alternates per round (drift).
    order="bare shim"
    ((r % 2 == 0)) && order="shim bare"
    for mode in loop latency; do
      if [[ $mode == loop ]]; then args=("${loop[@]}"); else args=(--latency "${lat[@]}"); fi
      for kind in $order; do
        tag=$mode-$kind-r$r
        trace=$O/bench/$tag.json
        if [[ $kind == bare ]]; then
          run "$tag" 120 "$bench" "${args[@]}" >/dev/null || { fail "$tag: enqueue_bench failed"; ok=0; continue; }
        else
          run "$tag" 120 env LD_PRELOAD="$B/lib/libclprof.so" CLPROF_OUTPUT="$trace" "$bench" "${args[@]}" >/dev/null ||
            { fail "$tag: enqueue_bench under the shim failed"; ok=0; continue; }
        fi
        local f=$O/bench/$tag.out
        want=$(key launches "$f")
        got=-
        if [[ $kind == shim ]]; then
          got=$(trace_launches "$tag-summary" "$trace")
          [[ -n $got && $got == "$want" ]] || { fail "$tag: the trace holds ${got:-no} launches, the program made $want"; ok=0; }
          rm -f "$trace"  # kept small: what comes back from a GPU machine is limited
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$mode" "$kind" "$(key ns_per_iter "$f")" \
          "$(awk -v u="$(key user_ns_per_iter "$f")" -v s="$(key sys_ns_per_iter "$f")" 'BEGIN {print u + s}')" \
          "$(key thread_cpu_ns_per_iter "$f")" "$(key queued_to_start_ns_per_iter "$f")" \
          "$(key queued_to_end_ns_per_iter "$f")" "$want" "$got" >>"$tsv"
      done
    done
  done
  # Medians per (mode, kind), and the shim's added time and ratio of the medians.
  col() { awk -F'\t' -v m="$1" -v k="$2" -v c="$3" 'NR > 1 && $2 == m && $3 == k && $c != "" {print $c}' "$tsv" | median; }
  local lcmd="\$B/bin/enqueue_bench ${loop[*]}" tcmd="\$B/bin/enqueue_bench --latency ${lat[*]}"
  local shim="LD_PRELOAD=\$B/lib/libclprof.so CLPROF_OUTPUT=\$O/bench/T.json"
  pair() {  # pair NAME MODE COLUMN SCALE UNIT DESCRIPTION CMD
    local b s
    b=$(col "$2" bare "$3")
    s=$(col "$2" shim "$3")
    [[ -n $b && -n $s ]] || return 0
    fig "$1 bare" "$(awk -v v="$b" -v k="$4" 'BEGIN {printf "%.2f", v * k}') $5" "$6, median of $rounds, no tool" "$7"
    fig "$1 shim" "$(awk -v v="$s" -v k="$4" 'BEGIN {printf "%.2f", v * k}') $5" "$6, median of $rounds, under libclprof.so" "$shim $7"
    fig "$1 added" "$(awk -v b="$b" -v s="$s" -v k="$4" -v u="$5" 'BEGIN {printf "%+.2f %s (x%.2f)", (s - b) * k, u, (b > 0 ? s / b : 0)}')" "shim median - bare median (ratio of the medians)" "both above"
  }
  pair "loop ns/launch" loop 4 1 ns "enqueue loop: wall ns per launch (clSetKernelArg x3 + clEnqueueNDRangeKernel)" "$lcmd"
  pair "loop CPU ns/launch" loop 5 1 ns "enqueue loop: user+sys CPU ns per launch, all threads" "$lcmd"
  pair "latency host us" latency 4 0.001 us "launch + clFinish, host wall µs per launch" "$tcmd"
  pair "latency QUEUED->START us" latency 7 0.001 us "launch latency by the event's timestamps, µs" "$tcmd"
  pair "latency QUEUED->END us" latency 8 0.001 us "launch to end by the event's timestamps, µs" "$tcmd"
  local checked
  checked=$(awk -F'\t' 'NR > 1 && $3 == "shim" && $10 == $9 {n++} END {print n + 0}' "$tsv")
  fig "shim runs whose trace holds every launch" "$checked of $((rounds * 2))" "trace launches (clprof summary) = the program's own 'launches' line" "$shim \$B/bin/enqueue_bench ...; \$B/bin/clprof summary --format json T.json"
  ((checked == rounds * 2)) || { ((ok == 0)) || fail "only $checked of $((rounds * 2)) shim runs checked"; }
}

step_threads() {
  local threads=8 per=500
  ((QUICK)) && { threads=4; per=100; }
  local trace=$O/threads/multi_thread.json
  mkdir -p "$O/threads"
  local rec="$B/bin/clprof record -o $trace -- $B/bin/multi_thread $threads $per"
  # shellcheck disable=SC2086
  run record 180 $rec >/dev/null || { fail "clprof record -- multi_thread failed"; return; }
  local program expected summary rows truncated
  program=$(sed -n 's/^multi_thread: OK ([0-9]* threads, \([0-9]*\) launches)$/\1/p' "$O/threads/record.out")
  expected=$((2 * threads * per))
  run summary 60 "$B/bin/clprof" summary --format json "$trace" >/dev/null || fail "clprof summary failed"
  summary=$(jnum launches "$O/threads/summary.out")
  truncated=$(jnum truncated_processes "$O/threads/summary.out")
  run launches 60 "$B/bin/clprof" launches --format csv "$trace" >/dev/null || fail "clprof launches failed"
  rows=$(($(grep -c . "$O/threads/launches.out") - 1))
  fig program_launches "${program:-none}" "the program's own count ('multi_thread: OK (T threads, N launches)')" "$rec"
  fig expected_launches "$expected" "2 x threads x launches per thread" "multi_thread $threads $per"
  fig summary_launches "${summary:-none}" "launches in the trace, by clprof summary" "\$B/bin/clprof summary --format json $trace"
  fig launch_rows "$rows" "rows of clprof launches" "\$B/bin/clprof launches --format csv $trace"
  fig truncated_processes "${truncated:-?}" "processes whose trace has no end record" "\$B/bin/clprof summary --format json $trace"
  [[ -n $program ]] || fail "multi_thread did not say OK with its launch count"
  [[ $program == "$expected" && $summary == "$expected" && $rows == "$expected" ]] ||
    fail "launch counts differ: program ${program:-none}, expected $expected, summary ${summary:-none}, launches $rows"
  [[ ${truncated:-1} == 0 ]] || fail "the trace is truncated"
}

step_e2e() {
  local cases=(vector_add vector_add_layer vector_add_record multi_thread dlopen_app api_misuse
    aligned_times timeline_pocl export_pocl clblast_network timeline_clblast)
  local e2e=$B/bin/clprof_device_e2e c start rc passed=0 failed=()
  if [[ ! -x $e2e ]]; then
    fail "the bundle has no clprof_device_e2e"
    return
  fi
  mkdir -p "$O/e2e/work"
  for c in "${cases[@]}"; do
    if [[ $c == *clblast* && ! -x $B/bin/clblast_network ]]; then
      fig "e2e.$c" "skipped (no clblast_network)" "" ""
      continue
    fi
    if (($(cap 600) < 20)); then
      fig "e2e.$c" "not run: out of time" "" ""
      failed+=("$c")
      continue
    fi
    start=$(now)
    CLPROF_DEVICE_WORK=$O/e2e/work run "$c" 240 "$e2e" --test-case="$c" >/dev/null
    rc=$?
    if ((rc == 0)) && ! grep -qE 'test cases: +0 [|]' "$O/e2e/$c.out"; then
      fig "e2e.$c" "pass ($(($(now) - start)) s)" "tests/e2e case $c on the chosen device" "CLPROF_DEVICE_WORK=\$O/e2e/work \$B/bin/clprof_device_e2e --test-case=$c"
      passed=$((passed + 1))
    else
      fig "e2e.$c" "FAIL (exit $rc, $(($(now) - start)) s; \$O/e2e/$c.out)" "tests/e2e case $c on the chosen device" "CLPROF_DEVICE_WORK=\$O/e2e/work \$B/bin/clprof_device_e2e --test-case=$c"
      failed+=("$c")
    fi
  done
  rm -rf "$O/e2e/work"
  fig e2e_passed "$passed of ${#cases[@]}" "e2e cases passed" "\$B/bin/clprof_device_e2e --test-case=CASE"
  ((${#failed[@]} == 0)) || fail "e2e cases failed: ${failed[*]}"
}

# ---- a step, run in its own process (bash device-check.sh --step NAME) --------------------
if [[ ${1:-} == --step ]]; then
  STEP=$2
  # shellcheck source=/dev/null
  [[ -f $O/icd/chosen.env ]] && source "$O/icd/chosen.env"
  [[ -f $O/icd/chosen.env ]] && export OCL_ICD_VENDORS=$O/icd/chosen
  mkdir -p "$O/$STEP"
  "step_$STEP"
  exit 0
fi

# ---- the driver ----------------------------------------------------------------------------
DEVICE_TYPE=gpu
QUICK=0
BUDGET=450
while (($#)); do
  case $1 in
    --device-type) [[ ${2:-} =~ ^(gpu|cpu|any)$ ]] || usage; DEVICE_TYPE=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --budget) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; BUDGET=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) break ;;
  esac
done
(($# == 1)) || usage
# A copy that lost its modes on the way (a runner's transfer) still runs.
chmod u+x "$B"/bin/* 2>/dev/null
if [[ ! -x $B/bin/clprof || ! -f $B/env.sh ]]; then
  echo "device-check: $B is not a device bundle: build one with scripts/device-bundle.sh and run its copy" >&2
  exit 2
fi
mkdir -p "$1" || exit 2
O=$(cd "$1" && pwd)
cd "$O" || exit 2  # nothing lands in the caller's folder
export B O DEVICE_TYPE QUICK
export CALLER_OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-} CALLER_LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}
unset OCL_ICD_VENDORS
# shellcheck source=/dev/null
source "$B/env.sh"
export PATH="$PATH:/usr/sbin:/sbin"
# Caches (PoCL's kernels, NVIDIA's compute cache) outside OUT_DIR: they need not come back.
TMP_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/clprof-device-check.XXXXXX")
trap 'rm -rf "$TMP_CACHE"' EXIT
export HOME=${HOME:-$TMP_CACHE}
export POCL_CACHE_DIR=${POCL_CACHE_DIR:-$TMP_CACHE/pocl}
export CUDA_CACHE_PATH=${CUDA_CACHE_PATH:-$TMP_CACHE/nv}
rm -rf "$O/results" "$O/logs"
mkdir -p "$O/results" "$O/logs"

T0=$(now)
# Seconds each step may take at most (cut to what is left of the budget).
declare -A LIMIT=([host]=60 [devices]=150 [main]=240 [bench]=200 [threads]=120 [e2e]=300)
declare -A RESULT SECS
# Left for writing the summary at the end.
RESERVE=10

write_summary() {
  local s=$O/summary.md p=0 n=0 st step
  for step in "${STEPS[@]}"; do
    n=$((n + 1))
    [[ ${RESULT[$step]:-} == pass ]] && p=$((p + 1))
  done
  local dev="none" loud=""
  if [[ -f $O/icd/chosen.env ]]; then
    # shellcheck source=/dev/null
    source "$O/icd/chosen.env"
    dev="$DEVICE_NAME ($DEVICE_KIND) on $DEVICE_PLATFORM"
    if [[ $DEVICE_KIND != *GPU* ]]; then
      loud="**NOT A GPU: every step ran on $DEVICE_NAME ($DEVICE_KIND)$( ((DEVICE_FELL_BACK)) && echo ", because no OpenCL ${DEVICE_TYPE^^} was found" || echo ", as --device-type $DEVICE_TYPE asked").**"
    fi
  fi
  {
    echo "# clprof device check"
    echo
    echo "Result: **$( ((p == n)) && echo PASS || echo FAIL)** ($p of $n steps passed) in $(($(now) - T0)) s (budget $BUDGET s)$( ((QUICK)) && echo ', --quick')."
    echo
    echo "Device: $dev"
    [[ -n $loud ]] && { echo; echo "$loud"; }
    echo
    echo "\`\$B\` is the bundle ($B), \`\$O\` this output folder ($O). Every command ran with"
    echo "\`\$B/env.sh\` sourced and, after the devices step, \`OCL_ICD_VENDORS=\$O/icd/chosen\`."
    echo
    echo "| step | result | seconds | log |"
    echo "|---|---|---|---|"
    for step in "${STEPS[@]}"; do
      st=${RESULT[$step]:-not run}
      echo "| $step | $st | ${SECS[$step]:--} | logs/$(printf '%d' "$(idx "$step")")-$step.log |"
    done
    for step in "${STEPS[@]}"; do
      [[ -f $O/results/$step.tsv || -f $O/results/$step.failed || -f $O/results/$step.notes ]] || continue
      echo
      echo "## $step: ${RESULT[$step]:-not run}"
      if [[ -f $O/results/$step.failed ]]; then
        echo
        sed 's/^/- FAILED: /' "$O/results/$step.failed"
      fi
      if [[ -f $O/results/$step.notes ]]; then
        echo
        sed 's/^/- note: /' "$O/results/$step.notes"
      fi
      if [[ -f $O/results/$step.tsv ]]; then
        echo
        echo "| figure | value | what | command |"
        echo "|---|---|---|---|"
        awk -F'\t' '{gsub(/\|/, "\\|", $2); printf "| %s | %s | %s | `%s` |\n", $1, $2, $3, $4}' "$O/results/$step.tsv" | sed 's/| `` |$/| |/'
      fi
    done
  } >"$s.tmp" && mv "$s.tmp" "$s"
  {
    printf 'step\tkey\tvalue\n'
    for step in "${STEPS[@]}"; do
      printf '%s\tresult\t%s\n' "$step" "${RESULT[$step]:-not run}"
      [[ -f $O/results/$step.tsv ]] && awk -F'\t' -v s="$step" '{printf "%s\t%s\t%s\n", s, $1, $2}' "$O/results/$step.tsv"
    done
  } >"$O/results.tsv"
}
idx() { local i; for i in "${!STEPS[@]}"; do [[ ${STEPS[$i]} == "$1" ]] && echo $((i + 1)); done; }

overall=0
for step in "${STEPS[@]}"; do
  log=$O/logs/$(idx "$step")-$step.log
  left=$((BUDGET - RESERVE - ($(now) - T0)))
  limit=${LIMIT[$step]}
  ((limit > left)) && limit=$left
  if ((limit < 15)); then
    RESULT[$step]="FAIL (not run: the $BUDGET s budget is spent)"
    overall=1
    write_summary
    continue
  fi
  if [[ $step != host && $step != devices && ! -f $O/icd/chosen.env ]]; then
    RESULT[$step]="FAIL (not run: no OpenCL device)"
    overall=1
    write_summary
    continue
  fi
  echo "== $step (at most ${limit}s) -> $log"
  start=$(now)
  STEP_DEADLINE=$((start + limit - 5)) timeout -k 5 "$limit" bash "$B/device-check.sh" --step "$step" >"$log" 2>&1
  rc=$?
  SECS[$step]=$(($(now) - start))
  if ((rc == 124 || rc == 137)); then
    echo "step $step timed out after ${limit}s" >>"$O/results/$step.failed"
  elif ((rc != 0)); then
    echo "step $step exited $rc" >>"$O/results/$step.failed"
  fi
  if [[ -f $O/results/$step.failed ]]; then
    RESULT[$step]=FAIL
    overall=1
  else
    RESULT[$step]=pass
  fi
  [[ -f $O/results/$step.tsv ]] && awk -F'\t' '{printf "   %-30s %s\n", $1, $2}' "$O/results/$step.tsv"
  [[ $step == devices && -s $O/clinfo-l.txt ]] && sed 's/^/   | /' "$O/clinfo-l.txt"
  [[ -f $O/results/$step.failed ]] && sed 's/^/   FAILED: /' "$O/results/$step.failed"
  echo "   -> ${RESULT[$step]} (${SECS[$step]} s)"
  write_summary
done
write_summary
echo "== $( ((overall == 0)) && echo PASS || echo FAIL): $O/summary.md ($(($(now) - T0)) s)"
exit "$overall"
