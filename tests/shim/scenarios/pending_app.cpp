// Scenarios of the test app. Commands that complete late or never, and the events the shim passes
// to the driver when the app asks for none, counted by the fake driver (pending_test.cpp).
#include <CL/cl.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "app_support.hpp"

namespace shim_test {
namespace {

// Launches whose events complete late (FAKE_CL_EVENT_MODE); the app never waits.
int scenario_no_wait(const ScenarioArgs&) {
  Cl cl;
  for (int i = 0; i < 10; ++i) check(cl.launch_vadd(100 + i), "launch");
  return 0;
}

// Launches, then clFinish after a pause: events complete only then (on_wait mode).
int scenario_late_finish(const ScenarioArgs&) {
  Cl cl;
  for (int i = 0; i < 5; ++i) check(cl.launch_vadd(100 + i), "launch");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  check(clFinish(cl.queue), "finish");
  return 0;
}

// The fake driver's event counters (tests/fake_icd/README.md): `name` is
// clprof_fake_live_events (event objects alive) or clprof_fake_referenced_events (those
// still referenced by the app or a layer). The app reaches the driver only through the ICD
// loader, so it looks the counter up in the copy the loader loaded: SHIM_TEST_FAKE_ICD is
// its path; RTLD_NOLOAD makes sure no second copy, with counters of its own, is loaded.
using LiveEventsFn = unsigned long long (*)();
LiveEventsFn fake_event_counter(const char* name) {
  const char* path = std::getenv("SHIM_TEST_FAKE_ICD");
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  void* fn = lib ? dlsym(lib, name) : nullptr;
  if (!fn) {
    std::fprintf(stderr, "shim_test_app: no %s in SHIM_TEST_FAKE_ICD=%s\n", name,
                 path ? path : "(unset)");
    std::exit(91);
  }
  return reinterpret_cast<LiveEventsFn>(fn);  // `lib` stays open: `fn` must stay valid
}
LiveEventsFn fake_live_events() {
  return fake_event_counter("clprof_fake_live_events");
}

constexpr int kTransfersPerBurst = 3;

// `launches` launches of a kernel without arguments, then kTransfersPerBurst transfers, all
// without an event: under the shim each one runs with a private event the app never sees.
void enqueue_without_events(const Cl& cl, int launches) {
  const size_t gws = 64;
  for (int i = 0; i < launches; ++i)
    check(
        clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr),
        "launch");
  // Static: a non-blocking write may read its source after the call returns.
  static const unsigned char bytes[256] = {};
  check(clEnqueueWriteBuffer(cl.queue, cl.a, CL_FALSE, 0, sizeof bytes, bytes, 0, nullptr, nullptr),
        "write");
  check(clEnqueueCopyBuffer(cl.queue, cl.a, cl.b, 0, 0, 256, 0, nullptr, nullptr), "copy");
  const cl_uint pattern = 0x01020304;
  check(clEnqueueFillBuffer(cl.queue, cl.c, &pattern, sizeof pattern, 0, 1024, 0, nullptr, nullptr),
        "fill");
}

// Commands without events, counted by the fake driver (SHIM_TEST_FAKE_ICD): the shim's
// private events must all be released while the app is idle, and none may be left at exit.
int scenario_private_events(const ScenarioArgs&) {
  Cl cl(0);  // queue WITHOUT profiling: the app asks for no event, so all are the shim's
  constexpr int kBurst1 = 5000, kBurst2 = 2000;
  enqueue_without_events(cl, kBurst1);
  check(clFinish(cl.queue), "finish");
  const LiveEventsFn live = fake_live_events();
  say("live_events_after_finish", static_cast<long long>(live()));
  // The app stops enqueuing: the shim releases what it holds within about two poll
  // intervals. The 10 s bound only keeps a loaded machine from failing the test.
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::seconds(10);
  unsigned long long n = live();
  while (n != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = live();
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  say("live_events_after_idle", static_cast<long long>(n));
  say("idle_reached_zero", n == 0 ? 1 : 0);  // 0: the 10 s ran out
  // Informational only (tests assert no durations).
  say("idle_wait_us", std::chrono::duration_cast<std::chrono::microseconds>(waited).count());

  // Two events the app keeps to the end and never releases: a launch's and a user event.
  // The driver's count at exit is then exactly 2 without the shim, and must be 2 with it:
  // no private event left behind, none of the app's references taken away.
  cl_event kept = nullptr;
  const size_t gws = 64;
  check(clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, &kept),
        "kept launch");
  cl_int rc = 0;
  const cl_event user = clCreateUserEvent(cl.context, &rc);
  check(rc, "clCreateUserEvent");
  say("app_kept_events", (kept ? 1 : 0) + (user ? 1 : 0));
  // A second burst, then exit at once (no clFinish, no pause): these commands are still in
  // the shim's hands when its exit handler runs.
  enqueue_without_events(cl, kBurst2);
  say("launches", kBurst1 + 1 + kBurst2);
  say("transfers", 2 * kTransfersPerBurst);
  return 0;  // ~Cl releases every other object of the app
}

// A driver that lags behind the app (run with FAKE_CL_EVENT_MODE=on_wait: commands
// complete only at clFinish, so most records are drained while their command still runs)
// and an app that never pauses: the number of the shim's private events alive must stay
// bounded however many rounds run (no idle moment lets the shim release its backlog).
int scenario_lagging_driver(const ScenarioArgs& args) {
  const int rounds = args.arg ? std::atoi(args.arg) : 400;
  Cl cl(0);  // no profiling, no app events: every event alive is the shim's
  const LiveEventsFn live = fake_live_events();
  constexpr int kBurst = 300;
  unsigned long long most = 0, most_late = 0;
  for (int r = 0; r < rounds; ++r) {
    enqueue_without_events(cl, kBurst);
    check(clFinish(cl.queue), "finish");
    const unsigned long long n = live();
    most = std::max(most, n);
    if (r >= rounds / 2) most_late = std::max(most_late, n);
  }
  say("most_live_events", static_cast<long long>(most));
  say("most_live_events_second_half", static_cast<long long>(most_late));
  say("launches", static_cast<long long>(rounds) * kBurst);
  return 0;
}

// Launches without a pause or a sync until the end (the shim's harvester, made the slow side
// by the driver, never finds the ring empty), counting the events alive every 500.
int scenario_never_dry(const ScenarioArgs& args) {
  const int launches = args.arg ? std::atoi(args.arg) : 30000;
  Cl cl(0);  // no profiling, no app events: every event referenced is the shim's
  // Referenced, not alive: in the driver mode this runs with (polls:K) the queue holds every
  // event until clFinish, whoever else lets go of it.
  const LiveEventsFn live = fake_event_counter("clprof_fake_referenced_events");
  const size_t gws = 64;
  unsigned long long most = 0;
  for (int i = 0; i < launches; ++i) {
    check(
        clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr),
        "launch");
    if (i % 500 == 499) most = std::max(most, live());
  }
  check(clFinish(cl.queue), "finish");
  say("most_referenced_events", static_cast<long long>(most));
  say("launches", launches);
  return 0;
}

}  // namespace

const ScenarioList kPendingScenarios = {
    {"no_wait", scenario_no_wait},
    {"late_finish", scenario_late_finish},
    {"private_events", scenario_private_events},
    {"lagging_driver", scenario_lagging_driver},
    {"never_dry", scenario_never_dry},
};

}  // namespace shim_test
