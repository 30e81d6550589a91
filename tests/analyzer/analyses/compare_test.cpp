// compare: run figures per iteration and per run, matching, deltas and the --fail-if-slower
// verdict, over in-memory runs. Expected figures are worked out by hand in the comments.
#include <doctest/doctest.h>

#include <algorithm>

#include "analyses/compare.hpp"
#include "analyses/ranges.hpp"
#include "model_builders.hpp"

using namespace clprof;
using analyses::Stat;
using unit::launch;
using unit::range;

namespace {

// Three iterations of "inference" { conv_#4 {gemm, act}, relu_#5 {act} }: gemm 100, 300,
// 200; act in conv 10, 10, 40; act in relu 5, 5, 5; one launch "init" 1000 outside.
model::Run three_iterations() {
  model::Run run;
  run.processes.resize(1);
  uint64_t id = 0, seq = 0;
  const int64_t gemm[] = {100, 300, 200}, act[] = {10, 10, 40};
  run.launches.push_back(launch("init", 10, 1000, {}, ++seq));
  for (int i = 0; i < 3; ++i) {
    const uint64_t it = ++id, conv = ++id, relu = ++id;
    run.ranges.push_back(range(it, 0, "inference", 100 * it, 100 * it + 90));
    run.ranges.push_back(range(conv, it, "conv_#4", 100 * it + 1, 100 * it + 50));
    run.ranges.push_back(range(relu, it, "relu_#5", 100 * it + 51, 100 * it + 80));
    const int64_t t = 10000 * (i + 1);
    run.launches.push_back(launch("gemm", t, gemm[i], {it, conv}, ++seq));
    run.launches.push_back(launch("act", t + 1000, act[i], {it, conv}, ++seq));
    run.launches.push_back(launch("act", t + 2000, 5, {it, relu}, ++seq));
  }
  return run;
}

analyses::RunFigures figures(const model::Run& run, Stat stat, const std::string& label = "run") {
  analyses::ProfileAnalysis a({}, nullptr);
  feed(run, a);
  return analyses::run_figures(label, a, run, analyses::find_iterations(run), nullptr, stat,
                               nullptr);
}

const analyses::Figure* find(const std::vector<std::pair<std::string, analyses::Figure>>& v,
                             const std::string& key) {
  for (const auto& [k, f] : v)
    if (k == key) return &f;
  return nullptr;
}

// A kernel of figures without program records: keyed by its variant (name, program unknown).
const analyses::Figure* find_kernel(const std::vector<std::pair<std::string, analyses::Figure>>& v,
                                    const std::string& name) {
  analyses::KernelVariant unknown;
  unknown.name = name;
  return find(v, analyses::variant_key(unknown));
}

const analyses::CompareItem* item(const analyses::Comparison& c, analyses::Section s,
                                  const std::string& name) {
  for (const auto& sec : c.sections)
    if (sec.section == s)
      for (const auto& it : sec.items)
        if (it.name == name) return &it;
  return nullptr;
}

}  // namespace

TEST_CASE("compare: figures per iteration, by --stat") {
  const auto run = three_iterations();
  // Per iteration: gemm 100, 300, 200; act 15, 15, 45; iteration totals 115, 315, 245.
  auto med = figures(run, Stat::Median);
  CHECK(med.iterations == 3);
  CHECK(med.iteration_range == "inference");
  CHECK(med.total_ns == 245);
  REQUIRE(find_kernel(med.kernels, "gemm"));
  CHECK(find_kernel(med.kernels, "gemm")->time_ns == 200);
  CHECK(find_kernel(med.kernels, "gemm")->count == 3);
  CHECK(find_kernel(med.kernels, "act")->time_ns == 15);
  CHECK(find_kernel(med.kernels, "act")->count == 6);
  CHECK(find_kernel(med.kernels, "init") == nullptr);  // outside the iterations
  CHECK(med.outside_iterations == 1);
  // Layers keyed without Arm NN's event numbers, shown as named.
  REQUIRE(find(med.layers, "conv"));
  CHECK(find(med.layers, "conv")->display == "conv_#4");
  CHECK(find(med.layers, "conv")->time_ns == 240);  // 110, 310, 240
  CHECK(find(med.layers, "relu")->time_ns == 5);
  auto min = figures(run, Stat::Min);
  CHECK(min.total_ns == 115);
  CHECK(find_kernel(min.kernels, "gemm")->time_ns == 100);
  auto mean = figures(run, Stat::Mean);
  CHECK(mean.total_ns == 225);  // 675 / 3
  CHECK(find_kernel(mean.kernels, "act")->time_ns == 25);
}

