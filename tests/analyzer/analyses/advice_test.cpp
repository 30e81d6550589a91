// clprof advise's rules (analyses/advice/) on small hand-built runs. Each case states the
// figures by hand in its comments; the rule must fire on the positive run with exactly those
// and stay silent on the negative one.
#include <doctest/doctest.h>

#include <stdexcept>

#include "analyses/advice/advice.hpp"
#include "model_builders.hpp"

using namespace clprof;
using analyses::advice::Finding;
using analyses::advice::Report;
using analyses::advice::Severity;
using analyses::advice::Thresholds;

namespace {

// A launch on tid 1, host [host, host + enqueue], device [start, start + duration] (no
// device times when start is kNoTime).
model::Launch launch_at(const std::string& name, int64_t host, int64_t enqueue, int64_t start,
                        int64_t duration) {
  model::Launch l;
  l.name = name;
  l.tid = 1;
  l.device = 1;
  l.queue_id = 1;
  l.host_begin_ns = host;
  l.host_end_ns = host + enqueue;
  if (start != model::kNoTime) {
    l.start_ns = start;
    l.end_ns = start + duration;
  }
  l.lws = std::vector<uint64_t>{64};
  l.gws = {1024};
  return l;
}

model::Sync finish_at(int64_t begin, int64_t end) {
  model::Sync s;
  s.tid = 1;
  s.api = "clFinish";
  s.queue_id = 1;
  s.host_begin_ns = begin;
  s.host_end_ns = end;
  return s;
}

model::Transfer read_at(int64_t host, int64_t host_len, int64_t device_len, bool blocking,
                        uint64_t bytes = 4096) {
  model::Transfer t;
  t.tid = 1;
  t.api = "clEnqueueReadBuffer";
  t.op = "read";
  t.device = 1;
  t.queue_id = 1;
  t.bytes = bytes;
  t.blocking = blocking;
  t.host_begin_ns = host;
  t.host_end_ns = host + host_len;
  t.start_ns = host;  // device clock = host clock here
  t.end_ns = host + device_len;
  return t;
}

model::Build build_at(const std::string& hash, const std::string& options, int64_t begin,
                      int64_t end) {
  model::Build b;
  b.api = "clBuildProgram";
  b.source_hash = hash;
  b.options = options;
  b.host_begin_ns = begin;
  b.host_end_ns = end;
  b.kernels = {"k"};
  return b;
}

std::vector<Finding> of_rule(const Report& r, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : r.findings)
    if (f.rule == rule) out.push_back(f);
  return out;
}

bool not_evaluated(const Report& r, const std::string& rule) {
  for (const auto& n : r.not_evaluated)
    if (n.rule == rule) return true;
  return false;
}

}  // namespace

TEST_CASE("advise sync-after-each-launch: a clFinish after each of 10 launches") {
  // Launch i: host [1000i, 1000i + 10], device [1000i + 100, 1000i + 150]; clFinish at
  // [1000i + 20, 1000i + 80]. All 10 launches are followed by a sync (100% >= 50%).
  // Host in the syncs: 10 x 60 = 600 ns = impact. Device idle from launch i's end
  // (1000i + 150) to launch i+1's start (1000(i+1) + 100) = 950 ns, for i = 0..8: 9 x 950 =
  // 8550 ns (launch 0 is k's first launch, but it is never the *next* launch).
  model::Run run;
  for (int64_t i = 0; i < 10; ++i) {
    run.launches.push_back(launch_at("k", 1000 * i, 10, 1000 * i + 100, 50));
    run.syncs.push_back(finish_at(1000 * i + 20, 1000 * i + 80));
  }
  const auto f = of_rule(analyses::advice::advise(run), "sync-after-each-launch");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 600);
  CHECK(f[0].evidence.find("device idled 8.550 us") != std::string::npos);
  CHECK(f[0].evidence.find("10 of 10 launches (100.0%)") != std::string::npos);
  CHECK(f[0].evidence.find("600 ns in those waits") != std::string::npos);
  CHECK(f[0].subjects == std::vector<std::string>{"k", "clFinish"});

  // 9 launches: below min_launches (10), nothing.
  model::Run nine = run;
  nine.launches.pop_back();
  nine.syncs.pop_back();
  CHECK(of_rule(analyses::advice::advise(nine), "sync-after-each-launch").empty());
}

