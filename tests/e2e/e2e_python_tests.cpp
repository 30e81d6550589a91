// End-to-end tests of Python programs (Debian's python3-pyopencl) on PoCL under the real
// libclprof.so: the pyopencl example in preload and in loader-layer mode (range markers from
// Python included), and a Python program that execs after using OpenCL.
#include <doctest/doctest.h>

#include "e2e_support.hpp"
#include "skip.hpp"

#include <clprof/trace_schema.hpp>

#include <string>
#include <vector>

using namespace clprof::e2e;
namespace tf = clprof::trace;

namespace {
using Names = std::vector<std::string>;
}  // namespace

TEST_CASE("pyopencl") {
  const fs::path markers = paths().examples_src / ".." / "scripts" / "clprof_markers.py";
  REQUIRE_MESSAGE(fs::exists(markers), "the marker module is missing: " << markers);
  REQUIRE_MESSAGE(fs::exists(paths().python), "no " << paths().python);
  constexpr int kIterations = 2;
  // Preload mode, and as a loader layer: Python loads libOpenCL with RTLD_LOCAL, and the
  // markers find the layer's library by name (clprof_markers.py).
  for (const ShimMode mode : {ShimMode::Preload, ShimMode::Layer}) {
    const bool layer = mode == ShimMode::Layer;
    CAPTURE(layer);
    if (layer && !std::string(CLPROF_TEST_PRELOAD_FIRST).empty()) {
      // A sanitizer build: its runtime must be preloaded for the layer, and ASan's, preloaded
      // into python3 (which loads the C++ runtime only later), aborts at the first C++
      // exception (its __cxa_throw interceptor finds no real function).
      CLPROF_SKIP_PART("layer mode in a sanitizer build");
      continue;
    }
    const fs::path dir = fresh_work_dir(layer ? "pyopencl_layer" : "pyopencl");
    const fs::path trace = dir / "trace.json";
    const RunResult r = run_with_and_without_shim(
        {paths().python.string(), (paths().examples_src / "pyopencl_example.py").string(),
         "--iterations", std::to_string(kIterations)},
        dir, trace, 120, {}, mode);
    const Trace t(trace);
    check_trace_invariants(t);
    check_launches_match_printed(t, printed_launches(r.out));

    const std::vector<Launch> affine = t.launches_of("affine");
    const std::vector<Launch> relu = t.launches_of("relu");
    REQUIRE(affine.size() == 2 * kIterations);
    REQUIRE(relu.size() == 2 * kIterations);
    CHECK(t.launches().size() == 4 * kIterations);
    struct LayerPlan {
      const char* name;
      uint32_t n_in;
      float bias;
    };
    const LayerPlan plan[] = {{"layer1", 128, 0.25f}, {"layer2", 64, -0.5f}};
    for (size_t i = 0; i < affine.size(); ++i) {
      INFO("affine launch " << i);
      const LayerPlan& p = plan[i % 2];
      CHECK(scalar_arg(affine[i], 3, 4) == p.n_in);
      CHECK(scalar_arg(affine[i], 4, 4) == float_bits(p.bias));
      CHECK(buffer_arg(affine[i], 1).second == 4 * p.n_in * affine[i].gws[0]);  // weights
      CHECK(t.range_names(affine[i].ranges) == Names{"inference", p.name});
      CHECK(t.range_names(relu[i].ranges) == Names{"inference", p.name});
      // relu works in place on the affine output buffer.
      CHECK(buffer_arg(relu[i], 0) == buffer_arg(affine[i], 2));
    }
    const auto marks = t.records(tf::mark::kTypeName);
    REQUIRE(marks.size() == 1);
    CHECK(get_string(*marks[0], tf::mark::name) == "weights loaded");
  }
}

// exec after OpenCL use (issue 2: the trace must be whole): the replaced program's trace is
// finished before exec, and the new program, same pid, writes NAME.exec1.EXT.
TEST_CASE("pyopencl_exec") {
  REQUIRE_MESSAGE(fs::exists(paths().python), "no " << paths().python);
  const fs::path script = paths().examples_src / ".." / "tests" / "e2e" / "pyopencl_exec.py";
  const fs::path dir = fresh_work_dir("pyopencl_exec");
  const fs::path trace = dir / "trace.json";
  const RunResult r = run_with_and_without_shim(
      {paths().python.string(), script.string(), "--then-exec"}, dir, trace, 120);
  CHECK(r.out == "launched 3\nlaunched 2\n");
  const Trace before(trace);
  check_trace_invariants(before);
  CHECK(before.launches_of("double_it").size() == 3);
  const fs::path after_path = dir / "trace.exec1.json";
  REQUIRE_MESSAGE(fs::exists(after_path), "the new program wrote no " << after_path);
  const Trace after(after_path);
  check_trace_invariants(after);
  CHECK(after.launches_of("double_it").size() == 2);
}
