// Summary figures, interval union, clpeak parsing and --speedup parsing.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "analyses/speedup.hpp"
#include "analyses/summary.hpp"
#include "model_builders.hpp"
#include "readers/clpeak/peak.hpp"

using namespace clprof;

TEST_CASE("union_length: overlaps, adjacency, containment, gaps") {
  std::vector<std::pair<int64_t, int64_t>> v = {{20, 30}, {0, 10},  {5, 12},
                                                {30, 35}, {40, 41}, {21, 22}};
  CHECK(analyses::union_length(v) == 12 + 15 + 1);
  std::vector<std::pair<int64_t, int64_t>> none;
  CHECK(analyses::union_length(none) == 0);
}

TEST_CASE("summary: the busy union streams, exact") {
  // By hand: 200,000 kernels back to back, [10 i, 10 i + 10], then one apart at
  // [3,000,000, 3,000,005] and one inside the first, [55, 56]: busy = 2,000,000 + 5 ns.
  analyses::SummaryAnalysis a;
  const int n = 200000;
  for (int i = 0; i < n; ++i) a.add_launch(unit::launch("k", 10 * i, 10));
  a.add_launch(unit::launch("k", 3000000, 5));
  a.add_launch(unit::launch("k", 55, 1));
  const auto& iv = a.devices().at(1).intervals;
  CHECK(iv.size() == 200002);
  CHECK(iv.length_ns() == 2000000 + 5);
}

TEST_CASE("summary: busy is the union per device, wall the host span, utilization in percent") {
  model::Run run = unit::one_process_run({"A", "B"});
  run.processes[0].host_start_ns = 1000000;
  auto a1 = unit::launch("k", 1000, 500);  // device 1: [1000,1500]
  auto a2 = unit::launch("k", 1200, 500);  // device 1: [1200,1700] -> union 700
  auto b1 = unit::launch("j", 1300, 100);  // device 2: the same clock values, other device
  b1.device = 2;
  run.launches = {a1, a2, b1};
  model::Build build;
  build.host_begin_ns = 0;
  build.host_end_ns = 50;
  run.builds.push_back(build);
  model::Transfer t;
  t.device = 1;
  t.bytes = 100;
  t.start_ns = 0;
  t.end_ns = 40;
  t.host_begin_ns = 190;
  t.host_end_ns = 1400;
  run.transfers.push_back(t);
  analyses::SummaryAnalysis a;
  feed(run, a);
  auto s = analyses::make_summary(a, run, {{1, 0.5}});
  CHECK(s.run.wall_ns == 1400);  // build begin 0 .. transfer end 1400
  CHECK(s.run.device_busy_ns == 700 + 100);
  CHECK(*s.run.utilization == doctest::Approx(100.0 * 800 / 1400));
  CHECK(s.run.launches == 3);
  CHECK(s.run.kernel_ns == 1100);
  CHECK(s.run.transfer_bytes == 100);
  CHECK(s.run.transfer_ns == 40);
  CHECK(s.run.build_ns == 50);
  REQUIRE(s.run.gflop_total);
  CHECK(*s.run.gflop_total == doctest::Approx(0.5));
  REQUIRE(s.devices.size() == 2);
  CHECK(s.devices[0].name == "A");
  CHECK(s.devices[0].figures.device_busy_ns == 700);
  CHECK(s.devices[1].figures.device_busy_ns == 100);
}

TEST_CASE("summary: distinct kernels per device, streamed in two halves and merged") {
  model::Run run;
  run.processes.resize(1);
  auto on = [](const char* name, uint32_t device) {
    auto l = unit::launch(name, 1000, 10);
    l.device = device;
    return l;
  };
  // device 1: k, j, k again; device 2: k, m, m again; device 3: k.
  const std::vector<model::Launch> launches = {on("k", 1), on("j", 1), on("k", 2), on("m", 2),
                                               on("k", 1), on("m", 2), on("k", 3)};
  analyses::SummaryAnalysis a, b;
  for (size_t i = 0; i < launches.size(); ++i) (i % 2 ? a : b).add_launch(launches[i]);
  a.merge(std::move(b));
  auto s = analyses::make_summary(a, run, {});
  CHECK(s.run.kernels_distinct == 3);
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0].figures.kernels_distinct == 2);
  CHECK(s.devices[1].figures.kernels_distinct == 2);
  CHECK(s.devices[2].figures.kernels_distinct == 1);
}

TEST_CASE("summary: importers without host times use the iteration wall times") {
  model::Run run;
  run.processes.resize(1);
  run.processes[0].iteration_wall_ns = {300, 400};
  model::Launch l;
  l.name = "k";
  l.duration_override_ns = 200;
  run.launches.push_back(l);
  analyses::SummaryAnalysis a;
  feed(run, a);
  auto s = analyses::make_summary(a, run, {});
  CHECK(s.run.wall_ns == 700);
  CHECK(s.run.device_busy_ns == 200);
}