TEST_CASE("advise sync-after-each-launch: one clFinish at the end is fine") {
  // 10 launches, one clFinish after the last: 1 of 10 (10%) < 50%: no finding.
  model::Run run;
  for (int64_t i = 0; i < 10; ++i)
    run.launches.push_back(launch_at("k", 1000 * i, 10, 1000 * i + 100, 50));
  run.syncs.push_back(finish_at(10000, 10100));
  CHECK(of_rule(analyses::advice::advise(run), "sync-after-each-launch").empty());
  // ratio 0.1: fires; impact the one wait's 100 ns. The synced launch (the last) has no
  // next launch: the device idle is unknown and the evidence says so.
  Thresholds t;
  t.set("sync-after-each-launch.ratio=0.1");
  auto f = of_rule(analyses::advice::advise(run, t), "sync-after-each-launch");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 100);
  CHECK(f[0].evidence.find("no device times to say how long the device idled") !=
        std::string::npos);
  // The wait untimed: impact unknown, null (not 0).
  run.syncs[0].host_end_ns = model::kNoTime;
  f = of_rule(analyses::advice::advise(run, t), "sync-after-each-launch");
  REQUIRE(f.size() == 1);
  CHECK_FALSE(f[0].impact_ns.has_value());
}

TEST_CASE("advise blocking-transfer: blocking reads between launches") {
  // L R L R L R L (host order), each read blocking, 100 ns on the host, 40 ns on the device:
  // 3 blocking transfers between launches, 12 KiB, host 300 ns, beyond the device time
  // 3 x (100 - 40) = 180 ns = impact.
  model::Run run;
  for (int64_t i = 0; i < 4; ++i) {
    run.launches.push_back(launch_at("k", 1000 * i, 10, 1000 * i, 50));
    if (i < 3) run.transfers.push_back(read_at(1000 * i + 500, 100, 40, true));
  }
  const auto f = of_rule(analyses::advice::advise(run), "blocking-transfer");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 180);
  CHECK(f[0].evidence.find("3 blocking transfers (clEnqueueReadBuffer x3, 12.0 KiB)") !=
        std::string::npos);

  // The same reads non-blocking: nothing. Blocking, but all after the last launch: nothing.
  model::Run nb = run;
  for (auto& t : nb.transfers) t.blocking = false;
  CHECK(of_rule(analyses::advice::advise(nb), "blocking-transfer").empty());
  model::Run after = run;
  for (size_t i = 0; i < after.transfers.size(); ++i)
    after.transfers[i].host_begin_ns = 10000 + 200 * static_cast<int64_t>(i);
  CHECK(of_rule(analyses::advice::advise(after), "blocking-transfer").empty());
}

TEST_CASE("advise launch-bound: 100 kernels of 1 us behind 5 us enqueues") {
  // 100 launches, 1000 ns on the device (< tiny_ns 20000 and < the enqueue's 5000 ns):
  // 100 tiny of 100 (100% >= 50%), impact = 100 x 5000 = 500000 ns.
  model::Run run;
  for (int64_t i = 0; i < 100; ++i)
    run.launches.push_back(launch_at("tiny", 10000 * i, 5000, 10000 * i, 1000));
  const auto f = of_rule(analyses::advice::advise(run), "launch-bound");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 500000);
  // Enqueue rate: 99 intervals over 990000 ns = 100000 launches/s.
  CHECK(f[0].evidence.find("enqueue rate 100000 launches/s") != std::string::npos);

  // 30 us kernels: not tiny.
  model::Run big = run;
  for (auto& l : big.launches) l.end_ns = l.start_ns + 30000;
  CHECK(of_rule(analyses::advice::advise(big), "launch-bound").empty());
  // No device times: not evaluated, never a silent pass.
  model::Run untimed = run;
  for (auto& l : untimed.launches) l.start_ns = l.end_ns = model::kNoTime;
  const auto r = analyses::advice::advise(untimed);
  CHECK(of_rule(r, "launch-bound").empty());
  CHECK(not_evaluated(r, "launch-bound"));
  CHECK(not_evaluated(r, "device-idle"));
}