TEST_CASE("compare: a kernel missing from an iteration counts 0 there") {
  auto run = three_iterations();
  run.launches.push_back(launch("rare", 90000, 60, {1, 2}, 99));  // iteration 1 only
  auto med = figures(run, Stat::Median);
  CHECK(find_kernel(med.kernels, "rare")->time_ns == 0);  // 60, 0, 0
  CHECK(figures(run, Stat::Mean).kernels.size() == 3);
  CHECK(find_kernel(figures(run, Stat::Mean).kernels, "rare")->time_ns == 20);
}

TEST_CASE("compare: a run without iterations is one: launches x the statistic of one") {
  model::Run run;
  run.processes.resize(1);
  run.launches = {launch("k", 0, 100, {}, 1), launch("k", 1000, 100, {}, 2),
                  launch("k", 2000, 400, {}, 3)};
  auto med = figures(run, Stat::Median);
  CHECK(med.iterations == 0);
  CHECK(find_kernel(med.kernels, "k")->time_ns == 300);  // 3 x 100
  CHECK(med.total_ns == 300);
  CHECK(find_kernel(figures(run, Stat::Mean).kernels, "k")->time_ns == 600);  // the total
  CHECK(find_kernel(figures(run, Stat::Min).kernels, "k")->time_ns == 300);
  REQUIRE(med.layers.size() == 1);
  CHECK(med.layers[0].second.display == "(no layer)");
}

TEST_CASE("compare: layer_key drops a trailing _#N of every part") {
  CHECK(analyses::layer_key("ClConvolution2dWorkload_Execute_#4") ==
        "ClConvolution2dWorkload_Execute");
  CHECK(analyses::layer_key("net_#2/conv_#10") == "net/conv");
  CHECK(analyses::layer_key("conv_#") == "conv_#");
  CHECK(analyses::layer_key("conv_#4a") == "conv_#4a");
  CHECK(analyses::layer_key("a//b") == "a//b");
  CHECK(analyses::layer_key("") == "");
}

TEST_CASE("compare: the k-th layer of a name matches the k-th in the other run") {
  // Base: conv_#3, conv_#4 (100, 200 per iteration); other: conv_#7, conv_#9 (150, 100).
  auto make = [](const char* a, const char* b, int64_t ta, int64_t tb) {
    model::Run run;
    run.processes.resize(1);
    for (uint64_t i = 0; i < 2; ++i) {
      const uint64_t it = 10 * i + 1;
      run.ranges.push_back(range(it, 0, "inference", 1000 * it, 1000 * it + 900));
      run.ranges.push_back(range(it + 1, it, a, 1000 * it + 1, 1000 * it + 100));
      run.ranges.push_back(range(it + 2, it, b, 1000 * it + 200, 1000 * it + 300));
      run.launches.push_back(launch("conv", 100000 * (1 + i), ta, {it, it + 1}, 1 + 2 * i));
      run.launches.push_back(launch("conv", 100000 * (1 + i) + 5000, tb, {it, it + 2}, 2 + 2 * i));
    }
    return run;
  };
  const auto base = figures(make("conv_#3", "conv_#4", 100, 200), Stat::Median, "a");
  const auto other = figures(make("conv_#7", "conv_#9", 150, 100), Stat::Median, "b");
  const auto c = analyses::compare_runs(base, other);
  const auto* first = item(c, analyses::Section::Layers, "conv_#3");
  const auto* second = item(c, analyses::Section::Layers, "conv_#4");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(first->other->time_ns == 150);
  CHECK(first->other->display == "conv_#7");
  CHECK(second->other->time_ns == 100);
  CHECK(c.sections[1].items.size() == 2);  // nothing new, nothing vanished
}

