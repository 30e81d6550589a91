// End-to-end tests of libclprof.so on the fake driver. The app's range markers: nesting, ranges
// per thread, marks, an unbalanced pop, a range left open at exit, and no-ops without the shim.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("markers: nested ranges, ranges per thread and marks") {
  const TracedRun run("markers");
  const Trace& t = run.trace;
  std::map<std::string, const Value*> begins;
  for (const Value* r : t.of_type("range_begin")) begins[str(*r, "name")] = r;
  REQUIRE(begins.size() == 3);
  REQUIRE(begins.count("outer"));
  REQUIRE(begins.count("inner"));
  REQUIRE(begins.count("thread_range"));
  const long long outer = num(*begins["outer"], "id"), inner = num(*begins["inner"], "id"),
                  other = num(*begins["thread_range"], "id");
  CHECK(num(*begins["outer"], "parent") == 0);
  CHECK(num(*begins["inner"], "parent") == outer);
  CHECK(num(*begins["thread_range"], "parent") == 0);
  CHECK(num(*begins["outer"], "tid") == num(*begins["inner"], "tid"));
  CHECK(num(*begins["outer"], "tid") != num(*begins["thread_range"], "tid"));
  std::map<long long, const Value*> ends;
  for (const Value* r : t.of_type("range_end")) ends[num(*r, "id")] = r;
  CHECK(ends.size() == 3);
  for (long long id : {outer, inner, other}) {
    CAPTURE(id);
    REQUIRE(ends.count(id));
    auto open = ends[id]->FindMember("open");
    CHECK((open == ends[id]->MemberEnd() || open->value.GetBool() == false));
  }
  CHECK(num(*ends[inner], "host_ns") <= num(*ends[outer], "host_ns"));
  CHECK(num(*begins["outer"], "host_ns") <= num(*begins["inner"], "host_ns"));
  const std::vector<const Value*> l = by_seq(t, "launch");
  REQUIRE(l.size() == 4);
  CHECK(nums(*l[0], "ranges") == Ints{outer});
  CHECK(nums(*l[1], "ranges") == Ints{outer, inner});
  CHECK(nums(*l[2], "ranges") == Ints{other});
  CHECK(nums(*l[3], "ranges") == Ints{});
  const auto marks = t.of_type("mark");
  REQUIRE(marks.size() == 1);
  CHECK(str(*marks[0], "name") == "start");
  CHECK(t.of_type("warning").empty());
}

TEST_CASE("markers: an unbalanced pop warns, a range left open is closed at exit") {
  const TracedRun run("markers_unbalanced");
  const Trace& t = run.trace;
  const auto warnings = t.of_type("warning");
  REQUIRE(warnings.size() == 1);
  CHECK(str(*warnings[0], "message").find("pop") != std::string::npos);
  const auto begins = t.of_type("range_begin");
  REQUIRE(begins.size() == 1);
  CHECK(str(*begins[0], "name") == "left_open");
  const auto ends = t.of_type("range_end");
  REQUIRE(ends.size() == 1);
  CHECK(num(*ends[0], "id") == num(*begins[0], "id"));
  CHECK(member(*ends[0], "open").GetBool() == true);
  REQUIRE(t.of_type("launch").size() == 1);
  CHECK(nums(*t.of_type("launch")[0], "ranges") == Ints{num(*begins[0], "id")});
}

TEST_CASE("markers: without the shim the markers are no-ops") {
  TempDir dir;
  for (const char* scenario : {"markers", "markers_unbalanced"}) {
    CAPTURE(scenario);
    const RunResult bare = run_app({scenario, false, "", {}}, dir.path());
    CHECK(bare.exit_code == 0);
    CHECK(bare.values.at("markers_done") == 1);
    CHECK(bare.err.empty());
  }
  std::vector<std::string> files = list_dir(dir.path());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"stderr.txt", "stdout.txt"});
}