TEST_CASE("advise repeated-build: one source and options built three times") {
  // Hash abc with -O2 built in 100, 200 and 300 ns: impact 600 - fastest 100 = 500 ns. The
  // build of abc with other options is another program.
  model::Run run;
  run.processes.resize(1);
  run.builds = {build_at("abc", "-O2", 0, 100), build_at("abc", "-O2", 1000, 1200),
                build_at("abc", "-O2", 2000, 2300), build_at("abc", "", 3000, 3100)};
  const auto f = of_rule(analyses::advice::advise(run), "repeated-build");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 500);
  CHECK(f[0].subjects == std::vector<std::string>{"abc", "k"});
  CHECK(f[0].evidence ==
        "source abc with options '-O2' was built 3 times, 600 ns in all (fastest 100 ns)");

  model::Run distinct;
  distinct.processes.resize(1);
  distinct.builds = {build_at("abc", "-O2", 0, 100), build_at("def", "-O2", 1000, 1200)};
  CHECK(of_rule(analyses::advice::advise(distinct), "repeated-build").empty());
}

TEST_CASE("advise build-dominates: 3 ms of builds in a 10 ms run") {
  // Build [0, 3 ms], a launch at 3 ms, a clFinish ending at 10 ms: wall 10 ms, builds 30%
  // >= 20% and >= 1 ms: fires, impact 3 ms; info below warning_ns (1 s), warning from it.
  model::Run run;
  run.processes.resize(1);
  run.builds = {build_at("abc", "", 0, 3000000)};
  run.launches.push_back(launch_at("k", 3000000, 10, 3000000, 50));
  run.syncs.push_back(finish_at(9999000, 10000000));
  const auto f = of_rule(analyses::advice::advise(run), "build-dominates");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 3000000);
  CHECK(f[0].title == "program builds take 30.0% of the wall time");
  CHECK(f[0].severity == Severity::Info);  // 3 ms < warning_ns (1 s)
  Thresholds t;
  t.set("build-dominates.warning_ns=3000000");
  CHECK(of_rule(analyses::advice::advise(run, t), "build-dominates")[0].severity ==
        Severity::Warning);
  // A 1 ms build: 10% < 20%.
  run.builds[0].host_end_ns = 1000000;
  CHECK(of_rule(analyses::advice::advise(run), "build-dominates").empty());
}

TEST_CASE("advise default-local-size: NULL local size, prime global size") {
  // prime (1021 >= 64, NULL): warning; 1024 NULL and 61 NULL (prime < 64): info, 2 launches;
  // 1024 with local 64: nothing.
  model::Run run;
  auto l = launch_at("p", 0, 10, 0, 10);
  l.lws.reset();
  l.gws = {1021};
  run.launches.push_back(l);
  l.name = "q";
  l.gws = {1024};
  run.launches.push_back(l);
  l.name = "r";
  l.gws = {61};
  run.launches.push_back(l);
  run.launches.push_back(launch_at("s", 100, 10, 100, 10));
  const auto f = of_rule(analyses::advice::advise(run), "default-local-size");
  REQUIRE(f.size() == 2);
  const auto& warn = f[0].severity == Severity::Warning ? f[0] : f[1];
  const auto& info = f[0].severity == Severity::Warning ? f[1] : f[0];
  CHECK(warn.severity == Severity::Warning);
  CHECK(warn.subjects == std::vector<std::string>{"p"});
  CHECK(warn.evidence.find("p 1021") != std::string::npos);
  CHECK(info.severity == Severity::Info);
  CHECK(info.title == "2 launches with a NULL local size");
  CHECK(info.subjects == std::vector<std::string>{"q", "r"});
  CHECK_FALSE(warn.impact_ns.has_value());
  // Every launch with its local size: nothing.
  model::Run good;
  good.launches.push_back(launch_at("s", 0, 10, 0, 10));
  CHECK(of_rule(analyses::advice::advise(good), "default-local-size").empty());
}

