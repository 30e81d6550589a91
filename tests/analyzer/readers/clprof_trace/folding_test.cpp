// Folded ranges (LoadOptions::fold_ranges): a reading thread that sees a range begin and end
// keeps only its name and parent. Whatever the threads and chunk sizes, every launch's
// range path, the ranges' host span and the problems must be those of the whole read.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "analyses/ranges.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

// `iterations` top-level "iter" ranges (ids 4k+1), each around the layers "conv" (4k+2,
// holding "relu", 4k+3) and "fc" (4k+4), one launch in each layer; the range records'
// host times count up from 1000 in steps of 10, one step a range record. The first range begins
// after the first launch, so the prefix (read whole, in order) holds no range.
std::string nested_trace(int iterations) {
  std::string t = test::trace_lines(
      {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
       R"({"type":"device","id":1,"name":"d"},)",
       R"({"type":"launch","seq":1,"kernel":"k0","device_id":1,"gws":[1],"lws":null,"args":[],"host_ns":[0,1],"device_ns":[0,0,1,2],"status":"complete","ranges":[]},)"});
  int64_t now = 1000;
  int seq = 1;
  auto begin = [&](int id, int parent, const char* name) {
    t += R"({"type":"range_begin","id":)" + std::to_string(id) + R"(,"parent":)" +
         std::to_string(parent) + R"(,"name":")" + name + R"(","tid":1,"host_ns":)" +
         std::to_string(now += 10) + "},\n";
  };
  auto end = [&](int id) {
    t += R"({"type":"range_end","id":)" + std::to_string(id) + R"(,"tid":1,"host_ns":)" +
         std::to_string(now += 10) + "},\n";
  };
  auto launch = [&](const std::string& chain) {
    t += R"({"type":"launch","seq":)" + std::to_string(++seq) +
         R"(,"kernel":"k","device_id":1,"gws":[1],"lws":null,"args":[],"host_ns":[0,1],)"
         R"("device_ns":[0,0,1,2],"status":"complete","ranges":[)" +
         chain + "]},\n";
  };
  for (int k = 0; k < iterations; ++k) {
    const int it = 4 * k + 1, conv = it + 1, relu = it + 2, fc = it + 3;
    const std::string i = std::to_string(it), c = std::to_string(conv);
    begin(it, 0, "iter");
    begin(conv, it, "conv");
    launch(i + "," + c);
    begin(relu, conv, "relu");
    launch(i + "," + c + "," + std::to_string(relu));
    end(relu);
    end(conv);
    begin(fc, it, "fc");
    launch(i + "," + std::to_string(fc));
    end(fc);
    end(it);
  }
  t += R"({"type":"end","incomplete":0,"dropped":0}]})"
       "\n";
  return t;
}

// The start of the small cases: the header, a device, a launch (so that the prefix read
// in order ends) and top-level range 1 "a" at host 10.
const std::string kSmallHead = test::trace_lines(
    {R"({"format":"clprof-trace","version":1,"header":{"pid":1},"records":[)",
     R"({"type":"device","id":1,"name":"d"},)",
     R"({"type":"launch","seq":1,"kernel":"k","device_id":1,"gws":[1],"lws":null,"args":[],"host_ns":[0,1],"device_ns":[0,0,1,2],"status":"complete","ranges":[]},)",
     R"({"type":"range_begin","id":1,"parent":0,"name":"a","tid":1,"host_ns":10},)"});

// Every launch's innermost range path, in file order.
std::vector<std::string> paths(const model::Run& run, const test::CollectAll& all) {
  const analyses::RangeIndex index(run);
  std::vector<std::string> out;
  for (const auto& l : all.launches) out.push_back(index.path(analyses::innermost_range(l)));
  return out;
}

}  // namespace

TEST_CASE("folded ranges give every launch the path of the whole read, whatever the threads") {
  test::TempDir dir;
  const int iterations = 300;
  const std::string path = dir.write("nested.json", nested_trace(iterations));
  model::Run whole;
  readers::Diagnostics whole_diag;
  readers::load_run({path}, "", whole, whole_diag);
  test::CollectAll whole_all;
  feed(whole, whole_all);
  // By hand: 4 ranges an iteration; 1 + 3 launches an iteration.
  REQUIRE(whole.ranges.size() == 4 * iterations);
  const auto expected = paths(whole, whole_all);
  REQUIRE(expected.size() == 1 + 3 * iterations);
  CHECK(expected[0] == "(no layer)");
  CHECK(expected[1] == "iter/conv");
  CHECK(expected[2] == "iter/conv/relu");
  CHECK(expected[3] == "iter/fc");

  for (bool keep_top : {false, true}) {
    for (unsigned threads : {1u, 2u, 3u}) {
      for (size_t chunk : {size_t{64}, size_t{1000}, size_t{1} << 20}) {
        CAPTURE(keep_top);
        CAPTURE(threads);
        CAPTURE(chunk);
        readers::detail::TraceStreamTuning tuning = test::small_chunks(threads, chunk);
        tuning.fold_ranges = true;
        tuning.keep_top_level_ranges = keep_top;
        model::Run run;
        readers::Diagnostics diag;
        auto a = readers::detail::stream_clprof_trace_file(path, run, test::collect_all_factory(),
                                                           diag, tuning);
        const auto& all = static_cast<const test::CollectAll&>(*a);
        CHECK(paths(run, all) == expected);
        CHECK(diag.warnings.empty());
        // Every range is either whole or folded, never both, never lost.
        CHECK(run.ranges.size() + run.folded_ranges.count() == whole.ranges.size());
        for (const auto& r : run.ranges) CHECK_FALSE(run.folded_ranges.contains(r.id));
        if (keep_top) {
          // The iterations stay whole: all 300 of them, and at most the few layers open
          // at a thread's boundary besides.
          size_t top = 0;
          for (const auto& r : run.ranges) top += r.parent == 0;
          CHECK(top == static_cast<size_t>(iterations));
          CHECK(run.ranges.size() <= iterations + 2 * threads);
          const auto its = analyses::find_iterations(run);
          CHECK(its.range_name == "iter");
          CHECK(its.range_ids.size() == static_cast<size_t>(iterations));
        } else {
          // Each thread leaves at most its boundary's open ranges (depth 3) unfolded.
          CHECK(run.ranges.size() <= 3 * threads);
        }
        // The host span the folded ranges cover: the first range begins at 1010 (the
        // first range record), the last ends at 1000 + 8 * 10 * iterations (8 range
        // records an iteration, each 10 ns after the one before).
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (const auto& r : run.ranges) {
          lo = std::min(lo, r.host_begin_ns);
          hi = std::max(hi, r.host_end_ns);
        }
        const auto span = run.folded_ranges.span(0);
        lo = std::min(lo, span.begin_ns);
        hi = std::max(hi, span.end_ns);
        CHECK(lo == 1010);
        CHECK(hi == 1000 + 8 * 10 * iterations);
      }
    }
  }
}

