#!/usr/bin/env bash
# scripts/device-bundle.sh [BUILD_DIR] [OUT_DIR]
#
# Packs everything the GPU-machine check (scripts/device-check.sh, docs/devices.md) runs into
# one self-contained folder (default build/device-bundle, under the git-ignored build/):
#
#   bin/      clprof, the examples, enqueue_bench, api_misuse, clprof_device_e2e (the e2e
#             suite that finds its programs in the bundle), clinfo, and `run` (the launcher)
#   lib/      libclprof.so and every shared library those programs need that a bare Linux
#             machine may lack (ldd, recursively: ocl-icd's libOpenCL.so.1, CLBlast, spdlog,
#             fmt, simdjson, RE2, sqlite, zstd, libstdc++ ...). Not glibc's own libraries
#             (libc, libm, libdl, libpthread, librt, ld-linux ...) and not OpenCL drivers
#             (PoCL, NVIDIA): the machine's own are the ones to test.
#   env.sh    sourced by bin/run: LD_LIBRARY_PATH, PATH, OCL_ICD_VENDORS
#   device-check.sh, MANIFEST.txt (every file, its size and origin; the glibc the
#             binaries need; what PoCL would cost)
#
# Binaries are copied stripped (strip --strip-unneeded). The bundle must stay within 64 MiB
# (the most a GPU machine's runner carries): the script measures it, prints the size and
# fails (exit 1) above that. BUILD_DIR must hold a finished build (scripts/build.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
build=${1:-$repo/build}
out=${2:-$build/device-bundle}
limit_bytes=$((64 * 1024 * 1024))

die() { echo "device-bundle: $*" >&2; exit 1; }
[[ -d $build ]] || die "no build folder $build (run scripts/build.sh first)"
build=$(cd "$build" && pwd)
command -v ldd >/dev/null || die "ldd not found"
command -v strip >/dev/null || die "strip not found (binutils)"

# Programs of the build: required ones fail the bundle when missing.
required=(clprof multi_thread enqueue_bench vector_add)
optional=(clblast_network dlopen_app api_misuse clprof_device_e2e)
for p in "${required[@]}"; do
  [[ -x $build/bin/$p ]] || die "$build/bin/$p is missing (build it: scripts/build.sh)"
done
[[ -f $build/lib/libclprof.so ]] || die "$build/lib/libclprof.so is missing"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
manifest=$out/MANIFEST.txt
: >"$manifest.files"

# copy SRC DEST_DIR [NAME]: a stripped copy (symlinks followed), noted in the manifest.
copy() {
  local src=$1 dir=$2 name=${3:-$(basename "$1")}
  cp -L "$src" "$dir/$name"
  chmod u+w "$dir/$name"
  strip --strip-unneeded "$dir/$name" 2>/dev/null || true
  echo "${dir#"$out"/}/$name <- $(readlink -f "$src")" >>"$manifest.files"
}

for p in "${required[@]}" "${optional[@]}"; do
  if [[ -x $build/bin/$p ]]; then
    copy "$build/bin/$p" "$out/bin"
  else
    echo "device-bundle: note: $build/bin/$p not built: left out" >&2
  fi
done
copy "$build/lib/libclprof.so" "$out/lib"
clinfo_bin=$(command -v clinfo || true)
[[ -n $clinfo_bin ]] || die "clinfo not found (Debian: apt-get install clinfo)"
copy "$clinfo_bin" "$out/bin"

# (No early-exiting reader in a pipeline here: with pipefail, its writer's SIGPIPE would stop
# the script.)
is_elf() { [[ $(head -c 4 "$1" 2>/dev/null) == $'\x7fELF' ]]; }

# glibc's own libraries (the machine's glibc must serve them) and OpenCL drivers.
skip_lib() {
  case $1 in
    linux-vdso.so* | linux-gate.so* | ld-linux*.so* | libc.so.* | libm.so.* | libdl.so.* | \
      libpthread.so.* | librt.so.* | libresolv.so.* | libutil.so.* | libmvec.so.* | \
      libanl.so.* | libnss_*.so* | libthread_db.so.* | libBrokenLocale.so.* | libnsl.so.*)
      return 0 ;;
    libpocl*.so* | libnvidia*.so* | libcuda*.so* | libamdocl*.so* | libigdrcl*.so* | \
      libintelocl*.so* | libmali*.so*)
      return 0 ;;
  esac
  return 1
}

