#!/usr/bin/env bash
# The main job: install dependencies, build clprof, profile a real OpenCL program on PoCL
# (a small AlexNet-like network of GEMM layers run through CLBlast, with one range per
# layer and per iteration), print the run summary, kernel, layer and GEMM tables (per
# launch, then grouped per shape), write its HTML report and its timeline (Chrome Trace Event
# JSON for ui.perfetto.dev or chrome://tracing), and say where they are.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh

out=build/demo
mkdir -p "$out"
rm -f "$out"/clblast_network*.json
echo "== clprof record -- clblast_network"
build/bin/clprof record -o "$out/clblast_network.json" -- build/bin/clblast_network --iterations 3
for cmd in summary kernels layers gemm "gemm --group"; do
  echo
  echo "== clprof $cmd $out/clblast_network.json"
  # $cmd is split on purpose: "gemm --group" is the command and its option.
  # shellcheck disable=SC2086
  build/bin/clprof $cmd "$out/clblast_network.json"
done
echo
echo "== clprof report $out/clblast_network.json -o $out/report.html"
build/bin/clprof report "$out/clblast_network.json" -o "$out/report.html"
echo
echo "== clprof timeline $out/clblast_network.json -o $out/timeline.json"
build/bin/clprof timeline "$out/clblast_network.json" -o "$out/timeline.json"
echo
echo "report:   $(pwd)/$out/report.html (open it in a browser)"
echo "timeline: $(pwd)/$out/timeline.json (open it in ui.perfetto.dev or chrome://tracing)"
