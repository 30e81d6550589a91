// advise's ordered rules over the commands' log (analyses/advice/commands.hpp, util::host_order,
// rules_device.cpp): records that arrive out of host and device order, read by one Commands,
// by two merged in file order, and with every log and sort going through the temporary file
// (spill limits lowered), give the same findings, whose figures are derived by hand below.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "advice/same_report.hpp"
#include "analyses/advice/advice.hpp"
#include "analyses/advice/commands.hpp"
#include "analyses/spill.hpp"

using namespace clprof;
using analyses::advice::Commands;
using analyses::advice::Finding;
using analyses::advice::Report;
using analyses::advice::Thresholds;

namespace {

model::Launch launch(const std::string& name, int64_t host, int64_t start, int64_t end,
                     uint64_t queue = 1) {
  model::Launch l;
  l.name = name;
  l.tid = 1;
  l.device = 1;
  l.queue_id = queue;
  l.host_begin_ns = host;
  l.host_end_ns = host + 10;
  l.start_ns = start;
  l.end_ns = end;
  l.gws = {1024};
  l.lws = std::vector<uint64_t>{64};
  return l;
}

// Host order of thread 1 (the file has the launches in another order, below):
//   La k host 100, device [1000, 2000]
//   S1 clFinish host [200, 300]
//   Lb k host 400, device [2500, 3000]
//   T  blocking read host [500, 550], device [600, 620] (20 ns)
//   Lc m host 700, rc -5 (failed, no device times)
//   Ld m host 800, device [3100, 3200]
// File order of the launches: Ld, Lb, Lc, La.
model::Run host_run() {
  model::Run run;
  model::Launch lc = launch("m", 700, model::kNoTime, model::kNoTime);
  lc.rc = -5;
  run.launches = {launch("m", 800, 3100, 3200), launch("k", 400, 2500, 3000), lc,
                  launch("k", 100, 1000, 2000)};
  model::Transfer t;
  t.tid = 1;
  t.api = "clEnqueueReadBuffer";
  t.op = "read";
  t.device = 1;
  t.queue_id = 1;
  t.bytes = 4096;
  t.blocking = true;
  t.host_begin_ns = 500;
  t.host_end_ns = 550;
  t.start_ns = 600;
  t.end_ns = 620;
  run.transfers = {t};
  model::Sync s;
  s.tid = 1;
  s.api = "clFinish";
  s.queue_id = 1;
  s.host_begin_ns = 200;
  s.host_end_ns = 300;
  run.syncs = {s};
  return run;
}

// Three queues of one device, their launches in the file out of start order:
//   queue 1: [0, 100] and [200, 300]; queue 2: [50, 250]; queue 3: [260, 280].
model::Run queue_run() {
  model::Run run;
  run.launches = {launch("b", 10, 50, 250, 2), launch("a", 20, 200, 300, 1),
                  launch("c", 30, 260, 280, 3), launch("a", 5, 0, 100, 1)};
  return run;
}

// The report of `run` read by two Commands (the first `split` launches, then the rest and
// every transfer), merged in file order; the syncs stay in the metadata.
Report two_parts(const model::Run& run, size_t split, const Thresholds& t) {
  Commands a(t, false), b(t, false);
  for (size_t i = 0; i < run.launches.size(); ++i) (i < split ? a : b).add_launch(run.launches[i]);
  for (const auto& x : run.transfers) b.add_transfer(x);
  a.merge(std::move(b));
  model::Run meta = run;
  meta.launches.clear();
  meta.transfers.clear();
  return analyses::advice::advise(meta, a, t);
}

const Finding* of_rule(const Report& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

void same(const Report& x, const Report& y) {
  test::check_same_report(x, y);
}

struct Limits {
  explicit Limits(analyses::SpillLimits l) : saved(analyses::spill_limits()) {
    analyses::set_spill_limits(l);
  }
  ~Limits() { analyses::set_spill_limits(saved); }
  analyses::SpillLimits saved;
};

}  // namespace

TEST_CASE("advise ordered rules: host order per thread, whatever the file order") {
  Thresholds t;
  t.set("sync-after-each-launch.min_launches=1");
  t.set("sync-after-each-launch.ratio=0.2");
  t.set("blocking-transfer.min_count=1");
  const model::Run run = host_run();
  const Report one = analyses::advice::advise(run, t);

  // sync-after-each-launch: 4 launches with a host begin, La followed at once by S1: 1 of 4
  // (25% >= 20%). Impact: S1's 100 ns. The next launch after S1 is Lb, same device, both
  // timed, not k's first launch (La, host 100, is): the device idled 2500 - 2000 = 500 ns.
  const Finding* f = of_rule(one, "sync-after-each-launch");
  REQUIRE(f);
  CHECK(f->title == "1 of 4 launches are followed by a wait before the next enqueue");
  REQUIRE(f->impact_ns);
  CHECK(*f->impact_ns == 100);
  CHECK(f->evidence.find("the device idled 500 ns") != std::string::npos);
  CHECK(f->subjects == std::vector<std::string>{"k", "clFinish"});
  // blocking-transfer: T lies between Lb and Lc: 1 transfer, host 50 ns, of it 50 - 20 = 30
  // beyond its device time (impact); the launch after it is m (Lc).
  f = of_rule(one, "blocking-transfer");
  REQUIRE(f);
  REQUIRE(f->impact_ns);
  CHECK(*f->impact_ns == 30);
  CHECK(f->subjects == std::vector<std::string>{"clEnqueueReadBuffer", "m"});
  // api-errors: Lc failed and Ld followed it: 1 ignored failure, a warning.
  f = of_rule(one, "api-errors");
  REQUIRE(f);
  CHECK(f->title.find("1 enqueue failure was followed by more enqueues") != std::string::npos);
  CHECK(f->severity == analyses::advice::Severity::Warning);

  // Read in the file's order (Ld, Lb, Lc, La) the sync would follow no launch: the order is
  // the host's, so split anywhere, or spilled, the findings are these.
  for (size_t split = 0; split <= run.launches.size(); ++split) {
    CAPTURE(split);
    same(two_parts(run, split, t), one);
  }
  Limits limits({1, 1});  // every record through the file, every sort in runs of 2
  same(analyses::advice::advise(run, t), one);
  same(two_parts(run, 2, t), one);
}

TEST_CASE("advise ordered rules: queue overlap summed over pairs of queues") {
  // Busy per queue: 1: 100 + 100 = 200, 2: 200, 3: 20; total 420, the busiest 200, the
  // smaller queues' 220. Overlap by pairs: 1 and 2: [50, 100] + [200, 250] = 100; 1 and 3:
  // [260, 280] = 20; 2 and 3: none: 120 ns, 54.5% of 220 (over the default 1%: silent; a
  // max_overlap of 0.6 fires it).
  const model::Run run = queue_run();
  CHECK(of_rule(analyses::advice::advise(run), "queue-serialisation") == nullptr);
  Thresholds t;
  t.set("queue-serialisation.max_overlap=0.6");
  const Report one = analyses::advice::advise(run, t);
  const Finding* f = of_rule(one, "queue-serialisation");
  REQUIRE(f);
  CHECK(f->title == "3 queues on device 1 never run at the same time");
  REQUIRE(f->impact_ns);
  CHECK(*f->impact_ns == 220);
  CHECK(f->evidence.find("they overlap 120 ns (54.5% of the smaller queues' 220 ns)") !=
        std::string::npos);
  CHECK(f->subjects == std::vector<std::string>{"queue 1", "queue 2", "queue 3"});
  for (size_t split = 0; split <= run.launches.size(); ++split) {
    CAPTURE(split);
    same(two_parts(run, split, t), one);
  }
  Limits limits({1, 1});
  same(analyses::advice::advise(run, t), one);
}

TEST_CASE("advise ordered rules: a kernel's first launch, equal host begins") {
  // Two launches of k with host begin 100: the first in the file is the first launch, even
  // when the two were read by different Commands. device-idle: stretches [0, 10] (La) and
  // [200000, 200010] (Lb): a gap of 199990 ns, not warm-up (Lb is not the first launch):
  // counted. Were Lb taken for the first launch, the gap would be warm-up and the rule silent.
  model::Run run;
  run.launches = {launch("k", 100, 0, 10), launch("k", 100, 200000, 200010)};
  const Report one = analyses::advice::advise(run);
  const Finding* f = of_rule(one, "device-idle");
  REQUIRE(f);
  REQUIRE(f->impact_ns);
  CHECK(*f->impact_ns == 199990);
  same(two_parts(run, 1, Thresholds()), one);
  // Lb earlier on the host (host 50): it is k's first launch; the gap is warm-up.
  run.launches[1].host_begin_ns = 50;
  CHECK(of_rule(analyses::advice::advise(run), "device-idle") == nullptr);
  CHECK(of_rule(two_parts(run, 1, Thresholds()), "device-idle") == nullptr);
}
