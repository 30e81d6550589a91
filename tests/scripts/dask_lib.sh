# Sourced by the scripts/clprof-dask tests (tests/scripts/clprof_dask_*.sh), after they set
# clprof (the binary under test) and script (scripts/clprof-dask): skips (77) without
# Debian's python3-dask and python3-distributed; makes $tmp, removed on exit; `dask ARGS...`
# runs the script on a local cluster of 2 workers with that clprof.
if ! /usr/bin/python3 -c 'import dask, distributed' 2>/dev/null; then
  echo "SKIP: python3-dask or python3-distributed is not installed"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dask() { "$script" --workers 2 --clprof "$clprof" "$@"; }
# `same_as_merge COMMAND K TRACES...`: clprof-dask COMMAND --format json with one trace per
# task, K per task and the default sharding (4 tasks per worker) each print, byte for byte,
# clprof COMMAND --merge --format json's output, left in $tmp/one.json; else FAIL (exit 1).
same_as_merge() {
  local command=$1 k=$2 n
  shift 2
  "$clprof" "$command" --merge --format json "$@" > "$tmp/one.json" 2> /dev/null
  dask --shard-size 1 "$command" --format json "$@" > "$tmp/dask1.json" 2> /dev/null
  dask --shard-size "$k" "$command" "$@" --format json > "$tmp/dask$k.json" 2> /dev/null
  dask "$command" --format json "$@" > "$tmp/dask.json" 2> /dev/null
  for n in dask1 "dask$k" dask; do
    cmp "$tmp/one.json" "$tmp/$n.json" ||
      { echo "FAIL: $n differs from clprof $command --merge"; exit 1; }
  done
}
