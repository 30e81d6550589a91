// The facts commands' analyses: transfers (maps are not copies), the time window, the host
// API table, the first-launch check and the builds table.
#include <doctest/doctest.h>

#include <stdexcept>

#include "analyses/api.hpp"
#include "analyses/builds.hpp"
#include "analyses/kernel_signatures.hpp"
#include "analyses/kernels.hpp"
#include "analyses/time_window.hpp"
#include "analyses/transfers.hpp"
#include "model_builders.hpp"

using namespace clprof;

namespace {

model::Transfer transfer(const std::string& op, uint64_t bytes, int64_t start, int64_t duration) {
  model::Transfer t;
  t.op = op;
  t.api = "clEnqueue" + op;
  t.device = 1;
  t.bytes = bytes;
  t.start_ns = start;
  t.end_ns = start + duration;
  return t;
}

model::Run cpu_run(const std::string& type) {
  model::Run run = unit::one_process_run({""});  // one device, unnamed
  run.devices[0].type = type;
  return run;
}

}  // namespace

TEST_CASE("size classes: upper bounds are exclusive") {
  CHECK(analyses::size_class(0) == 0);
  CHECK(analyses::size_class(4095) == 0);
  CHECK(analyses::size_class(4096) == 1);
  CHECK(analyses::size_class((uint64_t{1} << 20) - 1) == 2);
  CHECK(analyses::size_class(uint64_t{1} << 20) == 3);
  CHECK(analyses::size_class(UINT64_MAX) == 4);
}

TEST_CASE("transfers: maps and unmaps are not bytes moved; GB/s over the timed moving ones") {
  analyses::TransfersAnalysis a;
  a.add_transfer(transfer("write", 1 << 20, 0, 1 << 19));  // 2 GB/s
  a.add_transfer(transfer("write", 1 << 20, 10, 1 << 19));
  auto untimed = transfer("write", 100, 0, 0);
  untimed.start_ns = untimed.end_ns = model::kNoTime;
  a.add_transfer(untimed);
  a.add_transfer(transfer("map", 4 << 20, 0, 100));
  a.add_transfer(transfer("unmap", 4 << 20, 0, 100));
  for (const std::string type : {"CPU", "GPU"}) {
    CAPTURE(type);
    const auto rows = analyses::transfer_rows(a, cpu_run(type));
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].op == "write");
    CHECK(rows[1].op == "map");
    CHECK(rows[2].op == "unmap");
    CHECK(rows[0].total.count == 3);
    CHECK(rows[0].total.bytes == (2u << 20) + 100);
    CHECK(rows[0].total.timed == 2);
    CHECK(*rows[0].total.gbps(rows[0].moves) == doctest::Approx(2.0));
    CHECK(rows[0].sizes.size() == 2);  // <4 KiB and 1-16 MiB
    CHECK(!rows[1].total.gbps(rows[1].moves));
    if (type == "CPU")
      CHECK(*rows[1].total.moved(rows[1].moves) == 0);
    else
      CHECK(!rows[1].total.moved(rows[1].moves));
    const auto totals = analyses::transfer_totals(rows);
    CHECK(totals.moved.bytes == (2u << 20) + 100);
    CHECK(totals.maps.count == 2);
    CHECK(totals.maps.bytes == 8u << 20);
    CHECK(totals.maps_moving_nothing == (type == "CPU" ? 2u : 0u));
  }
}

TEST_CASE("transfers: merging per-thread analyses sums their figures") {
  analyses::TransfersAnalysis a, b;
  a.add_transfer(transfer("read", 8192, 0, 4096));
  b.add_transfer(transfer("read", 8192, 0, 8192));
  a.merge(std::move(b));
  const auto rows = analyses::transfer_rows(a, cpu_run("GPU"));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].total.count == 2);
  CHECK(rows[0].total.max_ns == 8192);
  CHECK(*rows[0].total.mean_ns() == 6144);
}