TEST_CASE("compare: deltas, speedups, new and vanished, order by time") {
  const auto base_run = three_iterations();
  auto other_run = three_iterations();
  // The other run: gemm twice as fast, act gone from relu, a new kernel "fused" there.
  for (auto& l : other_run.launches) {
    if (l.name == "gemm") l.end_ns = l.start_ns + (l.end_ns - l.start_ns) / 2;
    if (l.name == "act" && l.ranges.size() == 2 && l.ranges[1] % 3 == 0) l.name = "fused";
  }
  other_run.launches.erase(std::remove_if(other_run.launches.begin(), other_run.launches.end(),
                                          [](const model::Launch& l) { return l.name == "act"; }),
                           other_run.launches.end());
  const auto c = analyses::compare_runs(figures(base_run, Stat::Median, "base"),
                                        figures(other_run, Stat::Median, "other"));
  REQUIRE(c.sections.size() == 2);  // no GEMM figures asked for
  const auto& k = c.sections[0].items;
  REQUIRE(k.size() == 3);
  CHECK(k[0].name == "gemm");  // 200 -> 100
  CHECK(*k[0].delta_ns() == -100);
  CHECK(*k[0].delta_percent() == doctest::Approx(-50));
  CHECK(*k[0].speedup() == doctest::Approx(2));
  CHECK(std::string(k[0].status()) == "faster");
  CHECK(*k[0].base_share == doctest::Approx(100.0 * 200 / 245));
  CHECK(k[1].name == "act");
  CHECK(std::string(k[1].status()) == "vanished");
  CHECK_FALSE(k[1].delta_ns());
  CHECK(k[2].name == "fused");
  CHECK(std::string(k[2].status()) == "new");
  CHECK_FALSE(k[2].base_share);
  // Other totals per iteration: 50+5, 150+5, 100+5 -> median 105.
  CHECK(c.other_total_ns == 105);
  CHECK(*c.total_speedup() == doctest::Approx(245.0 / 105));
  CHECK(c.notes.size() == 2);  // "init" outside the iterations, in each run
}

TEST_CASE("compare: --fail-if-slower names the total and kernels above --min-share") {
  const auto base_run = three_iterations();
  auto other_run = three_iterations();
  for (auto& l : other_run.launches)
    if (l.name == "act") l.end_ns = l.start_ns + (l.end_ns - l.start_ns) * 2;
  // act: 15 -> 30 per iteration (+100%, share 15/245 = 6.1%); total 245 -> 290 (+18.4%).
  const auto c =
      analyses::compare_runs(figures(base_run, Stat::Median), figures(other_run, Stat::Median));
  auto offenders = analyses::slower_than(c, 10, 1);
  REQUIRE(offenders.size() == 2);
  CHECK(offenders[0].what == "total");
  CHECK(offenders[0].delta_percent == doctest::Approx(100.0 * 45 / 245));
  CHECK(offenders[1].what == "kernel act");
  CHECK(offenders[1].base_ns == 15);
  CHECK(offenders[1].other_ns == 30);
  // Above 20%: only act; a --min-share above its 6.1% leaves it out.
  CHECK(analyses::slower_than(c, 20, 1).size() == 1);
  CHECK(analyses::slower_than(c, 20, 7).empty());
  CHECK(analyses::slower_than(c, 100, 1).empty());  // exactly +100% is not more than 100
  // Faster is never an offence.
  const auto back =
      analyses::compare_runs(figures(other_run, Stat::Median), figures(base_run, Stat::Median));
  CHECK(analyses::slower_than(back, 0, 0).empty());
}

