// End-to-end tests of libclprof.so on the fake driver. Abrupt endings right after the app
// waited for its work: what completed before the ending is in the trace, and the process
// ends as it would without the shim.
#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <string>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// Launch records of the 3,000 launches every ending scenario waits for (gws 64), each
// complete with the fake driver's device times.
long long completed_main_launches(const Trace& t) {
  long long n = 0;
  for (const Value* l : t.of_type("launch")) {
    if (nums(*l, "gws")[0] != 64) continue;
    CHECK(str(*l, "status") == "complete");
    CHECK(nums(*l, "device_ns").size() == 4);
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("endings: what the app waited for reaches the file at its sync point, before any flush") {
  // A flush interval of 10 minutes: only the harvest at clFinish or at the blocking read can
  // write the last launches (the writer writes by itself only each 1 MiB, ~2,800 launches).
  for (const char* wait : {"finish", "read"}) {
    CAPTURE(wait);
    TempDir dir;
    const std::string out = dir.file("x.json");
    const RunResult r = run_app(
        {"sync_then_kill", true, out, {{"CLPROF_FLUSH_INTERVAL_MS", "600000"}}, wait}, dir.path());
    CHECK(r.exit_code == 128 + SIGKILL);
    CHECK(app_value(r, "seen_in_file") == 3000);
    Trace t;
    REQUIRE(load_partial_trace(out, t));
    CHECK(completed_main_launches(t) == 3000);
  }
}
