// Device times on the host clock (clock_alignment.hpp) and their users that need no
// command line: exact values on constructed runs, and the clock_sync record as the reader
// gives it to the model.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "clock_alignment.hpp"
#include "model_builders.hpp"
#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/layers_from/layers_from.hpp"

using namespace clprof;
using model::ClockAlignment;

namespace {

model::Device device(uint32_t id, bool synced, int64_t offset, int64_t uncertainty = 0) {
  model::Device d;
  d.id = id;
  d.name = "dev" + std::to_string(id);
  d.has_clock_offset = synced;
  d.device_to_host_offset_ns = offset;
  d.clock_uncertainty_ns = uncertainty;
  return d;
}

}  // namespace

TEST_CASE("clock alignment: host = device + offset, per device") {
  model::Run run;
  run.devices = {device(1, true, -1'000'000), device(2, true, 250, 7), device(3, false, 999)};
  const ClockAlignment c(run);
  CHECK(c.to_host(1, 1'000'500) == 500);
  CHECK(c.to_host(2, 0) == 250);
  CHECK(c.uncertainty_ns(2) == 7);
  // No sync: unknown, never the raw device value (nor the stale offset field).
  CHECK(c.synced(1));
  CHECK_FALSE(c.synced(3));
  CHECK_FALSE(c.to_host(3, 1000).has_value());
  CHECK_FALSE(c.uncertainty_ns(3).has_value());
  // Unknown device ids (0 = unknown, past the end).
  CHECK_FALSE(c.to_host(0, 1000).has_value());
  CHECK_FALSE(c.to_host(4, 1000).has_value());
  // Unknown times stay unknown; a sum past int64 is unknown, not wrapped.
  CHECK_FALSE(c.to_host(1, model::kNoTime).has_value());
  model::Run far;
  far.devices = {device(1, true, std::numeric_limits<int64_t>::max())};
  CHECK_FALSE(ClockAlignment(far).to_host(1, 10).has_value());
  CHECK(model::device_to_host_ns(run.devices[1], 10) == 260);
  CHECK_FALSE(model::device_to_host_ns(run.devices[2], 10).has_value());
}

TEST_CASE("clock alignment: the four phases of launches and transfers") {
  model::Run run;
  run.devices = {device(1, true, -40)};
  model::Launch l = unit::launch("k", 1000, 500);  // queued 970, submit 980, start 1000, end 1500
  const ClockAlignment c(run);
  const auto t = c.times(l);
  CHECK(t.queued_ns == 930);
  CHECK(t.submit_ns == 940);
  CHECK(t.start_ns == 960);
  CHECK(t.end_ns == 1460);
  model::Transfer x;
  x.device = 1;
  x.start_ns = 2000;
  x.end_ns = 2100;
  const auto u = c.times(x);
  CHECK_FALSE(u.queued_ns.has_value());
  CHECK(u.start_ns == 1960);
  CHECK(u.end_ns == 2060);
  l.device = 2;  // not in the run
  CHECK_FALSE(c.times(l).start_ns.has_value());
}

TEST_CASE("clock alignment: one warning per used device without a sync") {
  model::Run run;
  run.devices = {device(1, true, 0), device(2, false, 0), device(3, false, 0)};
  const auto w = model::unsynced_device_warnings(run, {1, 2});
  REQUIRE(w.size() == 1);
  CHECK(w[0].rfind("device 2 (dev2): no clock_sync", 0) == 0);
  CHECK(model::unsynced_device_warnings(run, {}).empty());
  const auto unknown = model::unsynced_device_warnings(run, {0});
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].find("unknown device") != std::string::npos);
  model::DeviceUse a, b;
  a.note(2, true);
  a.note(3, false);  // no device times: nothing to align
  b.note(1, true);
  a.merge(b);
  CHECK(a.used() == std::set<uint32_t>{1, 2});
}

TEST_CASE("clock alignment: the reader keeps the last clock_sync with its uncertainty") {
  const std::string trace =
      R"({"format":"clprof-trace","version":1,"header":{"pid":7,"host_start_ns":1000},"records":[)"
      "\n"
      R"({"type":"device","id":1,"name":"D"},)"
      "\n"
      R"({"type":"clock_sync","device_id":1,"method":"clGetDeviceAndHostTimer","offset_ns":-5,"uncertainty_ns":3},)"
      "\n"
      R"({"type":"clock_sync","device_id":1,"method":"enqueue_bracket","offset_ns":-123,"uncertainty_ns":45})"
      "\n]}\n";
  model::Run run;
  readers::Diagnostics diag;
  readers::clprof_trace_reader().read("t.json", trace, run, diag);
  REQUIRE(run.devices.size() == 1);
  CHECK(run.devices[0].has_clock_offset);
  CHECK(run.devices[0].device_to_host_offset_ns == -123);
  CHECK(run.devices[0].clock_uncertainty_ns == 45);
  CHECK(run.devices[0].clock_method == "enqueue_bracket");
  CHECK(ClockAlignment(run).to_host(1, 1123) == 1000);
}

// --layers-from looks a launch up by when it ran (its aligned device start) by default.
TEST_CASE("clock alignment: --layers-from by execution and by enqueue") {
  auto make_target = [] {
    model::Run t;
    t.processes.resize(1);
    t.processes[0].host_start_ns = 0;
    t.devices = {device(1, true, -10'000), device(2, false, 0)};
    // Enqueued at host 100..110 (inside "a"), ran at device 10'500 = host 500 (inside "b").
    model::Launch l = unit::launch("k", 10'500, 100);
    l.host_begin_ns = 100;
    l.host_end_ns = 110;
    t.launches.push_back(l);
    model::Launch u = l;  // the same on a device without sync: looked up by enqueue time
    u.device = 2;
    t.launches.push_back(u);
    return t;
  };
  model::Run source;
  source.processes.resize(1);
  source.processes[0].host_start_ns = 0;
  source.ranges = {unit::range(1, 0, "a", 0, 200), unit::range(2, 0, "b", 400, 900)};

  model::Run by_run = make_target();
  const auto r = attribute_by_host_time(by_run, source);
  CHECK(r.launches_attributed == 2);
  CHECK(r.by_enqueue == 1);
  auto name_of = [](const model::Run& run, const model::Launch& l) {
    for (const auto& g : run.ranges)
      if (!l.ranges.empty() && g.id == l.ranges.back()) return g.name;
    return std::string();
  };
  CHECK(name_of(by_run, by_run.launches[0]) == "b");
  CHECK(name_of(by_run, by_run.launches[1]) == "a");

  model::Run by_enqueue = make_target();
  LayersFromOptions o;
  o.by = LayersFromOptions::By::Enqueue;
  const auto e = attribute_by_host_time(by_enqueue, source, o);
  CHECK(e.by_enqueue == 0);
  CHECK(name_of(by_enqueue, by_enqueue.launches[0]) == "a");
  CHECK(name_of(by_enqueue, by_enqueue.launches[1]) == "a");
}
