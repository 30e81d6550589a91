// `clprof report` through the real binary: the page's structure for a clprof trace, an
// importer's input and two runs, rather than a byte-golden of the whole page (its CSS and
// layout change for the looks; what must hold is checked here and, rendered, in
// tests/browser). The figures in the page come from the same analyses as the golden cases.
#include <doctest/doctest.h>

#include <string>

#include "cli_support.hpp"
#include "occurrences.hpp"

using clitest::run;
using clprof::test::occurrences;

TEST_CASE("report: one clprof trace, to a file") {
  const std::string out = clitest::temp_dir() + "/basic.html";
  const auto r = run({"report", "@basic.json", "-o", out});
  REQUIRE(r.status == 0);
  CHECK(r.out.empty());
  CHECK(r.err == "clprof: wrote " + out + "\n");
  const std::string p = clitest::read_file(out);
  CHECK(p.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(p.find("<title>clprof report — basic.json</title>") != std::string::npos);
  // basic.json: 3 kernels, 2 iterations of inference {conv1, fc}, 7 launches and 1 transfer
  // on one queue (each wider than a pixel of the 21.5 us it spans), 2 decoded GEMM kernels.
  CHECK(occurrences(p, "class=\"bar\"") == 3);
  CHECK(occurrences(p, "class=\"box\"") == 3);
  CHECK(occurrences(p, "class=\"seg\"") == 4);
  CHECK(occurrences(p, "class=\"span\"") == 8);
  CHECK(occurrences(p, "class=\"point\"") == 2);
  CHECK(p.find(">29.5 µs<") != std::string::npos);  // wall time card (clprof summary: 29.50 us)
  CHECK(p.find(">4.0 KiB<") != std::string::npos);  // bytes moved
  // The CLI's tables, from the column model: every kernels column, values as the table shows them.
  CHECK(p.find("<table class=\"sortable\" data-schema=\"kernels\">") != std::string::npos);
  CHECK(p.find("<td class=\"num\" data-v=\"2000\">2.000 us</td>") !=
        std::string::npos);  // gemmlowp total
  CHECK(p.find("data-schema=\"layers\"") != std::string::npos);
  CHECK(p.find("data-schema=\"gemm\"") != std::string::npos);
  CHECK(occurrences(p, "<script") == 1);
}

TEST_CASE("report: stdout without -o, and an importer's input") {
  const auto r = run({"report", "@../readers/armnn/data/armnn_profile_small_constructed.json"});
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(r.out.find("No device timestamps in this input") != std::string::npos);
  CHECK(occurrences(r.out, "class=\"bar\"") == 7);   // 7 kernels
  CHECK(occurrences(r.out, "class=\"seg\"") == 10);  // 2 inferences x 5 layers with kernels
}

TEST_CASE("report: two runs, BASE against OTHER") {
  const auto r = run({"report", "@basic.json", "@basic_other.json", "--iteration", "2"});
  REQUIRE(r.status == 0);
  const std::string& p = r.out;
  CHECK(p.find("<title>clprof report — basic.json → basic_other.json</title>") !=
        std::string::npos);
  CHECK(p.find("<section id=\"compare\">") != std::string::npos);
  // compare's figures for iteration 2: total 1900 -> 1500 ns.
  CHECK(p.find(">1.5 µs<") != std::string::npos);
  CHECK(p.find("was 1.9 µs") != std::string::npos);
  CHECK(p.find("Selection: --iteration 2.") != std::string::npos);
  CHECK(p.find("data-schema=\"compare_items\"") != std::string::npos);
  CHECK(p.find(">vanished<") != std::string::npos);
  CHECK(p.find(">new<") != std::string::npos);
}
