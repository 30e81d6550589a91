// Scenarios of the test app. Scenarios of the test app. What the app sees of its own objects:
// queue properties, profiling info and event reference counts (app_view_test.cpp).
#include <CL/cl.h>

#include "app_support.hpp"

namespace shim_test {
namespace {

// What the app sees of its own objects must not change under the shim.
int scenario_app_view(const ScenarioArgs&) {
  Cl cl(0);  // queue WITHOUT profiling
  cl_command_queue_properties props = 99;
  check(clGetCommandQueueInfo(cl.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "q");
  say("queue_props", static_cast<long long>(props));
  cl_event e = nullptr;
  check(cl.launch_vadd(64, &e), "launch");
  cl_uint refs = 0;
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_enqueue", refs);
  check(clRetainEvent(e), "retain");
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_retain", refs);
  check(clReleaseEvent(e), "release");
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_release", refs);
  check(clFinish(cl.queue), "finish");
  cl_ulong t = 0;
  say("profiling_rc", clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  check(clReleaseEvent(e), "release");
  // The same through clCreateCommandQueueWithProperties.
  const cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, 0, 0};
  cl_int rc = 0;
  cl_command_queue q2 = clCreateCommandQueueWithProperties(cl.context, cl.device, qp, &rc);
  check(rc, "queue2");
  check(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "q2");
  say("queue2_props", static_cast<long long>(props));
  cl_queue_properties back[4] = {7, 7, 7, 7};
  size_t back_size = 0;
  check(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &back_size), "qa");
  say("queue2_array_size", static_cast<long long>(back_size));
  say("queue2_array_1", static_cast<long long>(back[1]));
  size_t gws = 32;
  cl_event e2 = nullptr;
  check(clEnqueueNDRangeKernel(q2, cl.vadd, 1, nullptr, &gws, nullptr, 0, nullptr, &e2), "l2");
  check(clFinish(q2), "finish2");
  say("profiling2_rc",
      clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  cl_int status = 1;
  check(clGetEventInfo(e2, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "status");
  say("status2", status);
  check(clReleaseEvent(e2), "release2");
  check(clReleaseCommandQueue(q2), "rq2");
  return 0;
}

// The app asks each of its events for its reference count while clprof's background
// thread may be releasing the reference it holds (FAKE_CL_REFCOUNT_DELAY_US makes the
// driver's answer slow, so a release often lands while one is being read).
int scenario_refcount_race(const ScenarioArgs&) {
  Cl cl;
  int wrong = 0;
  for (int i = 0; i < 40; ++i) {
    cl_event e = nullptr;
    check(cl.launch_vadd(64, &e), "launch");
    cl_uint refs = 0;
    check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
    if (refs != 1) ++wrong;
    check(clReleaseEvent(e), "release");
  }
  say("wrong_counts", wrong);
  return 0;
}

}  // namespace

const ScenarioList kAppViewScenarios = {
    {"app_view", scenario_app_view},
    {"refcount_race", scenario_refcount_race},
};

}  // namespace shim_test
