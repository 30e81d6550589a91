// Scenarios of the test app. The app's range markers: nested, per thread, unbalanced
// (markers_test.cpp).
#include <CL/cl.h>
#include <clprof/clprof.h>

#include <thread>

#include "app_support.hpp"

namespace shim_test {
namespace {

int scenario_markers(const ScenarioArgs&) {
  Cl cl;
  clprof_mark("start");
  clprof_range_push("outer");
  check(cl.launch_vadd(1), "launch");  // ranges [outer]
  {
    clprof::ScopedRange inner{"inner"};
    check(cl.launch_vadd(2), "launch");  // ranges [outer, inner]
  }
  std::thread other([&cl] {
    clprof_range_push("thread_range");
    check(cl.launch_vadd(3), "launch");  // ranges [thread_range]
    clprof_range_pop();
  });
  other.join();
  clprof_range_pop();
  check(cl.launch_vadd(4), "launch");  // ranges []
  check(clFinish(cl.queue), "finish");
  say("markers_done", 1);
  return 0;
}

int scenario_markers_unbalanced(const ScenarioArgs&) {
  Cl cl;
  clprof_range_pop();  // nothing open
  clprof_range_push("left_open");
  check(cl.launch_vadd(5), "launch");
  check(clFinish(cl.queue), "finish");
  say("markers_done", 1);
  return 0;  // "left_open" never popped
}

}  // namespace

const ScenarioList kMarkersScenarios = {
    {"markers", scenario_markers},
    {"markers_unbalanced", scenario_markers_unbalanced},
};

}  // namespace shim_test
