// Scenarios of the test app. What the app sees while the driver fails (failures_test.cpp,
// run with the fake driver's FAKE_CL_FAIL and event modes).
#include <CL/cl.h>

#include <cstdlib>

#include "app_support.hpp"

namespace shim_test {
namespace {

// argv[2] launches (default 3000) that go on whatever fails: every 10th with an event the
// app queries itself (START), and a blocking read every 100th. Says how many of each
// succeeded; exits 0 unless setting up failed.
int scenario_launch_and_count(const ScenarioArgs& args) {
  const long long n = args.arg ? std::atoll(args.arg) : 3000;
  Cl cl;
  long long ok = 0, failed = 0, queried = 0, reads_ok = 0;
  char host[64];
  for (long long i = 0; i < n; ++i) {
    cl_event e = nullptr;
    const cl_int rc = cl.launch_vadd(64, i % 10 == 0 ? &e : nullptr);
    (rc == CL_SUCCESS ? ok : failed) += 1;
    if (e) {
      cl_ulong start = 0;
      clWaitForEvents(1, &e);
      queried += clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                         nullptr) == CL_SUCCESS;
      clReleaseEvent(e);
    }
    if (i % 100 == 99)
      reads_ok += clEnqueueReadBuffer(cl.queue, cl.c, CL_TRUE, 0, sizeof host, host, 0, nullptr,
                                      nullptr) == CL_SUCCESS;
  }
  say("launch_ok", ok);
  say("launch_failed", failed);
  say("profiling_ok", queried);
  say("reads_ok", reads_ok);
  say("finish_rc", clFinish(cl.queue));
  return 0;
}

}  // namespace

const ScenarioList kFailuresScenarios = {
    {"launch_and_count", scenario_launch_and_count},
};

}  // namespace shim_test