TEST_CASE("advise device-idle: a 1 ms gap in a 1.3 ms span") {
  // Device busy [0, 100 us] (a), [1100 us, 1200 us] (b), [1250 us, 1300 us] (c): gaps 1000 us
  // (counted) and 50 us (< min_gap 100 us). Span 1300 us, idle 1000 us = 76.9% >= 50%:
  // warning, impact 1000 us, largest gap between a and b. (b and c are not their kernels'
  // first launches: those come earlier, at host 0, on device 2.)
  model::Run run;
  run.launches = {launch_at("a", 0, 10, 0, 100000), launch_at("b", 10, 10, 1100000, 100000),
                  launch_at("c", 20, 10, 1250000, 50000)};
  for (const char* k : {"b", "c"}) {
    run.launches.push_back(launch_at(k, 0, 1, 0, 10));
    run.launches.back().device = 2;
  }
  const auto f = of_rule(analyses::advice::advise(run), "device-idle");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 1000000);
  CHECK(f[0].title == "device 1 idles 76.9% of its busy span");
  CHECK(f[0].evidence.find("between a and b") != std::string::npos);
  // b's first launch being the one after the gap: warm-up, not counted (nothing fires).
  model::Run warm = run;
  warm.launches.resize(3);
  CHECK(of_rule(analyses::advice::advise(warm), "device-idle").empty());
  // b queued (device clock) at 50 us, before a ended (100 us): the host had fed the device,
  // the gap is the driver's: not counted. Queued at 150 us, after a's end: counted again.
  model::Run latency = run;
  latency.launches[1].queued_ns = 50000;
  CHECK(of_rule(analyses::advice::advise(latency), "device-idle").empty());
  latency.launches[1].queued_ns = 150000;
  CHECK(of_rule(analyses::advice::advise(latency), "device-idle").size() == 1);
  // Back to back: nothing.
  run.launches[1].start_ns = 100000;
  run.launches[1].end_ns = 200000;
  run.launches[2].start_ns = 200000;
  run.launches[2].end_ns = 250000;
  CHECK(of_rule(analyses::advice::advise(run), "device-idle").empty());
}

TEST_CASE("advise queue-serialisation: two queues that take turns") {
  // Queue 1 [0,100], [200,300]; queue 2 [100,200], [300,400]: busy 200 each, overlap 0 <=
  // 1% of 200: fires (info), impact = total 400 - busiest 200 = 200 ns.
  model::Run run;
  auto add = [&run](uint64_t q, int64_t start) {
    auto l = launch_at("k" + std::to_string(q), start, 10, start, 100);
    l.queue_id = q;
    run.launches.push_back(l);
  };
  add(1, 0);
  add(2, 100);
  add(1, 200);
  add(2, 300);
  const auto f = of_rule(analyses::advice::advise(run), "queue-serialisation");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Info);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 200);
  CHECK(f[0].subjects == std::vector<std::string>{"queue 1", "queue 2"});
  // Queue 2 at [50,150], [250,350]: overlap 50 + 50 = 100 > 2 ns: nothing.
  run.launches[1].start_ns = 50;
  run.launches[1].end_ns = 150;
  run.launches[3].start_ns = 250;
  run.launches[3].end_ns = 350;
  CHECK(of_rule(analyses::advice::advise(run), "queue-serialisation").empty());
}

TEST_CASE("advise api-errors: an ignored enqueue failure is a warning, a failed build info") {
  // Launch 1 returns CL_INVALID_WORK_GROUP_SIZE (-54) and the thread enqueues again: warning.
  model::Run run;
  run.launches = {launch_at("k", 0, 10, model::kNoTime, 0), launch_at("k", 100, 10, 200, 50)};
  run.launches[0].rc = -54;
  run.launches[0].status = "not_enqueued";
  auto f = of_rule(analyses::advice::advise(run), "api-errors");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  CHECK(f[0].evidence.find("clEnqueueNDRangeKernel CL_INVALID_WORK_GROUP_SIZE x1") !=
        std::string::npos);
  CHECK_FALSE(f[0].impact_ns.has_value());
  // Only a failed build (CL_BUILD_PROGRAM_FAILURE, -11): info.
  model::Run build;
  build.builds = {build_at("abc", "", 0, 100)};
  build.builds[0].rc = -11;
  f = of_rule(analyses::advice::advise(build), "api-errors");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Info);
  // No error: nothing.
  CHECK(of_rule(analyses::advice::advise(model::Run{}), "api-errors").empty());
}

