// End-to-end tests of libclprof.so on the fake driver. How each device's clock is tied to the
// host's: clGetDeviceAndHostTimer where the device has it, else the enqueue brackets.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE("clock: clock_sync uses clGetDeviceAndHostTimer when the device has it, else brackets") {
  for (const bool timer : {true, false}) {
    CAPTURE(timer);
    const TracedRun run("exit_return", {{"FAKE_CL_HOST_TIMER", timer ? "1" : "0"}});
    const Trace& t = run.trace;
    const long long device_id = num(*t.of_type("device")[0], "id");
    const auto syncs = t.of_type("clock_sync");
    REQUIRE(!syncs.empty());
    int with_timer = 0;
    for (const Value* s : syncs) {
      CHECK(num(*s, "device_id") == device_id);
      CHECK(num(*s, "uncertainty_ns") >= 0);
      with_timer += str(*s, "method") == "clGetDeviceAndHostTimer";
    }
    if (timer) {
      CHECK(with_timer > 0);
    } else {
      CHECK(with_timer == 0);
      CHECK(str(*syncs.back(), "method") == "enqueue_bracket");
    }
  }
}
