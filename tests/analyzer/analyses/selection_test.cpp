// --filter, --iteration, --skip-first and --iteration-range against a run
// (analyses/selection.hpp): what the run cannot satisfy is an error, never an empty result.
#include <doctest/doctest.h>

#include "analyses/layers.hpp"
#include "analyses/selection.hpp"
#include "model_builders.hpp"

using namespace clprof;
using unit::launch;
using unit::range;

namespace {

// Three iterations of "inference" { conv }, and a launch outside them.
model::Run three_iterations() {
  model::Run run;
  for (uint64_t i = 0; i < 3; ++i) {
    run.ranges.push_back(range(10 * i + 1, 0, "inference", 1000 * i, 1000 * i + 900));
    run.ranges.push_back(range(10 * i + 2, 10 * i + 1, "conv", 1000 * i + 1, 1000 * i + 800));
    run.launches.push_back(
        launch(i == 1 ? "gemm" : "vadd", 10000 * (i + 1), 100, {10 * i + 1, 10 * i + 2}, i + 1));
  }
  run.launches.push_back(launch("copy", 90000, 10, {}, 9));
  return run;
}

size_t kept(const model::Run& run, const analyses::Selection& s) {
  const auto keep = analyses::make_predicate(run, s);
  size_t n = 0;
  for (const auto& l : run.launches) n += !keep || keep(l);
  return n;
}

}  // namespace

TEST_CASE("selection: iterations within the run are kept; the launch outside them is not") {
  const auto run = three_iterations();
  analyses::Selection s;
  CHECK(kept(run, s) == 4);
  s.iteration = analyses::parse_iteration_range("2:3");
  s.iteration_text = "2:3";
  CHECK(kept(run, s) == 2);
  s.iteration.reset();
  s.skip_first = 2;
  CHECK(kept(run, s) == 1);
  analyses::Selection f;
  f.filter = "conv";  // matches the layer path inference/conv
  CHECK(kept(run, f) == 3);
  f.filter = "^gemm$";
  CHECK(kept(run, f) == 1);
}

TEST_CASE("selection: past the last iteration, skipping them all, unknown ranges are errors") {
  const auto run = three_iterations();
  analyses::Selection s;
  s.iteration = analyses::parse_iteration_range("5");
  s.iteration_text = "5";
  CHECK_THROWS_WITH_AS(analyses::make_predicate(run, s),
                       "--iteration 5: the run has 3 iterations of 'inference'",
                       analyses::SelectionError);
  s.iteration = analyses::parse_iteration_range("2:4");
  s.iteration_text = "2:4";
  CHECK_THROWS_AS(analyses::make_predicate(run, s), analyses::SelectionError);
  s.iteration = analyses::parse_iteration_range("2:");  // open-ended: up to the last
  CHECK(kept(run, s) == 2);
  analyses::Selection skip;
  skip.skip_first = 3;
  CHECK_THROWS_WITH_AS(analyses::make_predicate(run, skip),
                       "--skip-first 3: the run has only 3 iterations of 'inference'",
                       analyses::SelectionError);
  analyses::Selection named;
  named.iteration_range = "nope";
  named.skip_first = 1;
  CHECK_THROWS_WITH_AS(
      analyses::make_predicate(run, named),
      "--iteration-range: no top-level range named 'nope' (top-level ranges: inference)",
      analyses::SelectionError);
  model::Run flat;
  flat.launches.push_back(launch("vadd", 100, 10));
  CHECK_THROWS_AS(analyses::make_predicate(flat, skip), analyses::SelectionError);
  CHECK_THROWS_AS(analyses::check_filter("("), analyses::SelectionError);
}

TEST_CASE("iterations: a repeating range without launches is no iteration range by itself") {
  // Two processes (forked children) each open `build` once (ids 1, 2) and launch k outside
  // any range; a third top-level range `step` (id 3) holds k once. By hand: without launch
  // knowledge `build` wins (2 instances against 1); with it, `build` holds none and `step`
  // neither repeats nor nests: no iteration range. Naming `build` still picks it.
  model::Run run;
  run.processes.resize(2);
  run.ranges = {range(1, 0, "build"), range(2, 0, "build"), range(3, 0, "step")};
  run.ranges[1].process = 1;
  run.launches = {launch("k", 1000, 50), launch("k", 2000, 50, {3})};
  analyses::LayersAnalysis layers;
  feed(run, layers);
  const auto holding = analyses::ranges_holding_launches(layers, run);
  CHECK(holding == std::unordered_set<uint64_t>{3});
  CHECK(analyses::find_iterations(run).range_name == "build");
  CHECK(analyses::find_iterations(run, "", &holding).range_ids.empty());
  CHECK(analyses::find_iterations(run, "build", &holding).range_ids.size() == 2);
}
