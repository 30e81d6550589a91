#!/usr/bin/env bash
# clprof side by side with Intel's opencl-intercept-layer (clIntercept): one command.
#
#   bash bench/peer/run.sh [--build BUILD] [--peer CLINTERCEPT_BUILD] [--rounds 15] [options]
#   e.g. bash bench/peer/run.sh --build build --peer /work/peers/clintercept-build --rounds 15
#
# Builds nothing and fetches nothing. BUILD (default ./build) must hold the targets
# enqueue_bench (with the shim and the fake driver) and clblast_network; the peer is built
# from a local source folder as bench/peer/README.md says. Without --peer the clIntercept
# variants are skipped (one line says so). --help lists the options (cases, variants,
# iterations, --out). Prints the tables (markdown) and writes rounds.csv + table.md to --out.
# Exit status 1 when a run failed verification (a tool that wrote no trace / no report).
exec /usr/bin/python3 "$(dirname "$0")/peer_bench.py" "$@"
