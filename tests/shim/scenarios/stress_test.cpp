// End-to-end tests of libclprof.so. Eight threads on shared, private and out-of-order queues,
// events waited for by other threads, user events, objects released while their commands run,
// OpenCL from an exit handler: every launch is recorded exactly once, on the fake driver and
// on PoCL, and the app sees what it sees without the shim. 20,000 launches a thread;
// scripts/stress-shim.sh repeats them, and runs them in the sanitizer builds.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstdlib>
#include <map>
#include <string>

#include "../../support/skip.hpp"  // tests/support: CLPROF_SKIP
#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

namespace {

// Launches a thread (SHIM_TEST_STRESS_LAUNCHES overrides, e.g. for a longer run).
std::string launches_per_thread(const char* fallback) {
  const char* env = std::getenv("SHIM_TEST_STRESS_LAUNCHES");
  return env && *env ? env : fallback;
}

void check_stress_run(const std::string& launches, const EnvChanges& env,
                      const std::string& app = "") {
  TempDir dir;
  const std::string out = dir.file("x.json");
  const RunResult shim = run_app({"stress", true, out, env, launches}, dir.path(), app);
  REQUIRE_MESSAGE(shim.exit_code == 0, shim.err);
  CHECK(app_value(shim, "failures") == 0);
  CHECK(app_value(shim, "exit_handler_launched") == 100);
  CHECK_MESSAGE(shim.err.find("WARNING:") == std::string::npos, shim.err);  // sanitizers
  Trace t;
  REQUIRE(load_trace(out, t));
  std::map<long long, long long> by_gws;
  long long not_complete = 0;
  for (const Value* l : t.of_type("launch")) {
    ++by_gws[nums(*l, "gws")[0]];
    not_complete += str(*l, "status") != "complete";
  }
  for (int th = 0; th < 8; ++th) {
    CAPTURE(th);
    CHECK(by_gws[16 + th] == app_value(shim, ("launched_" + std::to_string(th)).c_str()));
    CHECK(by_gws[16 + th] == std::atoll(launches.c_str()));
  }
  CHECK(by_gws[99] == 100);  // the exit handler's
  CHECK(not_complete == 0);
  check_seq_unique_and_complete(t);
  check_end_counts(t);
  // The app's view is unchanged.
  TempDir bare_dir;
  const RunResult bare = run_app({"stress", false, "", env, launches}, bare_dir.path(), app);
  CHECK(bare.exit_code == 0);
  CHECK(stable_output(shim.out) == stable_output(bare.out));
}

}  // namespace

TEST_CASE("stress: 8 threads on every kind of queue, fake driver: every launch exactly once") {
  check_stress_run(launches_per_thread("20000"), {});
}

TEST_CASE("stress: 8 threads on every kind of queue, PoCL: every launch exactly once") {
  // Skipped where the system has no OpenCL platform (the app then fails to start).
  TempDir probe;
  const RunResult bare = run_app({"stress", false, "", system_opencl(), "1"}, probe.path());
  if (bare.exit_code != 0 && bare.err.find("clGetPlatformIDs failed") != std::string::npos) {
    CLPROF_SKIP("no OpenCL platform besides the fake driver");
  }
  check_stress_run(launches_per_thread("20000"), system_opencl());
}

TEST_CASE("stress: the app built with ThreadSanitizer, under the shim: no report") {
  if (std::string(CLPROF_TSAN_TEST_APP).empty()) {
    CLPROF_SKIP("no ThreadSanitizer build of the test app here");
  }
  check_stress_run("2000", {{"TSAN_OPTIONS", std::string("halt_on_error=1")}},
                   CLPROF_TSAN_TEST_APP);
}
