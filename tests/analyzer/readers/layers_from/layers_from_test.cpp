// --layers-from: attributing a clprof-like run's launches to another profile's ranges by
// host time, with the clock alignment modes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "helpers.hpp"
#include "readers/armnn/armnn.hpp"
#include "readers/chrome/chrome_trace.hpp"
#include "readers/layers_from/layers_from.hpp"

using namespace clprof;
using clprof::test::range_by_id;
using clprof::test::read_with;

namespace {

// A clprof trace of pid 42 whose host time 0 is CLOCK_MONOTONIC 1 s; launches (tid 1) at
// the given relative times.
model::Run clprof_like(const std::vector<int64_t>& launch_times_ns, int64_t pid = 42) {
  model::Run run;
  model::Process p;
  p.pid = pid;
  p.host_start_ns = 1'000'000'000;
  p.source_format = "clprof-trace";
  run.processes.push_back(p);
  uint64_t seq = 0;
  for (int64_t t : launch_times_ns) {
    model::Launch l;
    l.seq = ++seq;
    l.tid = 1;
    l.name = "k" + std::to_string(seq);
    l.host_begin_ns = t;
    l.host_end_ns = t + 10;
    run.launches.push_back(l);
  }
  return run;
}

// The source: a Chrome trace on the same clock (ts in us of CLOCK_MONOTONIC): "net" holds
// the leaf events "conv1" and "relu"; pid 43 has an event covering everything.
const char* kSource = R"([
{"name":"net","ph":"X","ts":1000000,"dur":10,"pid":42,"tid":1},
{"name":"conv1","ph":"X","ts":1000000,"dur":4,"pid":42,"tid":1},
{"name":"relu","ph":"X","ts":1000008,"dur":1.5,"pid":42,"tid":1},
{"name":"other process","ph":"X","ts":0,"dur":5000000,"pid":43,"tid":1}
])";

std::vector<std::string> names(const model::Run& run, const model::Launch& l) {
  std::vector<std::string> out;
  for (uint64_t id : l.ranges) out.push_back(range_by_id(run, id)->name);
  return out;
}

}  // namespace

TEST_CASE("layers_from: same clock, innermost range, leaf events, same pid only") {
  model::Run source = read_with(readers::chrome_trace_reader(), kSource);
  model::Run target = clprof_like({100, 5000, 9000, 20000});
  LayersFromResult r = attribute_by_host_time(target, source);
  CHECK(r.used_align == LayersFromOptions::Align::Absolute);
  CHECK(r.applied_shift_ns == 0);
  CHECK(r.note.empty());
  CHECK(r.launches_attributed == 3);
  CHECK(r.launches_unattributed == 1);
  CHECK(names(target, target.launches[0]) == std::vector<std::string>{"net", "conv1"});
  CHECK(names(target, target.launches[1]) == std::vector<std::string>{"net"});
  CHECK(names(target, target.launches[2]) == std::vector<std::string>{"net", "relu"});
  CHECK(target.launches[3].ranges.empty());  // after "net"; pid 43's event is not used
  // Copied ranges are on the target's timeline and shared between launches.
  const model::Range* net = range_by_id(target, target.launches[0].ranges[0]);
  CHECK(net->host_begin_ns == 0);
  CHECK(net->host_end_ns == 10000);
  CHECK(target.launches[1].ranges[0] == net->id);
  CHECK(target.ranges.size() == 3);
}

TEST_CASE("layers_from: without a matching pid every source process is used") {
  model::Run source = read_with(readers::chrome_trace_reader(), kSource);
  model::Run target = clprof_like({20000}, /*pid=*/7);
  LayersFromResult r = attribute_by_host_time(target, source);
  CHECK(r.launches_attributed == 1);
  CHECK(names(target, target.launches[0]) == std::vector<std::string>{"other process"});
}

