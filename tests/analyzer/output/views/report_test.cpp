// The report over in-memory runs: box-plot statistics, the page's structure, its limits and
// its escaping of hostile names (the browser test renders a real run: tests/browser).
#include <doctest/doctest.h>

#include <string>

#include "analyses/ranges.hpp"
#include "model_builders.hpp"
#include "occurrences.hpp"
#include "output/views/report.hpp"
#include "output/views/report_charts.hpp"
#include "output/views/report_data.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

using clprof::test::occurrences;
using namespace clprof;
using unit::launch;
using unit::range;
namespace report = clprof::output::report;

namespace {

// `kernels` kernels, each launched `per` times in each of 2 iterations of "inference" {conv}.
model::Run run_with(const std::vector<std::string>& kernels, int per = 1) {
  model::Run run = unit::one_process_run({"Dev"});
  run.processes[0].pid = 42;
  uint64_t seq = 0;
  int64_t t = 1000;
  for (uint64_t it = 0; it < 2; ++it) {
    const uint64_t iter = 10 * it + 1, conv = iter + 1;
    run.ranges.push_back(range(iter, 0, "inference", 100 * t, 100 * t + 50));
    run.ranges.push_back(range(conv, iter, "conv", 100 * t + 1, 100 * t + 40));
    for (size_t k = 0; k < kernels.size(); ++k)
      for (int p = 0; p < per; ++p) {
        run.launches.push_back(
            launch(kernels[k], t, 100 * static_cast<int64_t>(k + 1) + p, {iter, conv}, ++seq));
        t += 1000;
      }
  }
  return run;
}

report::RunReport finished(const model::Run& run, const std::string& label, bool figures = false) {
  report::ReportAnalysis a({}, figures ? gemm::shared_builtin_rules() : nullptr);
  feed(run, a);
  return report::finish_report(label, std::move(a), run, analyses::find_iterations(run), nullptr, 0,
                               figures, analyses::Stat::Median);
}

std::string page(const model::Run& run) {
  return report::render_page({finished(run, "run.json")}, nullptr, {});
}

}  // namespace

TEST_CASE("report: box-plot statistics (quartiles by interpolation, Tukey whiskers)") {
  std::vector<int64_t> v = {10, 1, 2, 3, 4, 5, 6, 7, 8, 100};
  const auto d = report::distribution("k", v);
  CHECK(d.count == 10);
  CHECK(d.min == 1);
  CHECK(d.max == 100);
  // Sorted 1..8, 10, 100: q1 at position 2.25 -> 3.25, median at 4.5 -> 5.5, q3 at 6.75 -> 7.75.
  CHECK(d.q1 == doctest::Approx(3.25));
  CHECK(d.median == doctest::Approx(5.5));
  CHECK(d.q3 == doctest::Approx(7.75));
  // IQR 4.5: fences -3.5 and 14.5; 100 is the only outlier, the whisker ends at 10.
  CHECK(d.whisker_lo == 1);
  CHECK(d.whisker_hi == 10);
  CHECK(d.outliers_total == 1);
  REQUIRE(d.outliers.size() == 1);
  CHECK(d.outliers[0] == 100);
  std::vector<int64_t> many;
  for (int i = 0; i < 100; ++i) many.push_back(50);
  for (int i = 0; i < 30; ++i) many.push_back(1), many.push_back(1000 + i);
  const auto m = report::distribution("m", many);
  CHECK(m.outliers_total == 60);
  CHECK(m.outliers.size() == report::kMaxOutliers);
  CHECK(m.outliers.back() == 1029);  // the highest are kept
  std::vector<int64_t> none;
  CHECK(report::distribution("z", none).count == 0);
}

TEST_CASE("report: one run gives every section, one mark per kernel") {
  const std::string p = page(run_with({"gemm", "relu", "pool"}));
  CHECK(p.rfind("<!DOCTYPE html>", 0) == 0);
  for (const char* id :
       {"summary", "kernels", "layers", "gemm", "distributions", "timeline", "tables"})
    CHECK_MESSAGE(p.find(std::string("<section id=\"") + id + "\">") != std::string::npos, id);
  CHECK(occurrences(p, "class=\"bar\"") == 3);
  CHECK(occurrences(p, "class=\"box\"") == 3);
  CHECK(occurrences(p, "class=\"seg\"") == 2);   // 2 iterations x 1 layer
  CHECK(occurrences(p, "class=\"span\"") == 6);  // 6 launches, each wider than a pixel
  CHECK(occurrences(p, "<table class=\"sortable\"") >= 3);
  CHECK(p.find("<td>gemm</td>") != std::string::npos);
  CHECK(p.find("No GEMM launches decoded") != std::string::npos);
  CHECK(p.find("Device clock: the run records no device-to-host clock offset") !=
        std::string::npos);
}