# The dependency closure: ldd every ELF in the bundle until no new library appears.
# libOpenCL.so.1 is added even when only dlopen()ed (dlopen_app, the shim's loader).
ocl_icd=$(ldconfig -p 2>/dev/null | awk '$1 == "libOpenCL.so.1" && /x86-64/ && !n++ {print $NF}')
[[ -n $ocl_icd ]] || ocl_icd=$(ldd "$clinfo_bin" | awk '$1 == "libOpenCL.so.1" {print $3}')
[[ -n $ocl_icd && -e $ocl_icd ]] || die "libOpenCL.so.1 (ocl-icd) not found"
copy "$ocl_icd" "$out/lib" libOpenCL.so.1
missing=()
while :; do
  added=0
  for f in "$out"/bin/* "$out"/lib/*; do
    [[ -f $f ]] || continue
    is_elf "$f" || continue
    while read -r name arrow path _; do
      [[ $arrow == "=>" ]] || continue
      skip_lib "$name" && continue
      [[ -e $out/lib/$name ]] && continue
      if [[ $path == "not" || ! -e $path ]]; then
        missing+=("$name (needed by ${f#"$out"/})")
        continue
      fi
      copy "$path" "$out/lib" "$name"
      added=1
    done < <(LD_LIBRARY_PATH=$out/lib ldd "$f" 2>/dev/null || true)
  done
  [[ $added == 1 ]] || break
done
((${#missing[@]} == 0)) || die "libraries not found: ${missing[*]}"

# Self-contained: with LD_LIBRARY_PATH=lib, every library an ELF needs resolves inside the
# bundle or is one of the machine's own (glibc). A build-tree RUNPATH cannot hide a miss.
for f in "$out"/bin/* "$out"/lib/*; do
  is_elf "$f" || continue
  while read -r name arrow path _; do
    [[ $arrow == "=>" ]] || continue
    skip_lib "$name" && continue
    [[ $path == "$out/lib/$name" ]] || die "${f#"$out"/}: $name resolves to $path, not into the bundle"
  done < <(env -i LD_LIBRARY_PATH="$out/lib" ldd "$f" 2>/dev/null || true)
done

# The newest glibc symbol version any bundled ELF needs: the machine's glibc must be at least
# that (device-check.sh compares).
glibc_needed=$(for f in "$out"/bin/* "$out"/lib/*; do
  is_elf "$f" || continue
  objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true
done | sed 's/GLIBC_//' | sort -t. -k1,1n -k2,2n -u | tail -1)
echo "${glibc_needed:-unknown}" >"$out/GLIBC_NEEDED"
glibc_by=$(for f in "$out"/bin/* "$out"/lib/*; do
  is_elf "$f" || continue
  # grep without -q: with pipefail, objdump cut short by SIGPIPE would fail the pipeline.
  if objdump -T "$f" 2>/dev/null | grep "GLIBC_${glibc_needed}[^.0-9]" >/dev/null; then
    printf '%s ' "${f#"$out"/}"
  fi
done)

# The launcher's environment. OCL_ICD_VENDORS: the caller's (device-check.sh sets its own
# private folder), else the system's.
cat >"$out/env.sh" <<'ENV'
# Sourced by bin/run and device-check.sh: the bundle's programs and libraries first.
CLPROF_BUNDLE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export CLPROF_BUNDLE
export PATH="$CLPROF_BUNDLE/bin${PATH:+:$PATH}"
export LD_LIBRARY_PATH="$CLPROF_BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OCL_ICD_VENDORS="${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"
ENV
cat >"$out/bin/run" <<'RUN'
#!/usr/bin/env bash
# bin/run PROGRAM [ARGS...]: runs PROGRAM (a bundled one by name, or any path) with the
# bundle's libraries and programs first (env.sh). Example: bin/run clinfo -l
set -euo pipefail
# shellcheck source=/dev/null
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/env.sh"
[[ $# -gt 0 ]] || { echo "usage: bin/run PROGRAM [ARGS...]" >&2; exit 2; }
exec "$@"
RUN
chmod +x "$out/bin/run"
cp "$here/device-check.sh" "$out/device-check.sh"
chmod +x "$out/device-check.sh"

# What PoCL (the CPU driver, for a self-test without a system PoCL) would add: libpocl, its
# device modules and kernel library, and the libraries it needs that are not yet here.
pocl_lib=$(ldconfig -p 2>/dev/null | awk '$1 ~ /^libpocl\.so/ && /x86-64/ && !n++ {print $NF}')
pocl_note="PoCL: not installed here"
if [[ -n $pocl_lib ]]; then
  pocl_bytes=$( {
    readlink -f "$pocl_lib"
    ldd "$pocl_lib" | awk '$2 == "=>" {print $1, $3}' | while read -r n p; do
      skip_lib "$n" || [[ -e $out/lib/$n ]] || readlink -f "$p"
    done
    find "$(dirname "$pocl_lib")/pocl" /usr/share/pocl -type f 2>/dev/null
  } | sort -u | xargs -r du -bc | tail -1 | cut -f1)
  pocl_note="PoCL: not bundled: it would add $((pocl_bytes / 1024 / 1024)) MiB ($(readlink -f "$pocl_lib"), its LLVM and clang libraries, its kernel library), over the 64 MiB budget; the self-test uses the machine's own PoCL"
fi

bytes=$(du -sb "$out" | cut -f1)
{
  echo "clprof device bundle"
  echo "built:    $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm)"
  echo "source:   $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "build:    $build ($(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || echo unknown)), copies stripped"
  echo "glibc:    the binaries need glibc >= ${glibc_needed:-unknown} (not bundled; that version asked by: ${glibc_by:-?})"
  echo "size:     $bytes bytes ($((bytes / 1024 / 1024)) MiB of at most 64 MiB)"
  echo "$pocl_note"
  echo
  echo "files (bytes, path <- origin):"
  while read -r rel arrow origin; do
    printf '%10d  %s %s %s\n' "$(stat -c %s "$out/$rel")" "$rel" "$arrow" "$origin"
  done <"$manifest.files"
} >"$manifest"
rm -f "$manifest.files"

echo "device-bundle: $out: $bytes bytes ($(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MiB), $(find "$out" -type f | wc -l) files; needs glibc >= ${glibc_needed:-unknown}"
echo "device-bundle: $pocl_note"
if ((bytes > limit_bytes)); then
  die "$out is $bytes bytes, over the 64 MiB ($limit_bytes bytes) a GPU machine's runner carries"
fi
# The runner carries the repository's tracked files too, 64 MiB in all.
tree=$(git -C "$repo" ls-files -z 2>/dev/null | (cd "$repo" && xargs -0 -r stat -c %s 2>/dev/null) | awk '{s += $1} END {if (NR) print s}')
if [[ -n $tree ]]; then
  echo "device-bundle: with the tracked tree ($((tree / 1024)) KiB) a runner would carry $(((bytes + tree) / 1024 / 1024)) MiB of at most 64"
  ((bytes + tree <= limit_bytes)) || die "the bundle and the tracked tree together are over 64 MiB"
fi