TEST_CASE("advise transfer-bound: transfers against kernels, and many small ones") {
  // Kernel 1000 ns; a 1 MiB read taking 600 ns on the device: 600 >= 0.5 x 1000: warning,
  // impact 600 ns. 400 ns: below.
  model::Run run;
  run.launches.push_back(launch_at("k", 0, 10, 0, 1000));
  run.transfers.push_back(read_at(2000, 700, 600, false, 1 << 20));
  auto f = of_rule(analyses::advice::advise(run), "transfer-bound");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 600);
  run.transfers[0].end_ns = run.transfers[0].start_ns + 400;
  CHECK(of_rule(analyses::advice::advise(run), "transfer-bound").empty());
  // 100 reads of 1 KiB (< 64 KiB), 1 ns each on the device (100 ns < 500 ns): only the
  // many-small finding, info, no impact estimate.
  model::Run small;
  small.launches.push_back(launch_at("k", 0, 10, 0, 1000));
  for (int64_t i = 0; i < 100; ++i)
    small.transfers.push_back(read_at(2000 + 10 * i, 5, 1, false, 1024));
  f = of_rule(analyses::advice::advise(small), "transfer-bound");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Info);
  CHECK_FALSE(f[0].impact_ns.has_value());
  CHECK(f[0].title == "100 transfers of under 64.0 KiB");
}

TEST_CASE("advise gemm-padding: CLBlast helpers' share of the GEMM time") {
  // Xgemm 700 ns, CopyPadMatrix 200, TransposeMatrixFast 100: helpers 300 of 1000 = 30%
  // >= 20%: warning, impact 300 ns. CopyPadMatrix 100 against Xgemm 900: 10%: nothing.
  model::Run run;
  run.launches = {launch_at("CopyPadMatrix", 0, 10, 0, 200),
                  launch_at("TransposeMatrixFast", 10, 10, 200, 100),
                  launch_at("Xgemm", 20, 10, 300, 700)};
  auto f = of_rule(analyses::advice::advise(run), "gemm-padding");
  REQUIRE(f.size() == 1);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 300);
  CHECK(f[0].title == "CLBlast's pad/copy/transpose kernels take 30.0% of the GEMM time");
  run.launches = {launch_at("CopyPadMatrix", 0, 10, 0, 100), launch_at("Xgemm", 20, 10, 300, 900)};
  CHECK(of_rule(analyses::advice::advise(run), "gemm-padding").empty());
}

TEST_CASE("advise: ranking, thresholds, the rules the trace cannot support") {
  // Findings with an impact first, largest first; then the unknown ones, warnings first.
  model::Run run;
  run.launches.push_back(launch_at("CopyPadMatrix", 0, 10, 0, 500));  // gemm-padding 500 ns
  run.launches.push_back(launch_at("Xgemm", 20, 10, 500, 500));
  run.launches.push_back(launch_at("k", 30, 10, 1000, 10));
  run.launches.back().lws.reset();  // default-local-size, info, no impact
  run.transfers.push_back(read_at(2000, 700, 600, false, 1 << 20));  // transfer-bound: 600 ns
  const auto r = analyses::advice::advise(run);
  REQUIRE(r.findings.size() >= 3);
  CHECK(r.findings[0].rule == "transfer-bound");
  CHECK(r.findings[1].rule == "gemm-padding");
  CHECK(r.findings.back().rule == "default-local-size");
  for (const char* rule :
       {"local-size-not-multiple", "object-leak", "rank-imbalance", "gemm-below-peak"})
    CHECK(not_evaluated(r, rule));

  Thresholds t;
  CHECK_THROWS_WITH_AS(t.set("nope.x=1"), doctest::Contains("no rule 'nope'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set("device-idle.foo=1"), doctest::Contains("has no threshold 'foo'"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(t.set("device-idle.share=-1"), doctest::Contains("finite number >= 0"),
                       std::invalid_argument);
  CHECK_THROWS_AS(t.set("device-idle.share"), std::invalid_argument);
  t.set("device-idle.share=0.75");
  CHECK(t.get("device-idle", "share") == 0.75);
}

TEST_CASE("advise local-size-not-multiple: work-groups of 48 where the kernel prefers 32") {
  // kernel_device: k prefers multiples of 32 on device 1. Two launches of lws 48 (not a
  // multiple: 48 % 32 = 16), 1000 ns each, one of lws 64 (a multiple), 1000 ns: bad 2000 of
  // 3000 ns = 66.7% >= 10%: warning. Impact: each lws-48 group fills round_up(48, 32) = 64
  // lanes, 16 idle: 2000 * 16 / 64 = 500 ns.
  model::Run run;
  // process 0, kernel 0, program 0, "k" on device 1: multiple 32, at most 256.
  run.kernel_devices.push_back(model::KernelDevice{0, 0, 0, "k", 1, 32, 256});
  for (int i = 0; i < 3; ++i) {
    run.launches.push_back(launch_at("k", i * 2000, 10, i * 2000, 1000));
    run.launches.back().lws = std::vector<uint64_t>{i < 2 ? 48u : 64u};
  }
  auto f = of_rule(analyses::advice::advise(run), "local-size-not-multiple");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 500);
  CHECK(f[0].title ==
        "2 launches with a work-group that is not a multiple of the kernel's preferred size");
  CHECK(f[0].evidence.find("k: work-group 48 against a preferred multiple of 32") !=
        std::string::npos);
  // 2D lws 8x4 = 32: a multiple; nothing fires.
  for (auto& l : run.launches) l.lws = std::vector<uint64_t>{8, 4};
  CHECK(of_rule(analyses::advice::advise(run), "local-size-not-multiple").empty());
  CHECK_FALSE(not_evaluated(analyses::advice::advise(run), "local-size-not-multiple"));
}