TEST_CASE("summary: a device busy longer than the wall time has no utilization, and a warning") {
  // One device; kernels at device [1000, 1600] and [2000, 2400]: busy 600 + 400 = 1000 ns.
  // Host times (start / 10 .. + 10): 100..110 and 200..210, so the wall is 110 ns. Busy
  // over the wall is 909 %: the device and host clocks disagree (issue 34, item 6).
  model::Run run = unit::one_process_run({"Mali-T860"});
  run.launches = {unit::launch("k", 1000, 600), unit::launch("k", 2000, 400)};
  analyses::SummaryAnalysis a;
  feed(run, a);
  auto s = analyses::make_summary(a, run, {});
  CHECK(s.run.wall_ns == 110);
  CHECK(s.run.device_busy_ns == 1000);
  CHECK_FALSE(s.run.utilization);
  REQUIRE(s.devices.size() == 1);
  CHECK_FALSE(s.devices[0].figures.utilization);
  REQUIRE(s.warnings.size() == 1);
  CHECK(
      s.warnings[0].find("device 'Mali-T860': device busy 1000 ns exceeds the wall time 110 ns") !=
      std::string::npos);
  // Exactly 100 %: [0, 110] on the device, host 0..110: shown.
  std::vector<std::string> warnings;
  CHECK(analyses::utilization_or_warn(110, 110, "d", warnings) == doctest::Approx(100.0));
  CHECK(warnings.empty());
}

TEST_CASE("summary: GEMM work unknown when no GEMM call has a known size, 0 without GEMMs") {
  model::Run run;
  run.processes.resize(1);
  run.launches = {unit::launch("k", 1000, 10)};
  analyses::SummaryAnalysis a;
  feed(run, a);
  // Two GEMM calls on device 1, neither decoded: unknown, not 0.
  auto unknown = analyses::make_summary(a, run, {}, std::nullopt, {{1, 2}});
  CHECK_FALSE(unknown.run.gflop_total);
  REQUIRE(unknown.devices.size() == 1);
  CHECK_FALSE(unknown.devices[0].figures.gflop_total);
  CHECK(unknown.run.gemm_calls_unsized == 2);
  REQUIRE(unknown.warnings.size() == 1);
  CHECK(unknown.warnings[0] ==
        "2 GEMM call(s) of unknown size: their work is not in the GEMM GFLOP (unknown: no call "
        "of known size)");
  // Some decoded (0.25 GFLOP), one not: the known part, and the warning.
  auto partial = analyses::make_summary(a, run, {{1, 0.25}}, std::nullopt, {{1, 1}});
  REQUIRE(partial.run.gflop_total);
  CHECK(*partial.run.gflop_total == doctest::Approx(0.25));
  CHECK(partial.warnings.size() == 1);
  // Two devices, one without GEMMs (a known 0), one with 2 GEMMs of unknown size: by hand the
  // run's work is unknown, in either device order (it once depended on the order).
  for (const uint32_t unknown_device : {1u, 2u}) {
    CAPTURE(unknown_device);
    model::Run two = run;
    two.launches.push_back(unit::launch("k", 2000, 10));
    two.launches.back().device = 2;
    analyses::SummaryAnalysis b;
    feed(two, b);
    const auto mixed =
        analyses::make_summary(b, two, {}, std::nullopt, {{unknown_device, uint64_t{2}}});
    CHECK_FALSE(mixed.run.gflop_total);
  }
  // No GEMM call at all: 0 GFLOP is known.
  auto none = analyses::make_summary(a, run, {});
  REQUIRE(none.run.gflop_total);
  CHECK(*none.run.gflop_total == 0.0);
  CHECK(none.warnings.empty());
}

TEST_CASE("clpeak: the captured Debian clpeak output (tests/analyzer/data)") {
  std::ifstream f(std::string(CLPROF_TEST_DATA) + "/clpeak_pocl_epyc.txt");
  std::stringstream ss;
  ss << f.rdbuf();
  auto devices = readers::parse_clpeak(ss.str());
  REQUIRE(devices.size() == 1);
  CHECK(devices[0].platform == "Portable Computing Language");
  CHECK(devices[0].device == "pthread-skylake-avx512-AMD EPYC");
  CHECK(devices[0].best_sp_gflops == doctest::Approx(43.61));  // float16, not double16 40.83
  CHECK(readers::pick_peak(devices, "other") == doctest::Approx(43.61));
}

TEST_CASE("clpeak: several devices, matched by name") {
  const char* text =
      "Platform: P\n  Device: GPU one\n    Single-precision compute (GFLOPS)\n      float   : "
      "10.5\n"
      "      float2  : 20.25\n\n    Double-precision compute (GFLOPS)\n      double : 99.0\n"
      "  Device: CPU two\n    Single-precision compute (GFLOPS)\n      float : 3.0\n";
  auto d = readers::parse_clpeak(text);
  REQUIRE(d.size() == 2);
  CHECK(d[0].best_sp_gflops == doctest::Approx(20.25));
  CHECK(readers::pick_peak(d, "CPU two") == doctest::Approx(3.0));
  CHECK_THROWS_AS(readers::parse_clpeak("nothing here"), std::invalid_argument);
}

