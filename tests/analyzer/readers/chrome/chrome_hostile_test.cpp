// The Chrome reader on hostile traces (issue 18): deep nesting, traces cut mid-event, bad
// events among good ones, huge names. Inputs are generated, not committed.
#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"
#include "readers/chrome/chrome_trace.hpp"
#include "readers/limits.hpp"

using namespace clprof;
using clprof::test::error_of;
using clprof::test::read_with;
using readers::limits::kMaxRangeDepth;

namespace {

std::string x_event(int64_t ts, int64_t dur, const std::string& name, int tid = 1) {
  return "{\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(tid) +
         ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"name\":\"" +
         name + "\"}";
}

}  // namespace

TEST_CASE("chrome: 80,000 nested events stop at the 64-level ceiling, in linear time") {
  const int n = 80000;
  std::string t = "[";
  for (int i = 0; i < n; ++i)
    t += (i ? ",\n" : "") + x_event(i, 2 * (n - i), "e" + std::to_string(i));
  t += "]";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::chrome_trace_reader(), t, &diag, "deep.json");
  CHECK(run.ranges.size() == kMaxRangeDepth - 1);
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name == "e63");
  CHECK(run.launches[0].ranges.size() == kMaxRangeDepth - 1);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] ==
        "deep.json: 79936 trace events skipped, the first at deep.json:65:1: "
        "expected events nested at most 64 deep (the analyzer's ceiling)");
}

TEST_CASE("chrome: leaves under a deep chain cost at most 64 range ids each") {
  // The 2.3 MB trace that took 1.85 GB: 10,000 nested events with 30,000 leaves inside the
  // innermost; every leaf carried a copy of the 10,000-deep chain.
  const int depth = 10000, leaves = 30000;
  std::string t = "[";
  for (int i = 0; i < depth; ++i) t += (i ? "," : "") + x_event(i, 1000000000 - 2 * i, "n");
  for (int i = 0; i < leaves; ++i) t += "," + x_event(depth + i, 1, "leaf");
  t += "]";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::chrome_trace_reader(), t, &diag, "wide.json");
  size_t ids = 0;
  for (const auto& l : run.launches) {
    CHECK(l.ranges.size() < kMaxRangeDepth);
    ids += l.ranges.size();
  }
  CHECK(ids <= run.launches.size() * kMaxRangeDepth);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("wide.json: 39936 trace events skipped") == 0);
}

TEST_CASE("chrome: a trace cut inside an event keeps the complete events before it") {
  const std::string events = x_event(1, 5, "a") + ",\n" + x_event(10, 5, "b", 2);
  const std::string cut = ",\n{\"ph\":\"X\",\"pid\":1,\"ts\":2";
  for (const std::string& text : {"[" + events + cut, "{\"traceEvents\": [" + events + cut,
                                  "[" + events + ",\n{\"ph\":\"X\",\"na"}) {
    CAPTURE(text);
    readers::Diagnostics diag;
    model::Run run = read_with(readers::chrome_trace_reader(), text, &diag, "cut.json");
    REQUIRE(run.launches.size() == 2);
    CHECK(run.launches[0].name == "a");
    CHECK(run.launches[1].name == "b");
    REQUIRE(diag.warnings.size() == 1);
    CHECK(
        diag.warnings[0].find(
            ":3:1: the trace is cut inside an event; the 2 complete events before it were read") !=
        std::string::npos);
  }
  // Cut in a member after the events: the events are all there.
  readers::Diagnostics diag;
  model::Run run =
      read_with(readers::chrome_trace_reader(),
                "{\"traceEvents\": [" + events + "], \"metadata\": {\"a\": [1, 2", &diag, "m.json");
  CHECK(run.launches.size() == 2);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("cut inside member \"metadata\"") != std::string::npos);
  // A wrong byte (not the end of the input) is still an error.
  CHECK(error_of(readers::chrome_trace_reader(), "[" + events + ",{\"ph\":\"X\"]", "w.json") ==
        "w.json:2:64: invalid JSON: Missing a comma or '}' after an object member");
}

TEST_CASE("chrome: bad events among good ones are skipped and counted; the first is named") {
  const std::string t = "[" + x_event(1, 5, "good") + ",\n" + x_event(10, -5, "negative") + ",\n" +
                        "{\"ph\":\"X\",\"ts\":20,\"dur\":1},\n" +  // no name
                        "{\"ph\":\"B\",\"ts\":30,\"name\":\"b\"},{\"ph\":\"E\",\"ts\":29},\n" +
                        x_event(40, 1, "good2") + "]";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::chrome_trace_reader(), t, &diag, "bad.json");
  REQUIRE(run.launches.size() == 3);  // good, good2 and the B left open
  CHECK(run.launches[0].name == "good");
  CHECK(run.launches[2].name == "good2");
  std::string all;
  for (const auto& w : diag.warnings) all += w + "\n";
  CHECK(
      all.find("bad.json: 3 trace events skipped, the first at bad.json:2:41: expected dur >= 0") !=
      std::string::npos);
  // Only bad events: nothing to read, the first one is the error.
  CHECK(error_of(readers::chrome_trace_reader(),
                 "[" + x_event(10, -5, "n") + "," + x_event(10, -5, "n") + "]",
                 "f") == "f:1:42: expected dur >= 0");
  CHECK(error_of(readers::chrome_trace_reader(), "[{\"ph\":\"X\",\"ts\":1,\"dur\":1}]", "f") ==
        "f:1:2: expected member \"name\" in this X event");
}

TEST_CASE("chrome: names past 4096 bytes are cut at a character boundary, with a warning") {
  std::string name =
      std::string(4095, 'a') + "\xc3\xa9" + std::string(30000, 'b');  // é at byte 4095
  readers::Diagnostics diag;
  model::Run run =
      read_with(readers::chrome_trace_reader(), "[" + x_event(1, 1, name) + "]", &diag, "n.json");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name == std::string(4095, 'a'));
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] == "n.json: 1 names longer than 4096 bytes were cut to that length");
}

TEST_CASE("chrome: args nested 250 deep are kept as JSON text") {
  std::string deep = std::string(250, '[') + "1" + std::string(250, ']');
  model::Run run =
      read_with(readers::chrome_trace_reader(),
                "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"k\",\"args\":{\"d\":" + deep +
                    ",\"o\":{\"a\":[true,null,\"s\\\"\"]}}}]");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].extra.at("chrome.args.d") == deep);
  CHECK(run.launches[0].extra.at("chrome.args.o") == "{\"a\":[true,null,\"s\\\"\"]}");
}
