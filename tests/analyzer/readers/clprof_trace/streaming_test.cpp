// The streaming path (threads, chunked reads) must give the same aggregation as the
// in-memory path on the same file, wherever chunk and thread boundaries fall.
#include <doctest/doctest.h>

#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

// Many short lines: 3 kernels with durations i % 7 + 1 (and, for "b", an 8-byte scalar),
// a transfer every 5th record, a range around every 10 records, then the end record.
// `pad`: every 7th line ends with that many spaces (the shim pads the line before each
// aligned write so).
std::string many_line_trace(int launches, bool with_end, size_t pad = 0) {
  std::string t =
      test::trace_lines({R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
                         R"({"type":"device","id":1,"name":"d"},)"});
  int seq = 0;
  for (int i = 0; i < launches; ++i) {
    if (i % 10 == 0)
      t += R"({"type":"range_begin","id":)" + std::to_string(i / 10 + 1) +
           R"(,"parent":0,"name":"r","tid":1,"host_ns":)" + std::to_string(i) + "},\n";
    const char* name = i % 3 == 0 ? "a" : i % 3 == 1 ? "b" : "c";
    t += R"({"type":"launch","seq":)" + std::to_string(++seq) + R"(,"kernel":")" + name +
         R"(","device_id":1,"gws":[)" + std::to_string(i) + R"(],"lws":)" +
         (i % 2 ? "null" : "[1]") + R"(,"args":)" +
         (i % 3 == 1 ? R"([["scalar",8,"0100000000000000",)" + std::to_string(i) + "]]"
                     : std::string("[]")) +
         R"(,"host_ns":[0,1],"device_ns":[0,0,100,)" + std::to_string(100 + i % 7 + 1) +
         R"(],"status":"complete","ranges":[)" + std::to_string(i / 10 + 1) + "]},\n";
    if (i % 5 == 0)
      t += R"({"type":"transfer","seq":)" + std::to_string(++seq) +
           R"(,"op":"write","device_id":1,"bytes":)" + std::to_string(i) +
           R"(,"blocking":false},)"
           "\n";
    if (i % 10 == 9)
      t += R"({"type":"range_end","id":)" + std::to_string(i / 10 + 1) + R"(,"tid":1,"host_ns":)" +
           std::to_string(i) + "},\n";
  }
  if (with_end)
    t += R"({"type":"end","incomplete":0,"dropped":0}]})"
         "\n";
  if (pad == 0) return t;
  std::string padded;
  int line = 0;
  for (char c : t) {
    if (c == '\n' && ++line % 7 == 0) padded.append(pad, ' ');
    padded += c;
  }
  return padded;
}

test::KernelTotals in_memory_totals(const std::string& path, model::Run& run) {
  readers::Diagnostics diag;
  readers::load_run({path}, "", run, diag);
  test::KernelTotals totals;
  feed(run, totals);
  return totals;
}

}  // namespace

TEST_CASE("streaming equals in-memory for 1 and 2 threads and chunk boundaries mid-line") {
  test::TempDir dir;
  // Lines with trailing spaces (the shim's padding) read as the same records.
  for (size_t pad : {size_t{0}, size_t{1}, size_t{300}}) {
    CAPTURE(pad);
    std::string path = dir.write("many.json", many_line_trace(300, true, pad));
    model::Run full;
    test::KernelTotals expected = in_memory_totals(path, full);
    // What the generator wrote: 100 launches of each kernel, 60 transfers, 30 ranges.
    REQUIRE(expected.rows.size() == 3);
    CHECK(expected.rows["a"].count == 100);
    CHECK(expected.transfers == 60);
    CHECK(full.ranges.size() == 30);

    for (unsigned threads : {1u, 2u}) {
      for (size_t chunk : {size_t{16}, size_t{37}, size_t{100}, size_t{4096}, size_t{1} << 20}) {
        CAPTURE(threads);
        CAPTURE(chunk);
        auto [run, diag, a] = test::stream_totals(path, threads, chunk);
        auto& got = static_cast<test::KernelTotals&>(*a);
        CHECK(got.rows == expected.rows);
        CHECK(got.transfers == expected.transfers);
        CHECK(got.transfer_bytes == expected.transfer_bytes);
        CHECK(diag.warnings.empty());
        REQUIRE(run.ranges.size() == full.ranges.size());
        for (size_t i = 0; i < run.ranges.size(); ++i) {
          CHECK(run.ranges[i].id == full.ranges[i].id);
          CHECK(run.ranges[i].host_end_ns == full.ranges[i].host_end_ns);
        }
        CHECK(run.launches.empty());
      }
    }
  }
}

TEST_CASE("stream_clprof_traces merges several files and uses the requested threads") {
  test::TempDir dir;
  std::string a = dir.write("a.json", many_line_trace(30, true));
  std::string child = many_line_trace(60, true);
  child.replace(child.find(R"("pid":1)"), 7, R"("pid":2,"ppid":1)");
  std::string b = dir.write("b.json", child);
  model::Run full;
  readers::Diagnostics diag;
  readers::load_run({a, b}, "", full, diag);
  test::KernelTotals expected;
  feed(full, expected);
  CHECK(expected.rows["a"].count == 10 + 20);

  model::Run run;
  readers::StreamOptions options;
  options.threads = 2;
  auto got =
      readers::stream_clprof_traces({a, b}, run, test::kernel_totals_factory(), diag, options);
  CHECK(static_cast<test::KernelTotals&>(*got).rows == expected.rows);
  CHECK(run.processes.size() == 2);
  CHECK(run.ranges.size() == 3 + 6);
}