TEST_CASE("speedup: parsing and first-match-wins") {
  auto r = analyses::parse_speedup("gemm.*=2.5");
  CHECK(r.pattern == "gemm.*");
  CHECK(r.factor == 2.5);
  CHECK(analyses::parse_speedup("a=b=4").pattern == "a=b");
  for (const char* bad : {"gemm", "=2", "gemm=", "gemm=0", "gemm=-2", "gemm=x", "(=2", "gemm=inf"})
    CHECK_THROWS_AS(analyses::parse_speedup(bad), std::invalid_argument);
  analyses::Speedup s({analyses::parse_speedup("^conv=4"), analyses::parse_speedup("conv=2")});
  CHECK(s.factor_for("conv_x") == 4);
  CHECK(s.factor_for("my_conv") == 2);
  CHECK(s.factor_for("relu") == 1);
  CHECK(s.estimate_ns("conv", 1001) == 250);
}

TEST_CASE("summary: devices of one name in two processes say whose they are") {
  // Two processes (pids 101, 102), each with its own "Dev" (ids 1, 2): by hand, the rows read
  // "Dev (pid 101)" and "Dev (pid 102)", not "Dev" twice (issue 34 item 11).
  model::Run run;
  run.processes.resize(2);
  run.processes[0].pid = 101;
  run.processes[1].pid = 102;
  run.devices.resize(2);
  for (uint32_t i = 0; i < 2; ++i) {
    run.devices[i].id = i + 1;
    run.devices[i].name = "Dev";
    run.devices[i].process = i;
  }
  auto a = unit::launch("k", 1000, 10);
  auto b = unit::launch("k", 1000, 10);
  b.device = 2;
  b.process = 1;
  run.launches = {a, b};
  analyses::SummaryAnalysis s;
  feed(run, s);
  const auto sum = analyses::make_summary(s, run, {});
  REQUIRE(sum.devices.size() == 2);
  CHECK(sum.devices[0].name == "Dev (pid 101)");
  CHECK(sum.devices[1].name == "Dev (pid 102)");
}

TEST_CASE("summary inputs: two shards merged give the figures of one run") {
  // Two one-process shards, each with a device "A" (pid 10 and 20) and launches on the
  // unknown device 0. Shard 1 starts at host 1000000, shard 2 at 1000100.
  auto shard = [](int64_t pid, int64_t start, int64_t device0_start) {
    model::Run run = unit::one_process_run({"A"});
    run.processes[0].pid = pid;
    run.processes[0].host_start_ns = start;
    run.devices[0].process = 0;
    auto k = unit::launch("k", 1000, 500);  // device 1: [1000, 1500], host [100, 110]
    auto z = unit::launch("z", device0_start, 100);
    z.device = 0;
    run.launches = {k, z};
    return run;
  };
  // Device 0: [2000, 2100] and [2050, 2150]: union 150, not 100 + 100.
  model::Run r1 = shard(10, 1000000, 2000), r2 = shard(20, 1000100, 2050);
  analyses::SummaryAnalysis a1, a2;
  feed(r1, a1);
  feed(r2, a2);
  auto in = analyses::summary_inputs(a1, r1, {{1, {0.1}}}, {}, std::nullopt);
  analyses::merge_summary_inputs(
      in, analyses::summary_inputs(a2, r2, {{1, {0.2}}, {0, {0.5}}}, {{0, 3}}, std::nullopt));
  auto s = analyses::finish_summary(in);
  CHECK(s.processes == 2);
  // Host spans: launch host times 100..110 (k) and 200..210, 205..215 (z): shard 1 from
  // 1000100 to 1000210, shard 2 from 1000200 to 1000315: wall 1000315 - 1000100 = 215.
  CHECK(s.run.wall_ns == 215);
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0].device == 0);
  CHECK(s.devices[0].figures.device_busy_ns == 150);
  CHECK(s.devices[0].figures.gemm_calls_unsized == 3);
  // Shard 2's device 1 is the run's device 2; both named A, so each says its pid.
  CHECK(s.devices[1].name == "A (pid 10)");
  CHECK(s.devices[2].name == "A (pid 20)");
  CHECK(s.devices[2].figures.device_busy_ns == 500);
  // GEMM work: 0.1 (device 1) + 0.2 (device 2) + 0.5 (device 0), summed per device then in
  // device order: 0 + 0.5, + 0.1, + 0.2, as the one-run sum goes.
  REQUIRE(s.run.gflop_total);
  CHECK(*s.run.gflop_total == ((0.0 + 0.5) + 0.1) + 0.2);
  CHECK(s.run.kernels_distinct == 2);
  // Partials of different windows do not merge.
  analyses::SummaryInputs other;
  other.window_ns = std::make_pair(int64_t{0}, int64_t{10});
  CHECK_THROWS_AS(analyses::merge_summary_inputs(in, std::move(other)), std::invalid_argument);
}
