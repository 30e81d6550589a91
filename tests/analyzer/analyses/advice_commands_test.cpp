// clprof advise's streamed state (analyses/advice/commands.hpp): two Commands instances, each
// fed a part of a run in file order and merged, hold what one instance fed the whole run
// holds, and give the same findings. Expected values derived by hand in the comments.
#include <doctest/doctest.h>

#include <tuple>

#include "advice/same_report.hpp"
#include "analyses/advice/advice.hpp"
#include "analyses/advice/commands.hpp"
#include "analyses/advice/util.hpp"
#include "format.hpp"

using namespace clprof;
using analyses::advice::Commands;
using analyses::advice::Report;
using analyses::advice::Thresholds;

namespace {

model::Launch launch(const std::string& name, uint64_t tid, int64_t host, int64_t start,
                     int64_t end, std::vector<uint64_t> gws,
                     std::optional<std::vector<uint64_t>> lws) {
  model::Launch l;
  l.name = name;
  l.tid = tid;
  l.device = 1;
  l.queue_id = 1;
  l.program_id = 1;
  l.host_begin_ns = host;
  l.host_end_ns = host + 10;
  l.start_ns = start;
  l.end_ns = end;
  l.gws = std::move(gws);
  l.lws = std::move(lws);
  return l;
}

model::Transfer transfer(const std::string& op, uint64_t tid, int64_t host, uint64_t bytes) {
  model::Transfer x;
  x.api = op == "read" ? "clEnqueueReadBuffer" : "clEnqueueWriteBuffer";
  x.op = op;
  x.tid = tid;
  x.device = 1;
  x.queue_id = 1;
  x.bytes = bytes;
  x.blocking = true;
  x.host_begin_ns = host;
  x.host_end_ns = host + 100;
  x.start_ns = host + 10;
  x.end_ns = host + 50;
  return x;
}

// Launches, in file order (process 0; tid 1 runs k, tid 2 runs m):
//   L0 k host 100,    device [1000, 2000],     gws 2053, NULL local size
//   L1 m host 150,    device [2000, 3000],     gws 64,   local 48
//   L2 k host 1000,   device [500000, 501000], gws 1031, NULL local size
//   L3 m host 1050,   device [501000, 502000], gws 64,   local 48
//   L4 k host 50,     device [100, 200],       gws 1031, NULL local size
// Transfers: X0 blocking read of 100 bytes (tid 1, host 500), X1 blocking write of 8192 bytes
// (tid 2, host 2000). Part A of the file: L0, L1, X0; part B: L2, L3, L4, X1.
model::Run sample() {
  model::Run run;
  run.launches = {launch("k", 1, 100, 1000, 2000, {2053}, std::nullopt),
                  launch("m", 2, 150, 2000, 3000, {64}, std::vector<uint64_t>{48}),
                  launch("k", 1, 1000, 500000, 501000, {1031}, std::nullopt),
                  launch("m", 2, 1050, 501000, 502000, {64}, std::vector<uint64_t>{48}),
                  launch("k", 1, 50, 100, 200, {1031}, std::nullopt)};
  run.transfers = {transfer("read", 1, 500, 100), transfer("write", 2, 2000, 8192)};
  return run;
}

// Feeds part A of `run` to `a`, part B to a second instance, and merges that into `a`.
void merged_parts(const model::Run& run, Commands& a) {
  Commands b(Thresholds(), false);
  a.add_launch(run.launches[0]);
  a.add_launch(run.launches[1]);
  a.add_transfer(run.transfers[0]);
  for (size_t i = 2; i < 5; ++i) b.add_launch(run.launches[i]);
  b.add_transfer(run.transfers[1]);
  a.merge(std::move(b));
}

}  // namespace