TEST_CASE("report: the page is self-contained and its one script is ours") {
  const std::string p =
      page(run_with({"<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>"}));
  CHECK(occurrences(p, "<script") == 1);
  CHECK(occurrences(p, "</script>") == 1);
  CHECK(p.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(p.find("<img") == std::string::npos);
  CHECK(p.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  for (const char* external :
       {"http://", "https://", "src=\"", "url(", "@import", "<link", "<iframe"})
    CHECK_MESSAGE(p.find(external) == std::string::npos, external);
}

TEST_CASE("report: limits are kept and said") {
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i) names.push_back("k" + std::to_string(i));
  const std::string p = page(run_with(names));
  CHECK(occurrences(p, "class=\"bar\"") == report::kMaxBars + 1);  // and one for the other 5
  CHECK(
      p.find("The 25 kernels with the most time of 30; the other 5 are summed in the last bar.") !=
      std::string::npos);
  CHECK(occurrences(p, "class=\"box\"") == report::kMaxBoxes);
  CHECK(p.find("The 20 kernels with the most time of 30.") != std::string::npos);
}

TEST_CASE("report: intervals narrower than a pixel are drawn together") {
  // 2000 launches of 100 ns one after the other: far more than the lane's ~700 pixels.
  const std::string p = page(run_with({"tiny"}, 1000));
  const size_t spans = occurrences(p, "class=\"span\"");
  CHECK(spans > 100);
  CHECK(spans < 1500);
}

TEST_CASE("report: the timeline is on the host clock when the run records the offset") {
  auto run = run_with({"gemm"});
  run.devices[0].has_clock_offset = true;
  run.devices[0].device_to_host_offset_ns = -500;
  run.processes[0].host_start_ns = 1000000;
  CHECK(report::host_time(run, 0, 1, 2000) == 1000000 + 1500);
  CHECK_FALSE(report::host_time(run, 0, 2, 2000));  // an unknown device
  CHECK(page(run).find("placed on the host clock") != std::string::npos);
}

TEST_CASE("report: host lanes show ranges, library calls, builds and waits before the queues") {
  // run_with: 2 top-level "inference" ranges; add one build and one clFinish. By hand: with a
  // host clock, pid 42 gets the lanes "host ranges" (2 intervals), "host builds" (1) and
  // "host waits" (1), in that order, then its queue; no "host library calls" (none made).
  auto run = run_with({"gemm"});
  run.devices[0].has_clock_offset = true;
  run.processes[0].host_start_ns = 1000000;
  model::Build b;
  b.api = "clBuildProgram";
  b.host_begin_ns = 10;
  b.host_end_ns = 90;
  run.builds.push_back(b);
  model::Sync y;
  y.api = "clFinish";
  y.host_begin_ns = 300000;
  y.host_end_ns = 300500;
  run.syncs.push_back(y);
  const auto r = finished(run, "run.json");
  REQUIRE(r.timeline.lanes.size() == 4);
  CHECK(r.timeline.lanes[0].label == "pid 42 · host ranges");
  CHECK(r.timeline.lanes[0].intervals.size() == 2);
  CHECK(r.timeline.lanes[1].label == "pid 42 · host builds");
  REQUIRE(r.timeline.lanes[1].intervals.size() == 1);
  // The build on the absolute host clock: host start 1000000 + 10 .. + 90.
  CHECK(r.timeline.lanes[1].intervals[0].begin == 1000010);
  CHECK(r.timeline.lanes[1].intervals[0].end == 1000090);
  CHECK(r.timeline.lanes[2].label == "pid 42 · host waits");
  CHECK(r.timeline.lanes[3].label == "pid 42 · Dev · queue 0");
  const std::string p = report::render_page({r}, nullptr, {});
  CHECK(p.find("program builds") != std::string::npos);
  CHECK(p.find("Builds (clprof builds)") != std::string::npos);
  // Without a host clock there are no host lanes: device clocks cannot be placed beside them.
  run.devices[0].has_clock_offset = false;
  CHECK(finished(run, "run.json").timeline.lanes.size() == 1);
}

TEST_CASE("report: two runs open with their comparison") {
  const auto base = finished(run_with({"gemm", "relu"}), "a.json", true);
  const auto other = finished(run_with({"gemm", "fused"}), "b.json", true);
  auto c = analyses::compare_runs(*base.figures, *other.figures);
  const std::string p = report::render_page({base, other}, &c, {});
  CHECK(p.find("<section id=\"compare\">") != std::string::npos);
  CHECK(p.find("<section id=\"other-kernels\">") != std::string::npos);
  CHECK(p.find("<section id=\"base-kernels\">") != std::string::npos);
  CHECK(p.find(">vanished<") != std::string::npos);  // relu, in the paired bars
  CHECK(p.find(">new<") != std::string::npos);       // fused
  CHECK(p.find("clprof report — a.json → b.json") != std::string::npos);
}

TEST_CASE("report: What to fix first lists advise's findings, linked to their evidence") {
  // run_with's launches pass no local size (unit::launch): default-local-size fires at info
  // for all 3 kernels x 2 iterations = 6 launches; its evidence is the kernels section.
  const std::string p = page(run_with({"gemm", "relu", "pool"}));
  const size_t fix = p.find("<section id=\"fix\"><h2>What to fix first</h2>");
  REQUIRE(fix != std::string::npos);
  CHECK(fix < p.find("<section id=\"summary\">"));  // the page's first section
  CHECK(p.find("<a href=\"#fix\">What to fix first</a>") != std::string::npos);
  const size_t item = p.find("<b>6 launches with a NULL local size</b>", fix);
  REQUIRE(item != std::string::npos);
  CHECK(p.find("default-local-size · info", item) != std::string::npos);
  CHECK(p.find("<a href=\"#kernels\">evidence</a>", item) != std::string::npos);
  CHECK(p.find("Not evaluated: ", fix) != std::string::npos);
  // Its subjects, the three kernels, link to their rows in the kernels table, which carry
  // those ids (once each).
  for (const std::string k : {"gemm", "relu", "pool"}) {
    CAPTURE(k);
    CHECK(p.find("<a href=\"#row-kernel-" + k + "\">" + k + "</a>", item) != std::string::npos);
    const size_t row = p.find("<tr id=\"row-kernel-" + k + "\">");
    CHECK(row != std::string::npos);
    CHECK(p.find("<tr id=\"row-kernel-" + k + "\">", row + 1) == std::string::npos);
  }
}

TEST_CASE("report: with two runs, OTHER's findings that BASE lacks are marked new") {
  // BASE: gemm and relu without a local size (one finding, subjects gemm, relu); OTHER: the
  // same plus 'fused' (subjects differ: new). OTHER with BASE's kernels again: not new.
  const auto base = finished(run_with({"gemm", "relu"}), "a.json", true);
  const auto other = finished(run_with({"gemm", "relu", "fused"}), "b.json", true);
  auto c = analyses::compare_runs(*base.figures, *other.figures);
  std::string p = report::render_page({base, other}, &c, {});
  const size_t fix = p.find("<section id=\"other-fix\">");
  REQUIRE(fix != std::string::npos);
  CHECK(p.find("new in OTHER", fix) < p.find("<section id=\"base-fix\">"));
  CHECK(p.find("<a href=\"#other-kernels\">evidence</a>", fix) != std::string::npos);
  // OTHER's links go to OTHER's rows (ids prefixed as its sections are).
  CHECK(p.find("<a href=\"#other-row-kernel-fused\">fused</a>", fix) != std::string::npos);
  CHECK(p.find("<tr id=\"other-row-kernel-fused\">") != std::string::npos);
  const auto same = finished(run_with({"gemm", "relu"}), "c.json", true);
  c = analyses::compare_runs(*base.figures, *same.figures);
  p = report::render_page({base, same}, &c, {});
  CHECK(p.find("new in OTHER") == std::string::npos);
}