TEST_CASE("advise object-leak: live counts in the end record") {
  // 200 buffers of 4 KiB (800 KiB) and 1 kernel alive: 200 >= 100: warning, no impact.
  // A process with 3 buffers and nothing else: info. All zero: nothing.
  model::Run run;
  run.processes.resize(1);
  run.processes[0].pid = 42;
  run.processes[0].live_objects = std::vector<std::pair<std::string, uint64_t>>{
      {"buffers", 200},   {"buffer_bytes", 819200}, {"images", 0},
      {"image_bytes", 0}, {"kernels", 1},           {"events", 0}};
  auto f = of_rule(analyses::advice::advise(run), "object-leak");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  CHECK_FALSE(f[0].impact_ns.has_value());
  CHECK(f[0].title == "OpenCL objects still alive at exit: 200 buffers (800.0 KiB), 1 kernel");
  run.processes[0].live_objects = std::vector<std::pair<std::string, uint64_t>>{
      {"buffers", 3}, {"buffer_bytes", 12}, {"events", 0}};
  f = of_rule(analyses::advice::advise(run), "object-leak");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Info);
  run.processes[0].live_objects =
      std::vector<std::pair<std::string, uint64_t>>{{"buffers", 0}, {"events", 0}};
  const auto r = analyses::advice::advise(run);
  CHECK(of_rule(r, "object-leak").empty());
  CHECK_FALSE(not_evaluated(r, "object-leak"));
  run.processes[0].live_objects.reset();  // a trace before version 4
  CHECK(not_evaluated(analyses::advice::advise(run), "object-leak"));
}

TEST_CASE("advise rank-imbalance: rank 1 runs three times the kernel time of rank 0") {
  // Work = launches x median device time per kernel (the lower median). Each kernel's
  // first launch in each process is left out (it may hold the driver's
  // compilation): the 500 ns and 100 ns launches at host 0 and 10. Rank 0: a 1000 ns;
  // rank 1: a 1000 + b 2000 = 3000 ns. Mean 2000, slowest 3000: imbalance
  // (3000 - 2000) / 3000 = 33.3% >= 25%: warning; impact 1000 ns. The kernel: b's excess
  // on rank 1 = 2000 - 2000/2 = 1000 > a's 1000 - 2000/2 = 0.
  model::Run run;
  run.processes.resize(2);
  run.processes[0].rank = 0;
  run.processes[1].rank = 1;
  run.processes[0].world_size = run.processes[1].world_size = 2;
  auto on = [&](uint32_t process, const std::string& name, int64_t host, int64_t duration) {
    run.launches.push_back(launch_at(name, host, 5, host, duration));
    run.launches.back().process = process;
  };
  on(0, "a", 0, 500);
  on(0, "a", 1000, 1000);
  on(1, "a", 0, 500);
  on(1, "b", 10, 100);
  on(1, "a", 1000, 1000);
  on(1, "b", 3000, 2000);
  auto f = of_rule(analyses::advice::advise(run), "rank-imbalance");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 1000);
  CHECK(f[0].subjects == std::vector<std::string>{"rank 1", "b"});
  CHECK(f[0].title == "rank 1 runs 50.0% more kernel time than the ranks' mean; most of it in b");
  // Balanced: rank 0 also runs b (its first launch left out, then 2000 ns).
  on(0, "b", 10, 100);
  on(0, "b", 3000, 2000);
  CHECK(of_rule(analyses::advice::advise(run), "rank-imbalance").empty());
  // One preempted launch: rank 0's b [2000, 20000] counts 2 x 2000 (its lower median), as
  // rank 1's b [2000, 2000] does: still balanced (summed, 22000 against 4000 would fire).
  on(0, "b", 6000, 20000);
  on(1, "b", 6000, 2000);
  CHECK(of_rule(analyses::advice::advise(run), "rank-imbalance").empty());
  // One rank only: not evaluated.
  run.processes[1].rank = 0;
  CHECK(not_evaluated(analyses::advice::advise(run), "rank-imbalance"));
}

