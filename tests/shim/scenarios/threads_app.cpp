// Scenarios of the test app. Scenarios of the test app. Many threads enqueuing at once, and
// objects first seen by several threads at once (threads_test.cpp).
#include <CL/cl.h>
#include <CL/cl_icd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "app_support.hpp"

namespace shim_test {
namespace {

int scenario_threads(const ScenarioArgs&) {
  Cl cl;
  constexpr int kThreads = 8, kLaunches = 500;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cl, &failures, t] {
      cl_int rc = 0;
      // Each thread its own kernel object: clSetKernelArg is not thread-safe per kernel.
      cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);
      if (rc != CL_SUCCESS) {
        ++failures[t];
        return;
      }
      for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
      const size_t gws = 16 + t;
      for (int i = 0; i < kLaunches; ++i) {
        cl_event e = nullptr;
        cl_event* ep = (i % 2) ? &e : nullptr;
        if (clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, ep) !=
            CL_SUCCESS)
          ++failures[t];
        if (e) clReleaseEvent(e);
      }
      clReleaseKernel(k);
    });
  }
  for (auto& th : threads) th.join();
  check(clFinish(cl.queue), "finish");
  int total = 0;
  for (int f : failures) total += f;
  say("failures", total);
  return 0;
}

// A queue and a kernel the shim never saw created (made through the driver's dispatch
// table, as through an entry point clprof does not hook), first used by 8 threads at
// once: the shim learns them on first use while other threads look them up.
int scenario_lazy_objects(const ScenarioArgs&) {
  Cl cl(0);
  const cl_icd_dispatch* d = *reinterpret_cast<const cl_icd_dispatch* const*>(cl.context);
  cl_int rc = 0;
  cl_command_queue q = d->clCreateCommandQueue(cl.context, cl.device, 0, &rc);
  check(rc, "direct clCreateCommandQueue");
  cl_kernel k = d->clCreateKernel(cl.program, "vadd", &rc);
  check(rc, "direct clCreateKernel");
  for (cl_uint i = 0; i < 3; ++i) check(d->clSetKernelArg(k, i, sizeof cl.a, &cl.a), "direct arg");
  constexpr int kThreads = 8, kLaunches = 50;
  std::atomic<int> ready{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      const size_t gws = 64;
      for (int i = 0; i < kLaunches; ++i) {
        if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) !=
            CL_SUCCESS)
          failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  check(clFinish(q), "finish");
  check(clReleaseKernel(k), "release kernel");
  check(clReleaseCommandQueue(q), "release queue");
  say("failures", failures.load());
  return 0;
}

}  // namespace

const ScenarioList kThreadsScenarios = {
    {"threads", scenario_threads},
    {"lazy_objects", scenario_lazy_objects},
};

}  // namespace shim_test
