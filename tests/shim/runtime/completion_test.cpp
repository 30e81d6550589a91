// Completing records (runtime/completion.hpp) on the fake driver (fake_opencl.hpp): ring
// order and seq, a running command kept and polled until its event completes, the end of
// the trace writing what still runs as incomplete, and an in-order queue's poll stopping
// at its first running command. Each expected value is worked out by hand beside it.
#include <doctest/doctest.h>

#include <string>

#include "fake_opencl.hpp"
#include "runtime/completion.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using runtime_test::fill_launch;
using runtime_test::launches_in;

namespace {

struct CountingListener final : DrainListener {
  int calls = 0;
  bool cells_freed() override {
    ++calls;
    return true;
  }
};

// One launch on queue `queue_id` published into the completion's ring.
void publish_launch(RecordCompletion& c, std::uint64_t queue_id, cl_event event) {
  auto slot = c.ring().try_claim();
  REQUIRE(slot.value != nullptr);
  fill_launch(*slot.value, queue_id, event);
  c.ring().publish(slot);
}

// A completion of an 8-record ring writing into `file`.
struct Fixture {
  Fixture() {
    runtime_test::install_fake_opencl();
    std::string error;
    REQUIRE(c.output().open(file.path, runtime_test::kHeader, error));
    c.clocks().start();
  }
  // Ends the trace as the finaliser does, wait 0; returns finish()'s count.
  std::uint64_t end() {
    const std::uint64_t incomplete = c.finish(listener, /*wait_ns=*/0);
    c.output().finish(/*end_ns=*/1, incomplete);
    return incomplete;
  }
  shim_test::TempFile file;
  RecordCompletion c{8};
  CountingListener listener;
};

}  // namespace

TEST_CASE("completion: records without an event are written at once, seq 1, 2, 3 in ring order") {
  Fixture f;
  for (int i = 0; i < 3; ++i) publish_launch(f.c, 1, nullptr);
  // 3 published, the ring holds 8: one drain takes all 3.
  CHECK(f.c.drain_ring(f.listener) == 3);
  // Nothing was freed since: the listener is told once, at the end of the drain.
  CHECK(f.listener.calls == 1);
  CHECK(f.c.drain_ring(f.listener) == 0);
  CHECK(f.end() == 0);
  const auto launches = launches_in(f.file.path);
  REQUIRE(launches.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(launches[i].seq == i + 1);
    // No event: nothing to wait for, no device times.
    CHECK(launches[i].device_ns.empty());
  }
}

TEST_CASE("completion: a running command waits, and completes with the driver's four times") {
  Fixture f;
  FakeEvent e;
  e.status = CL_RUNNING;
  e.times[0] = 10;
  e.times[1] = 20;
  e.times[2] = 30;
  e.times[3] = 40;
  publish_launch(f.c, 1, &e);
  CHECK(f.c.drain_ring(f.listener) == 1);
  f.c.poll_pending();  // still running: kept
  e.status = CL_COMPLETE;
  f.c.poll_pending();  // done now: completed and written
  CHECK(f.end() == 0);
  const auto launches = launches_in(f.file.path);
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].status == "complete");
  CHECK(launches[0].device_ns == std::vector<std::uint64_t>{10, 20, 30, 40});
  // The record's one reference (the private event the shim asked for) was let go: the
  // test's event started at 1 and the fake counts releases down, so 1 - 1 = 0.
  CHECK(e.refs.load() == 0);
}

TEST_CASE("completion: at the end, a command still running is written incomplete and counted") {
  Fixture f;
  FakeEvent running, done;
  running.status = CL_RUNNING;
  publish_launch(f.c, 1, &done);     // complete: written at the drain
  publish_launch(f.c, 2, &running);  // never completes
  // 2 records, 1 never completes, the wait is 0: finish() returns 1, the end record says 1.
  std::int64_t incomplete = -1;
  CHECK(f.end() == 1);
  const auto launches = launches_in(f.file.path, &incomplete);
  CHECK(incomplete == 1);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].seq == 1);
  CHECK(launches[0].status == "complete");
  CHECK(launches[1].seq == 2);
  CHECK(launches[1].status == "incomplete");
  CHECK(launches[1].device_ns.empty());
}

TEST_CASE("completion: on an in-order queue the poll stops at the first command still running") {
  Fixture f;
  FakeEvent first, second;
  first.status = CL_RUNNING;
  second.status = CL_RUNNING;
  publish_launch(f.c, 7, &first);
  publish_launch(f.c, 7, &second);
  CHECK(f.c.drain_ring(f.listener) == 2);  // both running: both kept
  // The drain asked each for its status once (its END time is not available yet).
  CHECK(first.status_queries.load() == 1);
  CHECK(second.status_queries.load() == 1);
  second.status = CL_COMPLETE;  // the driver says so, but the queue is in order
  f.c.poll_pending();
  // first: asked again (2); second: behind a running command on the same in-order queue,
  // so not asked (still 1) and not completed.
  CHECK(first.status_queries.load() == 2);
  CHECK(second.status_queries.load() == 1);
  first.status = CL_COMPLETE;
  f.c.poll_pending();  // both complete now, by their END times: no status query
  CHECK(f.end() == 0);
  const auto launches = launches_in(f.file.path);
  REQUIRE(launches.size() == 2);
  CHECK(launches[0].status == "complete");
  CHECK(launches[1].status == "complete");
}
