// Chrome Trace Event importer: array/object forms, unterminated arrays, B/E nesting, Neural
// Engine operator traces.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "helpers.hpp"
#include "readers/chrome/chrome_trace.hpp"

using namespace clprof;
using clprof::test::fixture;
using clprof::test::range_by_id;
using clprof::test::read_with;

namespace {

std::vector<std::string> chain_names(const model::Run& run, const model::Launch& l) {
  std::vector<std::string> out;
  for (uint64_t id : l.ranges) out.push_back(range_by_id(run, id)->name);
  return out;
}

const model::Launch& launch_named(const model::Run& run, const std::string& name) {
  for (const auto& l : run.launches)
    if (l.name == name) return l;
  FAIL("no launch " << name);
  throw 0;
}

}  // namespace

TEST_CASE("chrome: unterminated array form (trailing comma, no ']')") {
  readers::Diagnostics diag;
  model::Run run =
      test::read_one_process(readers::chrome_trace_reader(),
                             "chrome_trace_array_unterminated_sample.json", diag, "chrome");
  const auto& p = run.processes[0];
  CHECK(p.pid == 1);
  CHECK(p.command_line == std::vector<std::string>{"clprof (app.exe)"});
  CHECK(p.host_start_ns == 1000000);  // ts 1000.0 us
  REQUIRE(run.ranges.size() == 1);
  CHECK(run.ranges[0].name == "conv1 (layer)");
  CHECK(run.ranges[0].host_begin_ns == 0);
  CHECK(run.ranges[0].host_end_ns == 6401000);
  // The "api" event is a host API call (clprof api), not a kernel.
  REQUIRE(run.launches.size() == 1);
  REQUIRE(run.api_calls.size() == 1);
  const auto& api = run.api_calls[0];
  CHECK(api.name == "clEnqueueNDRangeKernel");
  CHECK(api.tid == 1);
  CHECK(api.host_begin_ns == 2500);
  CHECK(api.host_end_ns - api.host_begin_ns == 4100);
  // The GPU queue is another thread: its kernel is not inside the host thread's layer.
  const auto& kernel = launch_named(run, "direct_convolution3x3");
  CHECK(kernel.ranges.empty());
  CHECK(kernel.duration_override_ns == 6359792);  // 6359.792 us, exactly
  CHECK(kernel.tid == 1001);
  CHECK_FALSE(kernel.has_device_times());
  REQUIRE(run.marks.size() == 1);
  CHECK(run.marks[0].name == "clFinish");
  CHECK(run.marks[0].host_ns == 6400000);
  CHECK(diag.warnings.empty());
}

TEST_CASE("chrome: Neural Engine operators become launches inside iteration ranges") {
  model::Run run = read_with(readers::chrome_trace_reader(),
                             fixture("itrex_engine_profiling_trace_sample.json"));
  REQUIRE(run.processes.size() == 1);
  CHECK(run.processes[0].iteration_wall_ns.empty());
  REQUIRE(run.ranges.size() == 3);
  CHECK(run.ranges[1].name == "Iteration0");
  CHECK(run.ranges[1].host_end_ns - run.ranges[1].host_begin_ns == 618000);
  REQUIRE(run.launches.size() == 12);
  const auto& first = run.launches[0];
  CHECK(first.name == "padding_sequence");
  CHECK(chain_names(run, first) == std::vector<std::string>{"model_inference", "Iteration0"});
  const auto& add37 = run.launches[7];
  CHECK(add37.name == "Add_37");
  CHECK(chain_names(run, add37) == std::vector<std::string>{"model_inference", "Iteration1"});
  CHECK(add37.duration_override_ns == 75000);
  CHECK(add37.extra.at("chrome.cat") == "InnerProduct");
  CHECK(add37.extra.at("chrome.args.forward_time") == "0.075ms");
  CHECK(add37.extra.at("chrome.args.input_shape") == "1024*256,256*256,256");
  int64_t per_iteration[2] = {0, 0};
  for (const auto& l : run.launches)
    per_iteration[chain_names(run, l)[1] == "Iteration1"] += *l.duration_ns();
  CHECK(per_iteration[0] == 618000);
  CHECK(per_iteration[1] == 400000);
}

