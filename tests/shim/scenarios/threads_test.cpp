// End-to-end tests of libclprof.so on the fake driver. Threads: every launch of many threads
// recorded once, with unique seqs; objects first used by several threads at once are learnt
// whole.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "run_app.hpp"
#include "trace_checks.hpp"

using rapidjson::Value;
using namespace shim_test;

TEST_CASE(
    "threads: a queue and kernel made behind the shim's back, first used by 8 threads at "
    "once, are learnt whole (every launch names them with all their ids)") {
  const TracedRun run("lazy_objects");
  CHECK(run.app.values.at("failures") == 0);
  const Trace& t = run.trace;
  const auto devices = t.of_type("device");
  REQUIRE(devices.size() == 1);
  const long long device_id = num(*devices[0], "id");
  // Threads racing to learn the same object may each register it (duplicate object
  // records); every record must still be whole and consistent.
  std::map<long long, std::pair<long long, long long>> queues;  // id -> context, device
  for (const Value* q : t.of_type("queue"))
    queues[num(*q, "id")] = {num(*q, "context_id"), num(*q, "device_id")};
  std::map<long long, std::string> kernels;
  for (const Value* k : t.of_type("kernel")) kernels[num(*k, "id")] = str(*k, "name");
  const auto launches = t.of_type("launch");
  CHECK(launches.size() == 400);
  for (const Value* l : launches) {
    CAPTURE(num(*l, "seq"));
    CHECK(str(*l, "kernel") == "vadd");
    CHECK(kernels.count(num(*l, "kernel_id")) == 1);
    CHECK(kernels[num(*l, "kernel_id")] == "vadd");
    CHECK(num(*l, "program_id") != 0);
    CHECK(num(*l, "context_id") != 0);
    CHECK(num(*l, "device_id") == device_id);
    REQUIRE(queues.count(num(*l, "queue_id")) == 1);
    CHECK(queues[num(*l, "queue_id")].first == num(*l, "context_id"));
    CHECK(queues[num(*l, "queue_id")].second == device_id);
  }
}

TEST_CASE("threads: 8 threads x 500 launches give 4000 launch records with unique seqs") {
  const TracedRun run("threads");
  CHECK(run.app.values.at("failures") == 0);
  const Trace& t = run.trace;
  const auto launches = t.of_type("launch");
  CHECK(launches.size() == 4000);
  std::set<long long> seqs, queued, tids;
  std::map<long long, int> per_gws;
  for (const Value* l : launches) {
    seqs.insert(num(*l, "seq"));
    tids.insert(num(*l, "tid"));
    CHECK(str(*l, "status") == "complete");
    const Ints d = nums(*l, "device_ns");
    REQUIRE(d.size() == 4);
    queued.insert(d[0]);
    ++per_gws[nums(*l, "gws")[0]];
    // Each launch's stamps belong together (same command number n).
    CHECK(d[3] - d[2] == 1000 + nums(*l, "gws")[0]);
  }
  CHECK(seqs.size() == 4000);
  CHECK(queued.size() == 4000);
  CHECK(tids.size() == 8);
  CHECK(per_gws.size() == 8);
  for (const auto& [gws, count] : per_gws) CHECK(count == 500);
  check_seq_unique_and_complete(t);
  check_end_counts(t);
}
