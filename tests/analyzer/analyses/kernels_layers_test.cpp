// Kernels and layers analyses over in-memory runs (no files).
#include <doctest/doctest.h>

#include "analyses/kernels.hpp"
#include "analyses/layers.hpp"
#include "analyses/ranges.hpp"
#include "model_builders.hpp"

using namespace clprof;
using unit::launch;
using unit::range;

namespace {
// Two iterations of "inference" {conv (parent), conv/relu (nested)} and one launch outside.
model::Run two_iterations() {
  model::Run run;
  run.processes.resize(1);
  run.ranges = {range(1, 0, "inference", 100, 200), range(2, 1, "conv"), range(3, 2, "relu"),
                range(4, 0, "inference", 300, 450), range(5, 4, "conv"), range(6, 5, "relu")};
  run.launches = {launch("gemm", 1000, 400, {1, 2}, 1), launch("act", 2000, 50, {1, 2, 3}, 2),
                  launch("gemm", 3000, 600, {4, 5}, 3), launch("act", 4000, 70, {4, 5, 6}, 4),
                  launch("copy", 5000, 30, {}, 5)};
  return run;
}
}  // namespace

TEST_CASE("kernels: totals, percent, phases, untimed launches") {
  auto run = two_iterations();
  model::Launch failed = launch("gemm", 0, 0);
  failed.queued_ns = failed.submit_ns = failed.start_ns = failed.end_ns = model::kNoTime;
  failed.status = "error";
  run.launches.push_back(failed);
  analyses::KernelsAnalysis a;
  feed(run, a);
  auto rows = a.rows(run);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "gemm");
  CHECK(rows[0].stats.count == 2);
  CHECK(rows[0].untimed == 1);
  CHECK(rows[0].stats.total_ns == 1000);
  CHECK(*rows[0].percent == doctest::Approx(100.0 * 1000 / 1150));
  CHECK(rows[0].queued_to_submit_ns == 20);  // 10 per timed launch
  CHECK(rows[0].submit_to_start_ns == 40);
  CHECK(rows[1].name == "act");
  CHECK(rows[1].stats.median_ns == 60);
}

TEST_CASE("kernels: merge of per-thread instances equals one instance") {
  auto run = two_iterations();
  analyses::KernelsAnalysis one, left, right;
  feed(run, one);
  for (size_t i = 0; i < run.launches.size(); ++i)
    (i % 2 ? left : right).add_launch(run.launches[i]);
  left.merge(std::move(right));
  auto a = one.rows(run), b = left.rows(run);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].stats.median_ns == b[i].stats.median_ns);
    CHECK(a[i].stats.total_ns == b[i].stats.total_ns);
  }
}

TEST_CASE("kernels: importer durations (duration_override_ns) are used") {
  model::Launch l;
  l.name = "imported";
  l.duration_override_ns = 1234;
  analyses::KernelsAnalysis a;
  a.add_launch(l);
  CHECK(a.rows({})[0].stats.total_ns == 1234);
  // Phases it does not know are unknown, not 0.
  CHECK(!a.rows({})[0].queued_to_submit_ns);
  CHECK(!a.rows({})[0].submit_to_start_ns);
  CHECK(!a.rows({})[0].enqueue_ns);
  // No kernel time at all: no share either.
  model::Launch untimed;
  untimed.name = "untimed";
  analyses::KernelsAnalysis u;
  u.add_launch(untimed);
  CHECK(u.rows({})[0].stats.count == 0);
  CHECK(!u.rows({})[0].percent);
}

TEST_CASE("layers: innermost range path, aggregated over iterations") {
  auto run = two_iterations();
  analyses::LayersAnalysis a;
  feed(run, a);
  auto rows = analyses::layer_rows(a, run, nullptr);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].layer == "inference/conv");
  CHECK(rows[0].instances == 2);
  CHECK(rows[0].total_ns == 1000);
  CHECK(rows[0].instance_median_ns == 500);
  CHECK(rows[0].instance_min_ns == 400);
  CHECK(rows[0].instance_max_ns == 600);
  CHECK(rows[1].layer == "inference/conv/relu");
  CHECK(rows[1].total_ns == 120);
  CHECK(rows[2].layer == "(no layer)");
  CHECK(*rows[2].percent == doctest::Approx(100.0 * 30 / 1150));
  REQUIRE(analyses::sort_layer_rows(rows, "total"));
  CHECK(rows[2].layer == "(no layer)");
  CHECK(!analyses::sort_layer_rows(rows, "colour"));
}

TEST_CASE("layers: --speedup estimates") {
  auto run = two_iterations();
  analyses::LayersAnalysis a;
  feed(run, a);
  analyses::Speedup s({analyses::parse_speedup("^gemm$=4"), analyses::parse_speedup(".*=1.0")});
  auto rows = analyses::layer_rows(a, run, &s);
  CHECK(rows[0].est_total_ns == 250);
  CHECK(rows[1].est_total_ns == 120);
}

