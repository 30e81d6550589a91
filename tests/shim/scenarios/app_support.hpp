// The scenario app's common ground: an ordinary OpenCL program (linked to libOpenCL,
// includes only clprof/clprof.h) that the tests run with and without libclprof.so
// preloaded. argv[1] names a scenario; what the app saw (return codes, counts, ids) goes to
// stdout as "key value" lines for the test to compare. Each <group>_app.cpp holds the
// scenarios that <group>_test.cpp checks.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <string_view>
#include <vector>

namespace shim_test {

// What a scenario is given: the app's path (argv[0]), its own name (argv[1]) and its
// optional argument (argv[2], or nullptr).
struct ScenarioArgs {
  const char* self;
  std::string_view name;
  const char* arg;
};
// A scenario returns the app's exit code.
struct Scenario {
  const char* name;
  int (*run)(const ScenarioArgs& args);
};
using ScenarioList = std::vector<Scenario>;

// The groups (app_main.cpp runs the one named).
extern const ScenarioList kRecordsScenarios;    // records_app.cpp
extern const ScenarioList kArgumentsScenarios;  // arguments_app.cpp
extern const ScenarioList kErrorsScenarios;     // errors_app.cpp
extern const ScenarioList kAppViewScenarios;    // app_view_app.cpp
extern const ScenarioList kThreadsScenarios;    // threads_app.cpp
extern const ScenarioList kPendingScenarios;    // pending_app.cpp
extern const ScenarioList kExitScenarios;       // exit_app.cpp
extern const ScenarioList kForkExecScenarios;   // fork_exec_app.cpp
extern const ScenarioList kMarkersScenarios;    // markers_app.cpp
extern const ScenarioList kEndingsScenarios;    // endings_app.cpp
extern const ScenarioList kStressScenarios;     // stress_app.cpp
extern const ScenarioList kFailuresScenarios;   // failures_app.cpp

// The calling thread's id.
long tid();
// Prints the "key value" line the test reads.
void say(const char* key, long long value);
// Exits with 90 (and says what failed) unless rc is CL_SUCCESS.
void check(cl_int rc, const char* what);

// The objects most scenarios use: the first platform's first device, a context, a queue
// (with `props`), the program of kernel_source.hpp built, its three kernels, buffers a and
// b (4 KiB) and c (1 KiB), and vadd's arguments set to (a, b, c). Exits on any failure.
struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel vadd = nullptr;
  cl_kernel scal = nullptr;
  cl_kernel noargs = nullptr;
  cl_mem a = nullptr, b = nullptr, c = nullptr;

  explicit Cl(cl_command_queue_properties props = CL_QUEUE_PROFILING_ENABLE);
  ~Cl();
  Cl(const Cl&) = delete;
  Cl& operator=(const Cl&) = delete;

  cl_int launch_vadd(size_t gws, cl_event* event = nullptr) const {
    return clEnqueueNDRangeKernel(queue, vadd, 1, nullptr, &gws, nullptr, 0, nullptr, event);
  }
};

}  // namespace shim_test