TEST_CASE("--time-window: units, open sides and refusals") {
  auto w = analyses::parse_time_window("1.5ms:2s");
  CHECK(w.begin_ns == 1500000);
  CHECK(w.end_ns == 2000000000);
  CHECK(w.contains(1500000));
  CHECK(!w.contains(2000000000));
  w = analyses::parse_time_window(":500us");
  CHECK(w.begin_ns == INT64_MIN);
  CHECK(w.end_ns == 500000);
  w = analyses::parse_time_window("10ns:");
  CHECK(w.end_ns == INT64_MAX);
  for (const char* bad :
       {"", ":", "1:2", "2ms:1ms", "1ms", "x:1s", "1.0000000001s:2s", "99999999999999s:"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(analyses::parse_time_window(bad), std::invalid_argument);
  }
}

TEST_CASE("--time-window: keep_window drops the run's commands outside it") {
  model::Run run = cpu_run("GPU");
  run.processes[0].host_start_ns = 0;
  for (int64_t t : {100, 200, 300}) {
    auto x = transfer("read", 10, 0, 10);
    x.host_begin_ns = t;
    x.host_end_ns = t + 10;
    run.transfers.push_back(x);
    model::Sync s;
    s.api = "clFinish";
    s.host_begin_ns = t;
    s.host_end_ns = t + 1;
    run.syncs.push_back(s);
  }
  model::Sync timeless;
  run.syncs.push_back(timeless);
  const auto left_out = analyses::keep_window(run, analyses::parse_time_window("150ns:300ns"));
  CHECK(left_out == 1);
  REQUIRE(run.transfers.size() == 1);
  CHECK(run.transfers[0].host_begin_ns == 200);
  REQUIRE(run.syncs.size() == 1);
  CHECK(run.syncs[0].host_begin_ns == 200);
}

TEST_CASE("api: calls, errors and host time per function; --by thread splits them") {
  model::Run run = cpu_run("GPU");
  auto l = unit::launch("k", 1000, 10);
  l.api = "clEnqueueNDRangeKernel";
  l.tid = 7;
  auto l2 = l;
  l2.tid = 8;
  l2.host_end_ns = l2.host_begin_ns + 30;
  l2.rc = -5;
  auto importer = l;
  importer.api = "trace_event";  // an importer's launch: no API call
  model::Sync s;
  s.api = "clFinish";
  s.tid = 7;
  s.host_begin_ns = 0;
  s.host_end_ns = 100;
  run.syncs.push_back(s);
  for (auto by : {analyses::GroupBy::None, analyses::GroupBy::Thread}) {
    analyses::ApiAnalysis a(by);
    a.add_launch(l);
    a.add_launch(l2);
    a.add_launch(importer);
    a.add_run_calls(run);
    const auto rows = analyses::api_rows(a);
    if (by == analyses::GroupBy::None) {
      REQUIRE(rows.size() == 2);
      CHECK(rows[0].function == "clFinish");
      CHECK(rows[0].stats.total_ns == 100);
      CHECK(rows[1].function == "clEnqueueNDRangeKernel");
      CHECK(rows[1].calls == 2);
      CHECK(rows[1].stats.total_ns == 40);
      CHECK(rows[1].stats.max_ns == 30);
      CHECK(rows[1].errors == 1);
      CHECK(rows[1].error_codes == "CL_OUT_OF_RESOURCES x1");
      CHECK(*rows[0].percent == doctest::Approx(100.0 * 100 / 140));
    } else {
      CHECK(rows.size() == 3);  // thread 7: clFinish, enqueue; thread 8: enqueue
    }
  }
}

TEST_CASE("first launch: flagged only when it dominates the median and the total") {
  std::map<std::string, analyses::KernelAccumulator> acc;
  acc["jit"].add(unit::launch("jit", 0, 100000, {}, 1));
  for (uint64_t i = 2; i < 6; ++i) acc["jit"].add(unit::launch("jit", 1000000 * i, 100, {}, i));
  acc["steady"].add(unit::launch("steady", 0, 500, {}, 10));
  acc["steady"].add(unit::launch("steady", 0, 400, {}, 11));
  const int64_t total = analyses::total_kernel_ns(acc);
  const auto rows = analyses::make_kernel_rows(acc, total, nullptr);
  const auto heavy = analyses::first_launch_dominates(rows, total);
  REQUIRE(heavy.size() == 1);
  CHECK(heavy[0]->name == "jit");
  CHECK(*heavy[0]->first_ns == 100000);
}

TEST_CASE("builds: rows with status and kernels; find_program refuses what it cannot name") {
  model::Run run = cpu_run("CPU");
  run.devices[0].name = "cpu0";
  model::Program p;
  p.id = 3;
  p.origin = "source";
  p.source_hash = "fnv1a64:00000000000000a1";
  p.source_bytes = 10;
  p.source = "kernel void k() {}";
  run.programs.push_back(p);
  model::Build ok;
  ok.api = "clBuildProgram";
  ok.program_id = 3;
  ok.devices = {1};
  ok.host_begin_ns = 10;
  ok.host_end_ns = 50;
  ok.kernels = {"k"};
  model::Build bad = ok;
  bad.rc = -11;
  bad.kernels.clear();
  bad.host_begin_ns = 60;
  bad.host_end_ns = 70;
  bad.logs = {"error: x undeclared\n"};
  model::Build bad2 = bad;  // two devices: each log under its device's name
  bad2.devices = {1, 2};
  bad2.logs = {"first", "second\n"};
  bad2.host_begin_ns = 80;
  run.builds = {bad, ok, bad2};
  const auto rows = analyses::build_rows(run);
  REQUIRE(rows.size() == 3);
  CHECK_FALSE(rows[0].log.has_value());
  CHECK(rows[1].log == "error: x undeclared\n");
  CHECK(rows[2].log == "== cpu0 ==\nfirst\n== device 2 ==\nsecond\n");
  CHECK(rows[0].status == "ok");
  CHECK(*rows[0].time_ns == 40);
  CHECK(rows[0].source_captured);
  CHECK(rows[0].devices == std::vector<std::string>{"cpu0"});
  CHECK(rows[1].status == "CL_BUILD_PROGRAM_FAILURE");
  CHECK(analyses::find_program(run, "3").source == p.source);
  CHECK_THROWS_AS(analyses::find_program(run, "4"), std::invalid_argument);
  CHECK_THROWS_AS(analyses::find_program(run, "x"), std::invalid_argument);
}

TEST_CASE(
    "kernel signatures: float, double and half scalars from the source; pointers and others "
    "unknown") {
  using T = analyses::ScalarType;
  const char* src =
      "// void scale(int commented_out)\n"
      "float helper(float x) { return x; }\n"
      "__kernel void scale(__global float* x, const float a, double b, half h, int n, float4 v) "
      "{}\n"
      "kernel void empty() {}\n";
  CHECK(analyses::kernel_param_types(src, "scale") ==
        std::vector<T>{T::Unknown, T::Float, T::Double, T::Half, T::Unknown, T::Unknown});
  CHECK(analyses::kernel_param_types(src, "empty").empty());
  CHECK(analyses::kernel_param_types(src, "helper").empty());  // not a void function
  CHECK(analyses::kernel_param_types(src, "missing").empty());
  CHECK(analyses::kernel_param_types("kernel void cut(float a", "cut").empty());
}

TEST_CASE("kernel signatures: recorded argument type names") {
  using T = analyses::ScalarType;
  CHECK(analyses::arg_type_name_types(
            {"float", "float*", "double", "half", "uint", "float4", "const float"}) ==
        std::vector<T>{T::Float, T::Unknown, T::Double, T::Half, T::Unknown, T::Unknown, T::Float});
  CHECK(analyses::arg_type_name_types({}).empty());
}