TEST_CASE("layers: per-iteration detail with importer wall times") {
  auto run = two_iterations();
  run.processes[0].iteration_wall_ns = {5000, 6000};
  analyses::LayersAnalysis a;
  feed(run, a);
  auto its = analyses::find_iterations(run);
  REQUIRE(its.range_name == "inference");
  REQUIRE(its.range_ids == std::vector<uint64_t>{1, 4});
  auto d = analyses::iteration_details(a, run, its);
  REQUIRE(d.size() == 2);
  CHECK(d[0].wall_ns == 5000);
  CHECK(d[1].wall_ns == 6000);
  CHECK(d[0].kernel_ns == 450);
  REQUIRE(d[0].layers.size() == 2);
  CHECK(d[0].layers[0].layer == "conv");
  CHECK(d[0].layers[1].layer == "conv/relu");
  CHECK(d[1].kernels[0].name == "gemm");
  CHECK(*d[1].kernels[0].percent == doctest::Approx(100.0 * 600 / 670));
  run.processes[0].iteration_wall_ns.clear();
  auto d2 = analyses::iteration_details(a, run, its);
  CHECK(d2[1].wall_ns == 150);  // the range's own host duration
}

TEST_CASE("layers: per-iteration detail lists ranges without kernels, in host order") {
  auto run = two_iterations();
  run.ranges.push_back(range(7, 1, "alloc"));
  analyses::LayersAnalysis a;
  feed(run, a);
  auto its = analyses::find_iterations(run);
  auto d = analyses::iteration_details(a, run, its);
  REQUIRE(d[0].layers.size() == 3);
  CHECK(d[0].layers[2].layer == "alloc");  // no host times: after the layers with launches
  CHECK(d[0].layers[2].kernels.empty());
  CHECK(d[1].layers.size() == 2);
  // With host times on every range, that order wins.
  for (auto& r : run.ranges)
    r.host_begin_ns = r.host_begin_ns == model::kNoTime ? 1000 - int64_t(r.id) : r.host_begin_ns;
  auto h = analyses::iteration_details(a, run, its);
  CHECK(h[0].layers[0].layer == "alloc");  // id 7: begins at 993, before conv (998)
}

TEST_CASE("ranges: iteration selection") {
  CHECK(analyses::parse_iteration_range("2").first == 2);
  CHECK(analyses::parse_iteration_range("2").last == 2);
  CHECK(analyses::parse_iteration_range("2:5").last == 5);
  CHECK(analyses::parse_iteration_range("3:").last == UINT64_MAX);
  CHECK(analyses::parse_iteration_range(":4").first == 1);
  for (const char* bad : {"", "0", "x", "5:2", ":", "1:2:3", "-1"})
    CHECK_THROWS_AS(analyses::parse_iteration_range(bad), std::invalid_argument);
  analyses::Iterations its{"it", {10, 20, 30, 40}};
  auto sel = analyses::select_iterations(its, analyses::parse_iteration_range("2:"), 2);
  CHECK(sel == std::unordered_set<uint64_t>{30, 40});
}

TEST_CASE("ranges: paths and unknown ranges") {
  model::Run run;
  run.ranges = {range(1, 0, "net"), range(2, 1, "conv1")};
  analyses::RangeIndex idx(run);
  CHECK(idx.path(2) == "net/conv1");
  CHECK(idx.path(0) == "(no layer)");
  CHECK(idx.path(9) == "range#9");
  CHECK(idx.path_below(2, 1) == std::optional<std::string>("conv1"));
  CHECK(!idx.path_below(1, 2));
  CHECK(analyses::find_iterations(run).range_name == "net");  // has children
  model::Run flat;
  flat.ranges = {range(1, 0, "once")};
  CHECK(analyses::find_iterations(flat).range_ids.empty());
}

TEST_CASE("layer timings (Caffe) aggregated per layer and direction") {
  model::Run run;
  run.layer_timings = {
      {"conv1", "forward", 100, 0}, {"conv1", "forward", 300, 1}, {"conv1", "backward", 50, 0}};
  auto rows = analyses::layer_timing_rows(run);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].direction == "forward");
  CHECK(rows[0].stats.median_ns == 200);
  CHECK(rows[1].stats.total_ns == 50);
}

namespace {
analyses::KernelVariant variant(std::string name, std::string hash, std::string options) {
  analyses::KernelVariant v;
  v.name = std::move(name);
  v.known = true;
  v.source_hash = std::move(hash);
  v.options = std::move(options);
  return v;
}
model::Program program(uint64_t id, std::string hash, std::string options) {
  model::Program p;
  p.id = id;
  p.source_hash = std::move(hash);
  p.options = std::move(options);
  return p;
}
}  // namespace

