// The background thread (runtime/harvester.hpp) on the fake driver: an app sync point gets
// what was published into the file without waiting for the flush timer; a fork's park
// holds it at the top of its loop until unparked; an abrupt ending's final round runs on
// its own thread. Waits are bounded deadlines, never asserted durations.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "base/host_clock.hpp"
#include "fake_opencl.hpp"
#include "runtime/process_trace.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using shim_test::count_of;
using shim_test::read_file;

namespace {

struct Started {
  explicit Started(void (*final_round)() = nullptr) {
    runtime_test::install_fake_opencl();
    std::string error;
    REQUIRE(trace.output().open(file.path, runtime_test::kHeader, error));
    trace.completion.clocks().start();
    REQUIRE(trace.harvester.start(final_round) == 0);
  }
  ~Started() { trace.harvester.stop(); }
  void publish_launches(int n) {
    for (int i = 0; i < n; ++i) {
      auto slot = trace.ring().try_claim();
      REQUIRE(slot.value != nullptr);
      runtime_test::fill_launch(*slot.value, 1, nullptr);
      trace.ring().publish(slot);
    }
  }
  // Waits up to 10 s for `pred`; its last value.
  template <class Pred>
  static bool within_deadline(Pred pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!pred() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return pred();
  }
  shim_test::TempFile file;
  ProcessTrace trace{1};
};

std::atomic<int> g_final_rounds{0};
std::atomic<bool> g_final_on_harvester{false};
Started* g_final_trace = nullptr;
void final_round() {
  ++g_final_rounds;
  g_final_on_harvester = g_final_trace && g_final_trace->trace.harvester.is_current_thread();
}

}  // namespace

TEST_CASE("harvester: after an app sync point the published records reach the file") {
  Started s;
  // The flush interval is 10 minutes here (lifecycle_env.cpp), the deadline 10 s: only the
  // sync round (within ~17 ms) can write them. 3 published -> 3 launch lines in the file.
  s.publish_launches(3);
  s.trace.harvester.app_sync_point(host_ticks_now());
  CHECK(Started::within_deadline(
      [&] { return count_of(read_file(s.file.path), R"({"type":"launch")") == 3; }));
}

TEST_CASE("harvester: parked for a fork it takes nothing from the ring until unparked") {
  Started s;
  REQUIRE(s.trace.harvester.park_for_fork(std::chrono::milliseconds(5000)));
  s.publish_launches(2);
  s.trace.harvester.app_sync_point(host_ticks_now());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Parked: the 2 records are still in the ring (its front is the first of them).
  CHECK(s.trace.ring().front() != nullptr);
  CHECK(count_of(read_file(s.file.path), R"({"type":"launch")") == 0);
  s.trace.harvester.unpark();
  s.trace.harvester.app_sync_point(host_ticks_now() + 1000000000ull);
  CHECK(Started::within_deadline(
      [&] { return count_of(read_file(s.file.path), R"({"type":"launch")") == 2; }));
}

TEST_CASE("harvester: an abrupt ending's final round runs once, on the harvester's own thread") {
  g_final_rounds = 0;
  Started s(final_round);
  g_final_trace = &s;
  CHECK_FALSE(s.trace.harvester.is_current_thread());  // this is the test's thread
  s.trace.harvester.request_final_round(/*may_wake=*/true);
  CHECK(s.trace.harvester.final_round_requested());
  CHECK(Started::within_deadline([&] { return s.trace.harvester.final_round_done(); }));
  CHECK(g_final_rounds.load() == 1);
  CHECK(g_final_on_harvester.load());
  g_final_trace = nullptr;
}