TEST_CASE("compare: mixed units are said in a note") {
  model::Run flat;
  flat.processes.resize(1);
  flat.launches = {launch("gemm", 0, 100, {}, 1)};
  const auto c = analyses::compare_runs(figures(three_iterations(), Stat::Median, "a"),
                                        figures(flat, Stat::Median, "b"));
  REQUIRE(!c.notes.empty());
  CHECK(c.notes[0].find("a has 3 iterations of 'inference', b none") == 0);
  CHECK(c.sections[0].unit == "per iteration (base), per run (other)");
}

TEST_CASE("compare: parse_stat") {
  CHECK(analyses::parse_stat("median") == Stat::Median);
  CHECK(analyses::parse_stat("min") == Stat::Min);
  CHECK(analyses::parse_stat("mean") == Stat::Mean);
  CHECK_FALSE(analyses::parse_stat("max"));
  CHECK_FALSE(analyses::parse_stat(""));
}

namespace {
// A run without iterations: kernel "op" of program p launched once per (p, duration) pair,
// the programs one source ("fnv1a64:1") built with the options given per id.
model::Run programs_run(const std::vector<std::pair<uint64_t, std::string>>& programs,
                        const std::vector<std::pair<uint64_t, int64_t>>& launches) {
  model::Run run;
  run.processes.resize(1);
  for (const auto& [id, options] : programs) {
    model::Program& p = run.programs.emplace_back();
    p.id = id;
    p.source_hash = "fnv1a64:1";
    p.options = options;
  }
  uint64_t seq = 0;
  for (const auto& [id, duration] : launches) {
    auto l = launch("op", 1000 * static_cast<int64_t>(++seq), duration, {}, seq);
    l.program_id = id;
    run.launches.push_back(l);
  }
  return run;
}
}  // namespace

TEST_CASE("compare: kernel variants") {
  // --stat mean without iterations: a kernel's time is its total.
  {
    // One variant of "op" in each run, built with other options: the same kernel compared
    // (by name), shown by its plain name: base 100 + 300 = 400 ns, other 250 ns.
    const auto c = analyses::compare_runs(
        figures(programs_run({{1, "-D A"}}, {{1, 100}, {1, 300}}), Stat::Mean, "base"),
        figures(programs_run({{1, "-D B"}}, {{1, 250}}), Stat::Mean, "other"));
    const auto* op = item(c, analyses::Section::Kernels, "op");
    REQUIRE(op);
    REQUIRE(op->base);
    REQUIRE(op->other);
    CHECK(op->base->time_ns == 400);
    CHECK(op->other->time_ns == 250);
  }
  {
    // The base has two variants (-D A: programs 1 and 3, 100 + 200 = 300 ns; -D B: 50 ns), the
    // other one (-D A, 700 ns): matched variant by variant and named over both runs, so the
    // other's lone "op" is "op [-D A]" there too, and op [-D B] vanished.
    const auto c = analyses::compare_runs(
        figures(
            programs_run({{1, "-D A"}, {2, "-D B"}, {3, "-D A"}}, {{1, 100}, {2, 50}, {3, 200}}),
            Stat::Mean, "base"),
        figures(programs_run({{1, "-D A"}}, {{1, 700}}), Stat::Mean, "other"));
    const auto* a = item(c, analyses::Section::Kernels, "op [-D A]");
    const auto* b = item(c, analyses::Section::Kernels, "op [-D B]");
    REQUIRE(a);
    REQUIRE(b);
    REQUIRE(a->base);
    REQUIRE(a->other);
    CHECK(a->base->time_ns == 300);
    CHECK(a->base->count == 2);
    CHECK(a->other->time_ns == 700);
    CHECK(std::string(b->status()) == "vanished");
    CHECK(b->base->time_ns == 50);
    CHECK(item(c, analyses::Section::Kernels, "op") == nullptr);
  }
}