TEST_CASE("advise Commands: two instances merged hold what one holds") {
  const model::Run run = sample();
  const Thresholds t;
  Commands a(t, false);
  merged_parts(run, a);

  // The logged records, put back in file order by their ordinals (for_each_command gives
  // them in no particular order), B's interned names and threads renumbered into A's and its
  // ordinals shifted past A's 2 launches and 1 transfer.
  std::vector<analyses::advice::CommandRec> launches(5), transfers(2);
  size_t seen = 0;
  a.for_each_command([&](const analyses::advice::CommandRec& r) {
    ++seen;
    REQUIRE(r.ordinal < (r.transfer ? 2u : 5u));
    (r.transfer ? transfers : launches)[r.ordinal] = r;
  });
  CHECK(seen == 7);
  const std::vector<std::string> names = {"k", "m", "k", "m", "k"};
  const std::vector<uint64_t> tids = {1, 2, 1, 2, 1};
  for (size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(a.names[launches[i].name] == names[i]);
    CHECK(a.threads[launches[i].thread].second == tids[i]);
    CHECK(launches[i].host_begin == run.launches[i].host_begin_ns);
  }
  CHECK(a.names[transfers[1].name] == "clEnqueueWriteBuffer");
  CHECK(a.threads[transfers[1].thread].second == 2);
  CHECK(transfers[1].ordinal == 1);
  // First launches: k's is L4 (host 50, before L0's 100, though later in the file: B's
  // position 2 shifted by A's 2 launches), m's L1.
  std::vector<bool> first;
  for (const auto& l : launches) first.push_back(a.is_first(l));
  CHECK(first == std::vector<bool>{false, true, false, false, true});
  CHECK_FALSE(a.is_first(transfers[0]));

  const auto& tl = a.tallies;
  CHECK(tl.launches == 5);
  CHECK(tl.transfers == 2);
  // default-local-size: 5 NDRange launches, 3 with a NULL local size (L0, L2, L4), all three
  // with a prime global size of at least min_prime 64 (2053, 1031, 1031); the example global
  // size is the first in the file, L0's 2053 (A's), not L2's.
  CHECK(tl.ndrange == 5);
  CHECK(tl.null_lws == 3);
  CHECK(tl.prime == 3);
  CHECK(tl.prime_names.at("k") == 3);
  CHECK(tl.prime_gws.at("k") == "2053");
  // local-size-not-multiple: m's work-group 48, L1 (file position 1) and L3 (3): 2 launches,
  // 1000 + 1000 ns, first at 1 (B's L3 was B's position 1, shifted by A's 2 launches to 3,
  // which loses to A's 1).
  REQUIRE(tl.local_sizes.size() == 1);
  const auto& ls = tl.local_sizes.begin()->second;
  CHECK(ls.launches == 2);
  CHECK(ls.device_ns == 2000);
  CHECK(ls.first == 1);
  CHECK(std::get<4>(tl.local_sizes.begin()->first) == 48);
  // transfer-bound: both transfers small (< 64 KiB): 2 of them, host 100 + 100 ns; device
  // 40 + 40 ns for 8292 bytes; kernel time 1000 x 4 + 100 = 4100 ns.
  // In that order: small, small_host, timed_transfers, transfer_ns, transfer_bytes, kernel_ns.
  CHECK(std::vector<int64_t>{static_cast<int64_t>(tl.small), tl.small_host,
                             static_cast<int64_t>(tl.timed_transfers), tl.transfer_ns,
                             static_cast<int64_t>(tl.transfer_bytes),
                             tl.kernel_ns} == std::vector<int64_t>{2, 200, 2, 80, 8292, 4100});
  // local-size-sweep's like launches: k with 1031 twice (L2, L4), with 2053 once, m once x2.
  CHECK(tl.like.at(analyses::advice::sweep_key(0, "k", {1031}, std::nullopt)) == 2);
  CHECK(tl.like.at(analyses::advice::sweep_key(0, "k", {2053}, std::nullopt)) == 1);
  CHECK(tl.like.at(analyses::advice::sweep_key(0, "m", {64}, std::vector<uint64_t>{48})) == 2);
  // build-dominates' span of process 0: first host begin 50 (L4), last host end 2100 (X1's
  // 2000 + 100).
  CHECK(tl.spans.at(0) == std::make_pair<int64_t, int64_t>(50, 2100));
}

TEST_CASE("advise Commands: the merged instances give one instance's findings") {
  const model::Run run = sample();
  const Thresholds t;
  Commands a(t, false);
  merged_parts(run, a);
  model::Run meta;  // the metadata only, as the stream leaves it
  const Report merged = analyses::advice::advise(meta, a, t);
  const Report one = analyses::advice::advise(run, t);

  // device-idle, by hand: busy stretches [100, 200] (L4), [1000, 3000] (L0, L1), [500000,
  // 502000] (L2, L3); the gap 200 -> 1000 is under min_gap_ns 100000; 3000 -> 500000 =
  // 497000 ns is counted (L2 is not k's first launch, L4 is). Span 502000 - 100 = 501900:
  // 99.0% idle, a warning; the stretches are named by the last command to end them: m, m.
  const Report* reports[] = {&merged, &one};
  for (const Report* r : reports) {
    bool idle = false;
    for (const auto& f : r->findings)
      if (f.rule == "device-idle") {
        idle = true;
        REQUIRE(f.impact_ns);
        CHECK(*f.impact_ns == 497000);
        CHECK(f.evidence.find("lies between m and m") != std::string::npos);
        CHECK(f.title.find("idles 99.0%") != std::string::npos);
      }
    CHECK(idle);
  }
  CHECK(merged.findings.size() >= 2);  // device-idle and default-local-size at least
  test::check_same_report(merged, one);
}
