// Traces cut short (the recorded process was killed): read up to the last complete record
// with one warning "FILE: trace is truncated (killed?): read N records".
#include <doctest/doctest.h>

#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

const std::string kHead = test::trace_lines(
    {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
     R"({"type":"device","id":1,"name":"d"},)",
     R"({"type":"launch","seq":1,"kernel":"k1","device_id":1,"device_ns":[0,0,10,20]},)",
     R"({"type":"launch","seq":2,"kernel":"k2","device_id":1,"device_ns":[0,0,10,30]},)"});

using Outcome = test::Loaded;

Outcome load(const std::string& content) {
  test::TempDir dir;
  Outcome o = test::load_text(dir, "t.json", content);
  test::name_file_in_warnings(o.diag, o.path);
  return o;
}

Outcome stream(const std::string& content, unsigned threads) {
  test::TempDir dir;
  std::string path = dir.write("t.json", content);
  Outcome o;
  const auto tuning = test::small_chunks(threads, 24);
  auto a = readers::detail::stream_clprof_trace_file(path, o.run, test::kernel_totals_factory(),
                                                     o.diag, tuning);
  for (auto& [name, row] : static_cast<test::KernelTotals&>(*a).rows)
    for (uint64_t i = 0; i < row.count; ++i) o.run.launches.emplace_back().name = name;
  test::name_file_in_warnings(o.diag, path);
  return o;
}

}  // namespace

TEST_CASE("a trace cut in the middle of a line keeps every complete record") {
  const std::string cut = kHead + R"({"type":"launch","seq":3,"kernel":"k3","dev)";
  Outcome o = load(cut);
  CHECK(o.diag.warnings ==
        std::vector<std::string>{"FILE: trace is truncated (killed?): read 3 records"});
  REQUIRE(o.run.processes.size() == 1);
  CHECK(o.run.processes[0].truncated);
  REQUIRE(o.run.launches.size() == 2);
  CHECK(o.run.launches[1].name == "k2");
  CHECK(o.run.launches[1].duration_ns() == 20);
  for (unsigned threads : {1u, 2u}) {
    Outcome s = stream(cut, threads);
    CHECK(s.diag.warnings == o.diag.warnings);
    CHECK(s.run.processes[0].truncated);
    CHECK(s.run.launches.size() == 2);
  }
}

TEST_CASE("a trace cut at a line boundary (no end record) is truncated too") {
  Outcome o = load(kHead);
  CHECK(o.diag.warnings ==
        std::vector<std::string>{"FILE: trace is truncated (killed?): read 3 records"});
  CHECK(o.run.processes[0].truncated);
  CHECK(o.run.launches.size() == 2);
  for (unsigned threads : {1u, 2u}) {
    Outcome s = stream(kHead, threads);
    CHECK(s.diag.warnings == o.diag.warnings);
    CHECK(s.run.launches.size() == 2);
  }
}

TEST_CASE("a trace cut inside a metadata record or right after the header") {
  const std::string cut_meta = kHead + R"({"type":"range_begin","id":4,"na)";
  Outcome o = load(cut_meta);
  CHECK(o.diag.warnings ==
        std::vector<std::string>{"FILE: trace is truncated (killed?): read 3 records"});
  CHECK(o.run.ranges.empty());
  Outcome s = stream(cut_meta, 2);
  CHECK(s.diag.warnings == o.diag.warnings);
  CHECK(s.run.ranges.empty());

  const std::string header_only =
      R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)"
      "\n";
  Outcome h = load(header_only);
  CHECK(h.diag.warnings ==
        std::vector<std::string>{"FILE: trace is truncated (killed?): read 0 records"});
  CHECK(h.run.processes[0].pid == 1);
}

TEST_CASE("a complete trace gives no warning") {
  Outcome o = load(kHead + R"({"type":"end","incomplete":0,"dropped":0}]})"
                           "\n");
  CHECK(o.diag.warnings.empty());
  CHECK_FALSE(o.run.processes[0].truncated);
  Outcome s = stream(kHead + R"({"type":"end"}]})", 2);  // no final newline is fine too
  CHECK(s.diag.warnings.empty());
  CHECK_FALSE(s.run.processes[0].truncated);
}

TEST_CASE(
    "a trace cut at any byte: the complete records before the cut, or an error in the header") {
  const std::string full =
      kHead +
      test::trace_lines(
          {R"({"type":"range_begin","id":1,"parent":0,"name":"r","tid":1,"host_ns":5},)",
           R"({"type":"launch","seq":3,"kernel":"k3","device_id":1,"args":[["scalar",4,"01000000",1]],"device_ns":[0,0,10,40]},)",
           R"({"type":"range_end","id":1,"tid":1,"host_ns":9},)",
           R"({"type":"end","incomplete":0,"dropped":0}]})"});
  const size_t header_end = full.find('\n') + 1;
  const size_t last_line = full.rfind('{');
  test::TempDir dir;
  for (size_t cut = 1; cut < last_line; ++cut) {
    CAPTURE(cut);
    const std::string content = full.substr(0, cut);
    // Records whose text (without "," and "\n") is complete before the cut.
    uint64_t expected = 0;
    for (size_t pos = header_end; pos < cut;) {
      size_t nl = full.find('\n', pos);
      if (nl - 1 <= cut) ++expected;  // nl - 1 is the ","
      pos = nl + 1;
    }
    const std::string expected_warning =
        "FILE: trace is truncated (killed?): read " + std::to_string(expected) + " records";
    std::string path = dir.write("cut.json", content);
    for (bool streaming : {false, true}) {
      CAPTURE(streaming);
      model::Run run;
      readers::Diagnostics diag;
      try {
        if (streaming) {
          const auto tuning = test::small_chunks(2, 40);
          readers::detail::stream_clprof_trace_file(path, run, test::kernel_totals_factory(), diag,
                                                    tuning);
        } else {
          readers::load_run({path}, "clprof", run, diag);
        }
      } catch (const readers::InputError& e) {
        // Only a cut inside the header line may be an error, and it says where.
        CHECK(cut < header_end);
        CHECK(e.line() == 1);
        continue;
      }
      REQUIRE(diag.warnings.size() == 1);
      diag.warnings[0].replace(0, path.size(), "FILE");
      if (cut >= header_end) CHECK(diag.warnings[0] == expected_warning);
      CHECK(run.processes.back().truncated);
    }
  }
}