TEST_CASE("chrome: B/E nesting per thread, fractional ts, unmatched B and E") {
  readers::Diagnostics diag;
  model::Run run =
      read_with(readers::chrome_trace_reader(), fixture("chrome_begin_end_nesting.json"), &diag);
  CHECK(run.processes.at(0).host_start_ns == 100001);  // 100.0005 us rounds to 100001 ns
  std::vector<std::string> ranges;
  for (const auto& r : run.ranges) ranges.push_back(r.name);
  CHECK(ranges == std::vector<std::string>{"network", "conv1", "cut short"});
  CHECK(run.ranges[0].left_open);
  CHECK_FALSE(run.ranges[1].left_open);
  CHECK(run.ranges[1].host_begin_ns == 110000 - 100001);
  CHECK(run.ranges[1].host_end_ns == 120000 - 100001);
  REQUIRE(run.launches.size() == 5);
  std::vector<std::string> order;
  for (const auto& l : run.launches) order.push_back(l.name);
  CHECK(order == std::vector<std::string>{"im2col", "other thread", "gemm", "relu1", "last op"});
  CHECK(run.launches[4].seq == 5);
  CHECK(chain_names(run, run.launches[0]) == std::vector<std::string>{"network", "conv1"});
  CHECK(run.launches[0].duration_override_ns == 2500);
  CHECK(run.launches[0].extra.at("chrome.args.m") == "64");
  CHECK(run.launches[0].extra.at("chrome.args.shape") == "[1,2]");
  CHECK(run.launches[1].ranges.empty());  // tid 2
  CHECK(chain_names(run, run.launches[3]) == std::vector<std::string>{"network"});
  CHECK(chain_names(run, run.launches[4]) == std::vector<std::string>{"network", "cut short"});
  REQUIRE(run.marks.size() == 1);
  CHECK(run.marks[0].host_ns == 126000 - 100001);
  REQUIRE(diag.warnings.size() == 2);
  CHECK(diag.warnings[0].find("2 B events without their E") != std::string::npos);
  CHECK(diag.warnings[1].find("1 E events without a B") != std::string::npos);
}

TEST_CASE("chrome: array form terminated, with or without trailing comma, gives the same model") {
  std::string events = R"({"name":"a","ph":"X","ts":1,"dur":10,"pid":1,"tid":1},
{"name":"b","ph":"X","ts":2,"dur":3,"pid":1,"tid":1})";
  for (std::string text :
       {"[" + events + "]", "[" + events + ",\n]", "[" + events + ",\n", "[" + events}) {
    CAPTURE(text);
    model::Run run = read_with(readers::chrome_trace_reader(), text);
    REQUIRE(run.ranges.size() == 1);
    REQUIRE(run.launches.size() == 1);
    CHECK(run.launches[0].name == "b");
    CHECK(run.launches[0].host_begin_ns == 1000);
  }
}

TEST_CASE("chrome: sniff") {
  test::check_sniff(
      readers::chrome_trace_reader(), "chrome",
      {"[\n{\"name\":\"process_name\",\"ph\":\"M\"", "{\"otherData\": {}, \"traceEvents\": [{"},
      {"[{\"call\": \"clFinish\"}, {\"ph\": 1}]"});
}

TEST_CASE("chrome: malformed input points at file:line:column") {
  test::check_errors(
      readers::chrome_trace_reader(),
      {
          {"[{\"name\":\"a\",\"ts\":1}]",
           "bad.json:1:2: expected member \"ph\" (the event phase) in this trace event"},
          {"[\n{\"ph\":\"X\",\"ts\":\"1\"}]",
           "bad.json:2:16: expected ts (microseconds) (a number), found a string"},
          {"[{\"ph\":\"X\",\"ts\":1,\"dur\":-5}]", "bad.json:1:25: expected dur >= 0"},
          {"[{\"ph\":\"X\",\"ts\":1} {\"ph\":\"X\",\"ts\":1}]",
           "bad.json:1:20: expected ',' or ']' after a trace event"},
          {"{\"traceEvents\": 5}",
           "bad.json:1:17: expected \"traceEvents\" (an array), found a number"},
          {"{\"events\": []}", "bad.json:1:1: expected member \"traceEvents\" in this object"},
          {"[{\"ph\":\"X\",\"ts\":1e400}]",
           "bad.json:1:17: invalid JSON: Number too big to be stored in double"},
          {"[3]", "bad.json:1:2: expected a trace event (an object), found a number"},
          {"",
           "bad.json:1:1: expected a Chrome trace ({\"traceEvents\": [...]} or [...]), found end "
           "of "
           "input"},
      });
}
