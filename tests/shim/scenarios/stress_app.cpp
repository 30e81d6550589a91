// Scenarios of the test app. Many threads at once on every kind of queue, with events
// crossing threads, user events, objects released while their commands run, and OpenCL from
// an exit handler (stress_test.cpp).
#include <CL/cl.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "app_support.hpp"

namespace shim_test {
namespace {

constexpr int kThreads = 8;
constexpr size_t kExitHandlerGws = 99;  // the launches of the exit handler
constexpr int kExitHandlerLaunches = 100;

// What one thread hands the next: events to wait for (and release), user events to
// complete (and release).
struct Mailbox {
  std::mutex mutex;
  std::deque<cl_event> to_wait;
  std::deque<cl_event> to_complete;
};

struct Shared {
  Cl* cl = nullptr;
  cl_command_queue out_of_order = nullptr;
  Mailbox mail[kThreads];
  std::atomic<int> finished{0};
  std::atomic<long long> failures{0};
  long long launched[kThreads] = {};
  // Kernels each thread releases while a launch of theirs may run, made up front (PoCL 3.1
  // aborts now and then when threads create kernels at once: "Failed to create kernel
  // compiler pass inline-kernels", without the shim too).
  std::vector<cl_kernel> brief[kThreads];
  cl_kernel kernel[kThreads] = {};
};

// Waits for the events and completes the user events posted to `box`. Returns how many.
int serve(Mailbox& box, Shared& s) {
  std::deque<cl_event> wait, complete;
  {
    std::lock_guard<std::mutex> lock(box.mutex);
    wait.swap(box.to_wait);
    complete.swap(box.to_complete);
  }
  for (cl_event u : complete) {
    if (clSetUserEventStatus(u, CL_COMPLETE) != CL_SUCCESS) ++s.failures;
    clReleaseEvent(u);
  }
  for (cl_event e : wait) {
    if (clWaitForEvents(1, &e) != CL_SUCCESS) ++s.failures;
    clReleaseEvent(e);
  }
  return static_cast<int>(wait.size() + complete.size());
}

void post(Mailbox& box, cl_event e, bool user_event) {
  std::lock_guard<std::mutex> lock(box.mutex);
  (user_event ? box.to_complete : box.to_wait).push_back(e);
}

void worker(Shared& s, int t, long long launches) {
  const Cl& cl = *s.cl;
  Mailbox& next = s.mail[(t + 1) % kThreads];
  cl_int rc = 0;
  // Its own kernel (arguments are per kernel object, made up front) and its own queue,
  // with profiling on every other thread only (the shim turns it on for the others).
  cl_kernel k = s.kernel[t];
  cl_command_queue own =
      clCreateCommandQueue(cl.context, cl.device, t % 2 ? CL_QUEUE_PROFILING_ENABLE : 0, &rc);
  if (!k || !own) {
    ++s.failures;
    return;
  }
  for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
  const size_t gws = 16 + t;  // tells this thread's launches in the trace
  long long ok = 0;
  for (long long i = 0; i < launches; ++i) {
    cl_command_queue q = i % 3 == 0 ? cl.queue : i % 3 == 1 ? own : s.out_of_order;
    if (i % 211 == 0 && !s.brief[t].empty()) {
      // A kernel and a buffer released while the launch may still run.
      cl_kernel brief = s.brief[t].back();
      s.brief[t].pop_back();
      cl_mem buf = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 1024, nullptr, &rc);
      clSetKernelArg(brief, 0, sizeof cl.a, &cl.a);
      clSetKernelArg(brief, 1, sizeof cl.b, &cl.b);
      clSetKernelArg(brief, 2, sizeof buf, &buf);
      if (clEnqueueNDRangeKernel(q, brief, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
          CL_SUCCESS)
        ++ok;
      else
        ++s.failures;
      clReleaseMemObject(buf);
      clReleaseKernel(brief);
    } else if (i % 97 == 0) {
      // Held back by a user event that the next thread completes.
      cl_event gate = clCreateUserEvent(cl.context, &rc);
      if (clEnqueueNDRangeKernel(own, k, 1, nullptr, &gws, nullptr, 1, &gate, nullptr) ==
          CL_SUCCESS)
        ++ok;
      else
        ++s.failures;
      post(next, gate, /*user_event=*/true);
    } else if (i % 50 == 0) {
      // Its event waited for (and released) by the next thread.
      cl_event e = nullptr;
      if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr, &e) == CL_SUCCESS) {
        ++ok;
        post(next, e, /*user_event=*/false);
      } else {
        ++s.failures;
      }
    } else {
      cl_event e = nullptr;
      cl_event* ep = i % 7 == 0 ? &e : nullptr;  // some events released at once
      if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr, ep) == CL_SUCCESS)
        ++ok;
      else
        ++s.failures;
      if (e) clReleaseEvent(e);
    }
    if (i % 64 == 0) serve(s.mail[t], s);
    if (i % 1000 == 999) clFlush(own);
  }
  s.launched[t] = ok;
  // Serve the previous thread until every thread is done and nothing is left.
  s.finished.fetch_add(1);
  while (s.finished.load() < kThreads || serve(s.mail[t], s) > 0) {
    if (serve(s.mail[t], s) == 0) std::this_thread::yield();
  }
  if (clFinish(own) != CL_SUCCESS) ++s.failures;
  clReleaseCommandQueue(own);
  clReleaseKernel(k);
}

// Kept for the exit handler, which launches on them after main returned.
Cl* g_exit_cl = nullptr;

void exit_handler() {
  if (!g_exit_cl) return;
  int ok = 0;
  for (int i = 0; i < kExitHandlerLaunches; ++i)
    ok += g_exit_cl->launch_vadd(kExitHandlerGws) == CL_SUCCESS;
  clFinish(g_exit_cl->queue);
  say("exit_handler_launched", ok);
}

// 8 threads x argv[2] launches (default 2000) on a shared in-order queue, a shared
// out-of-order queue and a queue of their own; then an exit handler launches 100 more.
int scenario_stress(const ScenarioArgs& args) {
  const long long launches = args.arg ? std::atoll(args.arg) : 2000;
  g_exit_cl = new Cl();  // never destroyed: the exit handler uses it
  // After the driver's own set-up: OpenCL from an exit handler registered before it
  // crashed PoCL 3.1 without the shim (SIGSEGV in 2 of 3 runs).
  std::atexit(exit_handler);
  Shared s;
  s.cl = g_exit_cl;
  cl_int rc = 0;
  s.out_of_order =
      clCreateCommandQueue(s.cl->context, s.cl->device,
                           CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, &rc);
  check(rc, "out-of-order queue");
  for (int t = 0; t < kThreads; ++t) {
    s.kernel[t] = clCreateKernel(s.cl->program, "vadd", &rc);
    check(rc, "kernel");
    for (long long i = 0; i < launches; i += 211) {
      s.brief[t].push_back(clCreateKernel(s.cl->program, "vadd", &rc));
      check(rc, "kernel");
    }
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, std::ref(s), t, launches);
  for (auto& th : threads) th.join();
  check(clFinish(s.cl->queue), "finish");
  check(clFinish(s.out_of_order), "finish out-of-order");
  clReleaseCommandQueue(s.out_of_order);
  for (int t = 0; t < kThreads; ++t) std::printf("launched_%d %lld\n", t, s.launched[t]);
  say("failures", s.failures.load());
  return 0;
}

}  // namespace

const ScenarioList kStressScenarios = {
    {"stress", scenario_stress},
};

}  // namespace shim_test