TEST_CASE("advise gemm-below-peak: a 1024^3 SGEMM at 107 GFLOPS against a 1000 GFLOPS peak") {
  // A recorded CLBlastSgemm call (m = n = k = 1024) whose one kernel ran 20 ms:
  // 2*1024^3 = 2147483648 FLOP in 20000000 ns = 107.37 GFLOPS, 10.7% < 25% of 1000:
  // warning; impact 20000000 - 2147483648 / (0.25 * 1000) = 20000000 - 8589934 (truncated)
  // = 11410066 ns. Against 100 GFLOPS it is 107% >= 25%: nothing. Without a peak: not
  // evaluated.
  model::Run run;
  run.processes.resize(1);
  model::BlasCall c;
  c.id = 7;
  c.library = "clblast";
  c.api = "CLBlastSgemm";
  c.routine = "gemm";
  c.precision = "s";
  c.m = c.n = c.k = 1024;
  c.batch = 1;
  c.host_begin_ns = 0;
  c.host_end_ns = 30000000;
  c.status = 0;
  run.blas_calls.push_back(c);
  run.launches.push_back(launch_at("Xgemm", 0, 10, 0, 20000000));
  run.launches.back().call = 7;
  Thresholds t;
  CHECK(not_evaluated(analyses::advice::advise(run, t), "gemm-below-peak"));
  t.set_peak_gflops(1000);
  auto f = of_rule(analyses::advice::advise(run, t), "gemm-below-peak");
  REQUIRE(f.size() == 1);
  CHECK(f[0].severity == Severity::Warning);
  REQUIRE(f[0].impact_ns);
  CHECK(*f[0].impact_ns == 11410066);
  CHECK(f[0].title == "GEMMs reach 107.4 GFLOPS, 10.7% of the 1000 GFLOPS peak");
  t.set_peak_gflops(100);
  CHECK(of_rule(analyses::advice::advise(run, t), "gemm-below-peak").empty());
}

TEST_CASE("advise new_findings: keyed by rule and subjects, in the other run's order") {
  auto finding = [](std::string rule, Severity s, std::vector<std::string> subjects) {
    Finding f;
    f.rule = std::move(rule);
    f.severity = s;
    f.title = "t";
    f.subjects = std::move(subjects);
    return f;
  };
  Report base, other;
  base.findings = {finding("device-idle", Severity::Info, {"dev", "a", "b"}),
                   finding("default-local-size", Severity::Info, {"k1"})};
  // By hand: device-idle about the same subjects at another severity is not new; the same
  // rule about another kernel (k2) is; a rule BASE lacks (launch-bound) is; the order is
  // OTHER's.
  other.findings = {finding("launch-bound", Severity::Warning, {"k1"}),
                    finding("device-idle", Severity::Warning, {"dev", "a", "b"}),
                    finding("default-local-size", Severity::Info, {"k2"})};
  const auto fresh = analyses::advice::new_findings(base, other);
  REQUIRE(fresh.size() == 2);
  CHECK(fresh[0] == &other.findings[0]);
  CHECK(fresh[1] == &other.findings[2]);
  CHECK(analyses::advice::new_findings(other, other).empty());
  CHECK(analyses::advice::new_findings(Report{}, other).size() == 3);
}