TEST_CASE("kernel variants: row names tell the variants of one name apart") {
  // Written by hand from the rules of kernel_variants.hpp.
  const auto erode = variant("morph", "fnv1a64:d1d1d1d1aaaaaaaa", "-D T=uchar -D OP_ERODE");
  const auto dilate = variant("morph", "fnv1a64:d1d1d1d1aaaaaaaa", "-D T=uchar  -D OP_DILATE");
  const auto other_source = variant("morph", "fnv1a64:e2e2e2e2bbbbbbbb", "-D T=uchar -D OP_ERODE");
  const auto lone = variant("blur", "fnv1a64:d1d1d1d1aaaaaaaa", "-D X");
  {
    // Only the options differ: the words not in both ("-D T=uchar" is common).
    const auto l = analyses::variant_labels({erode, dilate, lone});
    CHECK(l.at(erode) == "morph [-D OP_ERODE]");
    CHECK(l.at(dilate) == "morph [-D OP_DILATE]");
    CHECK(l.at(lone) == "blur");  // one variant: the plain name
  }
  {
    // Sources differ too: the first 8 hex digits of the hash are added.
    const auto l = analyses::variant_labels({erode, dilate, other_source});
    CHECK(l.at(erode) == "morph [-D OP_ERODE, source d1d1d1d1]");
    CHECK(l.at(dilate) == "morph [-D OP_DILATE, source d1d1d1d1]");
    CHECK(l.at(other_source) == "morph [-D OP_ERODE, source e2e2e2e2]");
  }
  {
    // One variant's options are a subset of the other's: both get their whole options, and
    // empty options read "no options".
    const auto a = variant("k", "fnv1a64:1", "-D A"), ab = variant("k", "fnv1a64:1", "-D A -D B");
    const auto none = variant("k", "fnv1a64:1", "");
    auto l = analyses::variant_labels({a, ab});
    CHECK(l.at(a) == "k [-D A]");
    CHECK(l.at(ab) == "k [-D A -D B]");
    l = analyses::variant_labels({none, ab});
    CHECK(l.at(none) == "k [no options]");
    CHECK(l.at(ab) == "k [-D A -D B]");
  }
  {
    // Launches of a program without a record next to a known one.
    analyses::KernelVariant unknown;
    unknown.name = "k";
    const auto known = variant("k", "fnv1a64:1", "-cl-fast-relaxed-math");
    const auto l = analyses::variant_labels({unknown, known});
    CHECK(l.at(unknown) == "k [unknown program]");
    CHECK(l.at(known) == "k [-cl-fast-relaxed-math]");
  }
  {
    // Equal 8-digit prefixes: the second in variant order gets " #2"; long options are cut.
    const auto x = variant("k", "fnv1a64:1234567800000001", "");
    const auto y = variant("k", "fnv1a64:1234567800000002", "");
    auto l = analyses::variant_labels({x, y});
    CHECK(l.at(x) == "k [source 12345678]");
    CHECK(l.at(y) == "k [source 12345678] #2");
    const std::string long_a = "-D A" + std::string(200, 'a'), long_b = "-D B";
    l = analyses::variant_labels({variant("k", "h", long_a), variant("k", "h", long_b)});
    const std::string& cut = l.at(variant("k", "h", long_a));
    CHECK(cut == "k [" + long_a.substr(0, analyses::kMaxVariantTagBytes) + "...]");
  }
}

TEST_CASE("kernel variants: kernels and layers split by program source and options") {
  // Programs 1 and 3 are one source built with the same options (one row), program 2 the
  // same source with others; launch durations 100, 200 (p1), 400 (p2), 800 (p3), all in
  // range 1 "stage". Rows by hand: "op [-D OP=1]" 3 launches 100 + 200 + 800 = 1100 ns,
  // "op [-D OP=2]" 1 launch 400 ns.
  model::Run run;
  run.processes.resize(1);
  run.programs = {program(1, "fnv1a64:d1", "-D OP=1"), program(2, "fnv1a64:d1", "-D OP=2"),
                  program(3, "fnv1a64:d1", "-D OP=1")};
  run.ranges = {range(1, 0, "stage", 0, 10000)};
  const std::pair<uint64_t, int64_t> launches[] = {{1, 100}, {2, 400}, {1, 200}, {3, 800}};
  uint64_t seq = 0;
  for (const auto& [program_id, duration] : launches) {
    auto l = launch("op", 1000 * static_cast<int64_t>(seq + 1), duration, {1}, seq + 1);
    l.program_id = program_id;
    run.launches.push_back(l);
    ++seq;
  }
  analyses::KernelsAnalysis k;
  analyses::LayersAnalysis layers;
  feed(run, k);
  feed(run, layers);
  const auto rows = k.rows(run);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "op [-D OP=1]");
  CHECK(rows[0].stats.count == 3);
  CHECK(rows[0].stats.total_ns == 1100);
  CHECK(rows[1].name == "op [-D OP=2]");
  CHECK(rows[1].stats.count == 1);
  CHECK(rows[1].stats.total_ns == 400);
  const auto lrows = analyses::layer_rows(layers, run, nullptr);
  REQUIRE(lrows.size() == 1);
  REQUIRE(lrows[0].kernels.size() == 2);
  CHECK(lrows[0].kernels[0].name == "op [-D OP=1]");
  CHECK(lrows[0].kernels[0].stats.total_ns == 1100);
  CHECK(lrows[0].kernels[1].name == "op [-D OP=2]");
  // Without the program records (an importer's run): one row by name, 4 launches, 1500 ns.
  const auto plain = k.rows(model::Run{});
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].name == "op");
  CHECK(plain[0].stats.count == 4);
  CHECK(plain[0].stats.total_ns == 1500);
}
