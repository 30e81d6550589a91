// Scenarios of the test app. The ways a process ends: return from main, exit(), std::exit, OpenCL
// from an atexit handler, kill -9 mid-run (exit_test.cpp).
#include <CL/cl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "app_support.hpp"

namespace shim_test {
namespace {

int scenario_exit(const ScenarioArgs& args) {
  const int how = args.name == "exit_exit" ? 1 : args.name == "exit_std_exit" ? 2 : 0;
  Cl* cl = new Cl();  // deliberately not destroyed for exit paths 1 and 2
  check(cl->launch_vadd(64), "launch");
  check(clFinish(cl->queue), "finish");
  std::fflush(stdout);
  if (how == 1) exit(3);
  if (how == 2) std::exit(4);
  delete cl;
  return 0;
}

// Launch until killed.
int scenario_forever(const ScenarioArgs&) {
  Cl cl;
  for (long i = 0;; ++i) {
    cl.launch_vadd(64 + (i % 7));
    if (i % 50 == 49) {
      clFinish(cl.queue);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

// OpenCL used from an atexit handler registered before the first OpenCL call.
Cl* g_late = nullptr;
int scenario_atexit(const ScenarioArgs&) {
  std::atexit([] {
    if (!g_late) return;
    g_late->launch_vadd(77);
    clFinish(g_late->queue);
    std::printf("atexit_done 1\n");
  });
  g_late = new Cl();
  check(g_late->launch_vadd(76), "launch");
  check(clFinish(g_late->queue), "finish");
  return 0;
}

}  // namespace

const ScenarioList kExitScenarios = {
    {"exit_return", scenario_exit}, {"exit_exit", scenario_exit}, {"exit_std_exit", scenario_exit},
    {"forever", scenario_forever},  {"atexit", scenario_atexit},
};

}  // namespace shim_test