TEST_CASE("layers_from: explicit offset and first-event alignment") {
  model::Run source = read_with(readers::chrome_trace_reader(), kSource);
  SUBCASE("absolute with offset: the source happened 5 us later on the target clock") {
    model::Run target = clprof_like({5100, 20000});
    LayersFromOptions o;
    o.align = LayersFromOptions::Align::Absolute;
    o.offset_ns = 5000;
    LayersFromResult r = attribute_by_host_time(target, source, o);
    CHECK(r.applied_shift_ns == 5000);
    CHECK(names(target, target.launches[0]) == std::vector<std::string>{"net", "conv1"});
    CHECK(target.launches[1].ranges.empty());
  }
  SUBCASE("auto falls back to first-event alignment when the clocks do not overlap") {
    model::Run target = clprof_like({100, 5000, 9000});
    target.processes[0].host_start_ns = 50'000'000'000;  // another clock origin
    target.processes[0].pid = 7;
    model::Run src = read_with(readers::chrome_trace_reader(),
                               R"([{"name":"net","ph":"X","ts":1000000,"dur":10,"pid":1,"tid":1},
                                   {"name":"relu","ph":"X","ts":1000008,"dur":1.5,"pid":1,"tid":1}])");
    LayersFromResult r = attribute_by_host_time(target, src);
    CHECK(r.used_align == LayersFromOptions::Align::FirstEvent);
    CHECK_FALSE(r.note.empty());
    CHECK(r.applied_shift_ns == 50'000'000'100 - 1'000'000'000);
    // Shifted so that "net" begins at the first launch (t = 100).
    CHECK(names(target, target.launches[0]) == std::vector<std::string>{"net"});
    CHECK(names(target, target.launches[2]) == std::vector<std::string>{"net", "relu"});
  }
}

TEST_CASE("layers_from: keep_existing_ranges, match_tid, launches without host time") {
  model::Run source = read_with(readers::chrome_trace_reader(), kSource);
  model::Run target = clprof_like({100, 9000, 9100});
  model::Range own;
  own.id = 1;
  own.name = "my marker";
  target.ranges.push_back(own);
  target.launches[0].ranges = {1};
  target.launches[1].tid = 2;
  target.launches[2].host_begin_ns = model::kNoTime;
  LayersFromOptions o;
  o.keep_existing_ranges = true;
  o.match_tid = true;
  LayersFromResult r = attribute_by_host_time(target, source, o);
  CHECK(names(target, target.launches[0]) == std::vector<std::string>{"net", "conv1", "my marker"});
  CHECK(target.launches[1].ranges.empty());  // tid 2 has no source events
  CHECK(r.launches_attributed == 1);
  CHECK(r.launches_unattributed == 2);
  std::vector<uint64_t> ids;
  for (const auto& range : target.ranges) ids.push_back(range.id);
  CHECK(ids == std::vector<uint64_t>{1, 2, 3});  // copies get fresh ids after the existing one
}

TEST_CASE("layers_from: Arm NN workload ranges (steady_clock stamps) as the source") {
  // Two inferences; in inference 1 CopyMemGeneric_Execute_#3 [1000, 1712.75] us overlaps
  // the start of ClConvolution2dWorkload_Execute_#4 [1000, 7997.122] us.
  model::Run source =
      read_with(readers::armnn_reader(), test::fixture("armnn_profile_small_constructed.json"));
  model::Run target = clprof_like({1'500'000, 2'000'000, 22'000'000, 40'000'000});
  target.processes[0].host_start_ns = 0;  // same steady clock, host time 0 = clock 0
  LayersFromResult r = attribute_by_host_time(target, source);
  CHECK(r.used_align == LayersFromOptions::Align::Absolute);
  CHECK(names(target, target.launches[0]) ==
        std::vector<std::string>{"inference", "CopyMemGeneric_Execute_#3"});
  CHECK(names(target, target.launches[1]) ==
        std::vector<std::string>{"inference", "ClConvolution2dWorkload_Execute_#4"});
  CHECK(names(target, target.launches[2]) ==
        std::vector<std::string>{"inference", "ClConvolution2dWorkload_Execute_#4"});
  CHECK(target.launches[1].ranges[0] != target.launches[2].ranges[0]);  // inferences 1 and 2
  CHECK(target.launches[3].ranges.empty());
  CHECK(r.launches_attributed == 3);
}
