// Several clprof traces are read as one run only when they come from one recorded run
// (the same session id; parent and child; or, for traces without a session id, the
// heuristics of pid, ppid and CLPROF_ROOT_PID); the same file or the same process's
// trace given twice is an error; LoadOptions::allow_unrelated reads unrelated runs too.
#include <doctest/doctest.h>

#include <string>

#include "readers/load.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

// A one-launch trace of process `pid` (parent `ppid`), version 2 with `session` or, when
// it is empty, version 1 without one; `more` adds header fields.
std::string trace_text(int pid, int ppid, const std::string& session, const std::string& more = "",
                       long long start = 1000) {
  std::string h = R"({"format":"clprof-trace","version":)" +
                  std::string(session.empty() ? "1" : "2") + R"(,"header":{"pid":)" +
                  std::to_string(pid) + R"(,"ppid":)" + std::to_string(ppid) +
                  R"(,"start_unix_ns":)" + std::to_string(start) + R"(,"host_name":"h")" + more;
  if (!session.empty()) h += R"(,"session_id":")" + session + "\"";
  return h + R"(},"records":[)"
             "\n"
             R"({"type":"launch","seq":1,"kernel":"k","device_ns":[0,0,1,3]},)"
             "\n"
             R"({"type":"end"}]})"
             "\n";
}

// The InputError of loading `paths` (by load_run and by stream_clprof_traces, which must
// agree), "" if none.
std::string load_error(const std::vector<std::string>& paths, bool allow_unrelated = false) {
  std::string errors[2];
  for (int streamed = 0; streamed < 2; ++streamed) {
    model::Run run;
    readers::Diagnostics diag;
    readers::LoadOptions options;
    options.allow_unrelated = allow_unrelated;
    try {
      if (streamed)
        readers::stream_clprof_traces(paths, run, test::kernel_totals_factory(), diag, options);
      else
        readers::load_run(paths, options, run, diag);
    } catch (const readers::InputError& e) {
      errors[streamed] = e.what();
    }
  }
  CHECK(errors[0] == errors[1]);
  return errors[0];
}

}  // namespace

TEST_CASE("traces of one recorded run read together") {
  test::TempDir dir;
  // The same session: whatever the pids.
  CHECK(load_error({dir.write("a.json", trace_text(10, 1, "s1")),
                    dir.write("b.json", trace_text(77, 1, "s1"))})
            .empty());
  // Different sessions but parent and child (a child that lost the environment).
  CHECK(load_error({dir.write("c.json", trace_text(10, 1, "s1")),
                    dir.write("d.json", trace_text(11, 10, "s2"))})
            .empty());
  // Version 1 traces: a chain of parents and children, an exec (the same pid), the root pid.
  CHECK(load_error({dir.write("e.json", trace_text(10, 1, "")),
                    dir.write("f.json", trace_text(12, 11, "")),
                    dir.write("g.json", trace_text(11, 10, "")),
                    dir.write("h.json", trace_text(11, 10, "", "", 2000))})
            .empty());
  const std::string root = R"(,"settings":{"CLPROF_ROOT_PID":"5"})";
  CHECK(load_error({dir.write("i.json", trace_text(20, 2, "", root)),
                    dir.write("j.json", trace_text(30, 3, "", root))})
            .empty());
}

TEST_CASE("traces of unrelated runs: an error, unless allowed") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", trace_text(10, 1, "s1"));
  const std::string b = dir.write("b.json", trace_text(20, 1, "s2"));
  CHECK(load_error({a, b}) == b + ":0:0: not from the same recorded run as " + a +
                                  " (pid 20, session s2; pid 10, session s1): give the traces of "
                                  "one run together, or --merge to combine unrelated runs");
  CHECK(load_error({a, b}, true).empty());
  // Version 1 traces that nothing links.
  const std::string c = dir.write("c.json", trace_text(30, 1, ""));
  const std::string d = dir.write("d.json", trace_text(40, 2, ""));
  CHECK(load_error({c, d}).find("not from the same recorded run") != std::string::npos);
  CHECK(load_error({c, d}, true).empty());
  // Other formats take no part: a Chrome trace beside a clprof trace.
  const std::string chrome =
      dir.write("chrome.json", R"({"traceEvents":[{"name":"k","ph":"X","ts":0,"dur":1}]})");
  CHECK(load_error({a, chrome}).empty());
}

TEST_CASE("the same trace twice is an error, allowed or not") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", trace_text(10, 1, "s1"));
  const std::string copy = dir.write("copy.json", trace_text(10, 1, "s1"));
  for (bool allow : {false, true}) {
    CAPTURE(allow);
    CHECK(load_error({a, a}, allow) ==
          a + ":0:0: the same file as " + a + ": give each input once");
    CHECK(load_error({a, dir.path() + "/./a.json"}, allow).find("the same file as") !=
          std::string::npos);
    CHECK(load_error({a, copy}, allow) == copy + ":0:0: the trace of the same process as " + a +
                                              " (pid 10, same start time): give each trace once");
  }
  // One run read once counts each launch once.
  model::Run run;
  readers::Diagnostics diag;
  readers::load_run({a}, "", run, diag);
  CHECK(run.launches.size() == 1);
}