TEST_CASE("a folded read reports a range id opened twice as the whole read does") {
  // By hand: range 2 begins while open (skipped: "is open already"); its first end closes
  // it, the second end names no open range (skipped: "is not open").
  const std::string t =
      kSmallHead +
      test::trace_lines(
          {R"({"type":"range_begin","id":2,"parent":1,"name":"b","tid":1,"host_ns":20},)",
           R"({"type":"range_begin","id":2,"parent":1,"name":"c","tid":1,"host_ns":30},)",
           R"({"type":"launch","seq":2,"kernel":"k","device_id":1,"gws":[1],"lws":null,"args":[],"host_ns":[0,1],"device_ns":[0,0,1,2],"status":"complete","ranges":[1,2]},)",
           R"({"type":"range_end","id":2,"tid":1,"host_ns":40},)",
           R"({"type":"range_end","id":2,"tid":1,"host_ns":50},)",
           R"({"type":"range_end","id":1,"tid":1,"host_ns":60},)",
           R"({"type":"end","incomplete":0,"dropped":0}]})"});
  test::TempDir dir;
  const std::string path = dir.write("twice.json", t);
  for (bool fold : {false, true}) {
    CAPTURE(fold);
    readers::detail::TraceStreamTuning tuning = test::small_chunks(1, 1 << 20);
    tuning.fold_ranges = fold;
    tuning.keep_top_level_ranges = false;
    model::Run run;
    readers::Diagnostics diag;
    auto a = readers::detail::stream_clprof_trace_file(path, run, test::collect_all_factory(), diag,
                                                       tuning);
    const auto& all = static_cast<const test::CollectAll&>(*a);
    REQUIRE(all.launches.size() == 2);
    CHECK(analyses::RangeIndex(run).path(analyses::innermost_range(all.launches[1])) == "a/b");
    std::string said;
    for (const auto& w : diag.warnings) said += w + "\n";
    // The problems are counted together, the first one named.
    CHECK(said.find("skipped 2 records") != std::string::npos);
    CHECK(said.find("the first: range_begin record: range 2 is open already") != std::string::npos);
    CHECK(run.ranges.size() + run.folded_ranges.count() == 2);
  }
}

TEST_CASE("a folded read warns of inverted and orphaned ranges as the whole read does") {
  // By hand: range 2 ends (host 5) before it begins (host 20): one inverted range; range 3
  // names parent 9, which no record begins: one orphan. Both folded (begun and ended after
  // the first launch), so their checks run on the folded table.
  const std::string t =
      kSmallHead +
      test::trace_lines(
          {R"({"type":"range_begin","id":2,"parent":1,"name":"back","tid":1,"host_ns":20},)",
           R"({"type":"range_end","id":2,"tid":1,"host_ns":5},)",
           R"({"type":"range_begin","id":3,"parent":9,"name":"lost","tid":1,"host_ns":30},)",
           R"({"type":"range_end","id":3,"tid":1,"host_ns":40},)",
           R"({"type":"range_end","id":1,"tid":1,"host_ns":60},)",
           R"({"type":"end","incomplete":0,"dropped":0}]})"});
  test::TempDir dir;
  const std::string path = dir.write("odd.json", t);
  std::vector<std::string> said[2];
  for (bool fold : {false, true}) {
    readers::StreamOptions options;
    options.threads = 1;
    options.fold_ranges = fold;
    options.keep_top_level_ranges = false;
    model::Run run;
    readers::Diagnostics diag;
    readers::stream_clprof_traces({path}, run, test::collect_all_factory(), diag, options);
    CHECK(run.folded_ranges.count() == (fold ? 3u : 0u));
    said[fold] = diag.warnings;
  }
  CHECK(said[0] == said[1]);
  std::string all;
  for (const auto& w : said[1]) all += w + "\n";
  CHECK(all.find("1 record(s) whose host end comes before their host begin") != std::string::npos);
  CHECK(all.find("(first: range 'back' in " + path + ")") != std::string::npos);
  CHECK(all.find("1 range(s) whose parent range no input defines") != std::string::npos);
  CHECK(all.find("(first: 'lost' in " + path + ")") != std::string::npos);
}
