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
