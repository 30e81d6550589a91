// `clprof timeline` on every kind of input and every option: the output follows the viewers'
// rules (tests/support/timeline_check.hpp), every launch appears once, and the figures the
// hand-written trace aligned.json fixes are where they belong. The exact output of a few
// cases is in tests/golden/timeline-*.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <set>

#include "cli_support.hpp"
#include "occurrences.hpp"
#include "timeline_check.hpp"

using clitest::run;

namespace {

const std::vector<std::string> kClprofInputs = {"@basic.json", "@aligned.json",
                                                "@long_layers.json"};
// The importers' fixtures (tests/analyzer/readers/<format>/data/), as <format>/data/<name>.
const std::vector<std::string> kImportedInputs = {
    "armnn/data/armnn_profile_small_constructed.json",
    "armnn/data/armnn_profile_mobilenet_v2.json",
    "armnn/data/armnn_profile_pyarmnn_mock_multi_inference.json",
    "dvdt_prof/data/dvdt_prof_sample_small.json",
    "dvdt_prof/data/dvdt_prof_sample.json",
    "chrome/data/chrome_begin_end_nesting.json",
    "chrome/data/itrex_engine_profiling_trace_sample.json",
    "caffe/data/caffe_per_layer_info_squeezenet_sample.json",
    "caffe/data/caffe_time_stderr_constructed_sample.log",
    "armnn/data/armnn_executenetwork_stdout_mobilenet_v2.txt"};
const std::vector<std::vector<std::string>> kOptions = {
    {}, {"--per-kernel"}, {"--stages"}, {"--per-kernel", "--stages"}};

std::string importer_data(const std::string& name) {
  return clitest::data("../readers/" + name);
}

clprof::test::TimelineFindings timeline(const std::vector<std::string>& args,
                                        std::string* err = nullptr) {
  const std::string out = clitest::temp_dir() + "/t.json";
  std::vector<std::string> a = {"timeline", "-o", out};
  a.insert(a.end(), args.begin(), args.end());
  const auto r = run(a);
  INFO("clprof " << a.back() << ": " << r.err);
  REQUIRE(r.status == 0);
  if (err) *err = r.err;
  const auto f = clprof::test::check_timeline(clitest::read_file(out));
  CHECK_MESSAGE(f.errors.empty(), clprof::test::describe(f));
  return f;
}

// (pid, seq) -> whether the launch has host-aligned times, from `clprof launches`.
std::map<std::pair<uint32_t, uint64_t>, bool> launches_of(const std::string& input) {
  const auto r = run({"launches", "--format", "json", input});
  REQUIRE(r.status == 0);
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  REQUIRE(d.IsArray());
  std::map<std::pair<uint32_t, uint64_t>, bool> out;
  for (const auto& l : d.GetArray())
    out[{static_cast<uint32_t>(l["pid"].GetInt64()), l["seq"].GetUint64()}] =
        !l["host_start_ns"].IsNull();
  return out;
}

}  // namespace

TEST_CASE("timeline: every input and option gives a trace the viewers accept") {
  for (const auto& options : kOptions) {
    for (const auto& input : kClprofInputs) {
      CAPTURE(input);
      CAPTURE(options.size());
      std::vector<std::string> args = options;
      args.push_back(input);
      auto f = timeline(args);
      CHECK(f.slices > 0);
    }
    for (const auto& name : kImportedInputs) {
      CAPTURE(name);
      CAPTURE(options.size());
      std::vector<std::string> args = options;
      args.push_back(importer_data(name));
      auto f = timeline(args);
      CHECK(f.slices > 0);  // every importer's input has something to show
    }
  }
}

TEST_CASE(
    "timeline: every launch of a clprof trace appears once, on its thread and (when aligned) on "
    "its queue") {
  for (const auto& input : kClprofInputs) {
    CAPTURE(input);
    for (const auto& options : kOptions) {
      std::vector<std::string> args = options;
      args.push_back(input);
      auto f = timeline(args);
      const auto launches = launches_of(input);
      size_t aligned = 0;
      for (const auto& [key, has_host_times] : launches) {
        CAPTURE(key.second);
        CHECK(f.host_commands.count(key) == 1);
        if (f.host_commands.count(key)) CHECK(f.host_commands.at(key) == 1);
        CHECK(f.device_commands.count(key) == (has_host_times ? 1u : 0u));
        if (f.device_commands.count(key)) CHECK(f.device_commands.at(key) == 1);
        aligned += has_host_times;
      }
      CHECK(f.by_cat["kernel"] == aligned);
    }
  }
}

TEST_CASE("timeline: aligned.json's figures") {
  std::string err;
  auto f = timeline({"@aligned.json"}, &err);
  // DSP1 has no clock_sync: its launch and write stay on the host track only, with one warning.
  CHECK(err.find("warning: device 2 (DSP1): no clock_sync") != std::string::npos);
  // Device slices: 5 kernels and the read of GPU0; each linked to its enqueue.
  CHECK(f.by_cat["kernel"] == 5);
  CHECK(f.by_cat["transfer"] == 1);
  CHECK(f.flows == 6);
  // Queue 2's two launches overlap ([1007, 2507] and [2007, 3007] ns): two lanes.
  CHECK(f.by_track["queue 2 (GPU0, out of order)"] == 1);
  CHECK(f.by_track["queue 2 (GPU0, out of order) #2"] == 1);
  CHECK(f.by_track["queue 1 (GPU0)"] == 4);
  CHECK(f.by_track["program builds (thread not recorded)"] == 2);
  CHECK(f.process_names.at(200) == "app (pid 200)");
  // Thread 11: ranges net, conv1, fc; 4 enqueues; clFinish; the blocking read = 9 slices, 1 mark.
  CHECK(f.by_track["thread 11"] == 9);
  CHECK(f.instants == 1);

  auto s = timeline({"--stages", "--per-kernel", "@aligned.json"});
  CHECK(s.track_names.count("kernel vadd · running"));
  CHECK(s.track_names.count("kernel vadd · queued"));
  CHECK(s.track_names.count("kernel vadd · submitted"));
  CHECK(s.track_names.count("transfers read · running"));
  CHECK(s.by_cat["queued"] == 6);
  CHECK(s.by_cat["submitted"] == 6);
  CHECK(s.flows == 6);
}

TEST_CASE("timeline: the exact time of a kernel on the host clock") {
  const std::string out = clitest::temp_dir() + "/t.json";
  REQUIRE(run({"timeline", "-o", out, "@aligned.json"}).status == 0);
  const std::string text = clitest::read_file(out);
  // Origin: process start 7000000 less GPU0's uncertainty 40. XgemmDirectNN starts at device
  // 5000507 = host 507 (last clock_sync: offset -5000000), i.e. 547 ns after the origin.
  CHECK(text.find("\"ts_origin_ns\":6999960") != std::string::npos);
  CHECK(text.find("{\"ph\":\"X\",\"ts\":0.547,\"dur\":1.000,\"pid\":200,") != std::string::npos);
}

TEST_CASE("timeline: --filter keeps the launches of the selection") {
  auto f = timeline({"--filter", "^vadd$", "@aligned.json"});
  std::set<uint64_t> seqs;
  for (const auto& [key, n] : f.host_commands) seqs.insert(key.second);
  // vadd launches 2, 3, 9 and the transfers 6 and 10 (transfers are not filtered).
  CHECK(seqs == std::set<uint64_t>{2, 3, 6, 9, 10});
}

// A device record after launches on it makes the reader deliver the file's records twice:
// the first delivery must leave no trace in the output.
TEST_CASE("timeline: a device recorded after its first launch") {
  const std::string head =
      R"({"format":"clprof-trace","version":1,"header":{"pid":9,"command_line":["x"],"host_start_ns":1000},"records":[)";
  const std::string trace =
      head + "\n" + R"({"type":"device","id":1,"name":"A"},)" + "\n" +
      R"({"type":"launch","seq":1,"tid":9,"rc":0,"kernel":"k","kernel_id":1,"program_id":1,"queue_id":1,"context_id":1,"device_id":1,"gwo":null,"gws":[1],"lws":null,"args":[],"host_ns":[10,20],"device_ns":[100,110,120,130],"status":"complete","ranges":[]},)" +
      "\n" + R"({"type":"device","id":2,"name":"B"},)" + "\n" +
      R"({"type":"launch","seq":2,"tid":9,"rc":0,"kernel":"k","kernel_id":1,"program_id":1,"queue_id":2,"context_id":1,"device_id":2,"gwo":null,"gws":[1],"lws":null,"args":[],"host_ns":[30,40],"device_ns":[200,210,220,230],"status":"complete","ranges":[]},)" +
      "\n" +
      R"({"type":"clock_sync","device_id":1,"method":"clGetDeviceAndHostTimer","offset_ns":-50,"uncertainty_ns":0},)" +
      "\n" +
      R"({"type":"clock_sync","device_id":2,"method":"clGetDeviceAndHostTimer","offset_ns":-150,"uncertainty_ns":0},)" +
      "\n" + R"({"type":"end","host_ns":100,"counts":{},"incomplete":0,"dropped":0})" + "\n]}\n";
  auto f = timeline({clitest::write_temp("late_device.json", trace)});
  CHECK(f.host_commands == std::map<std::pair<uint32_t, uint64_t>, int>{{{9, 1}, 1}, {{9, 2}, 1}});
  CHECK(f.device_commands ==
        std::map<std::pair<uint32_t, uint64_t>, int>{{{9, 1}, 1}, {{9, 2}, 1}});
  CHECK(f.track_names.count("queue 2 (B)"));
  CHECK(f.flows == 2);
}

// A trace cut short (vector_add_cut.json: a real PoCL recording without its clock_sync and end
// record, tests/analyzer/data/README.md): the offset is estimated from the launches' and
// transfers' enqueue calls, said once, and used as the recorded one would be. The recorded
// offset was -1671276771478 ns +/- 234: the estimate must lie within its own bound of it
// (the two intervals meet), and every kernel gets its device slice.
TEST_CASE("timeline: a trace cut short gets its clock estimated from its commands") {
  std::string err;
  auto f = timeline({"@vector_add_cut.json"}, &err);
  CHECK(err.find("trace is truncated") != std::string::npos);
  CHECK(err.find("warning: device 1 (pthread-skylake-avx512-AMD EPYC") != std::string::npos);
  CHECK(err.find("its trace ends (cut short) before its clock_sync; its clock is estimated from "
                 "its commands' enqueue calls: host = device + offset, offset ") !=
        std::string::npos);
  // Said once, with the bound.
  CHECK(clprof::test::occurrences(err, "its clock is estimated") == 1);
  CHECK(err.find(" ns +/- ") != std::string::npos);
  // 7 launches and 5 transfers, all complete (the recording's end record counts them).
  CHECK(f.by_cat["kernel"] == 7);
  CHECK(f.by_cat["transfer"] == 5);
  for (const auto& [key, aligned] : launches_of("@vector_add_cut.json")) {
    CAPTURE(key.second);
    CHECK(aligned);
  }
  const std::string dir = clitest::temp_dir();
  REQUIRE(run({"export", "-o", dir + "/cut.db", "@vector_add_cut.json"}).status == 0);
  REQUIRE(run({"export", "--format", "jsonl", "-o", dir + "/cut.jsonl", "@vector_add_cut.json"})
              .status == 0);
  const std::string rows = clitest::read_file(dir + "/cut.jsonl");
  const size_t at = rows.find(R"("table":"devices")");
  REQUIRE(at != std::string::npos);
  const std::string device =
      rows.substr(rows.rfind('\n', at) + 1, rows.find('\n', at) - rows.rfind('\n', at) - 1);
  rapidjson::Document d;
  d.Parse(device.c_str());
  REQUIRE(d.IsObject());
  CHECK(std::string(d["clock_method"].GetString()) == "estimated_from_commands");
  const int64_t offset = d["clock_offset_ns"].GetInt64();
  const int64_t bound = d["clock_uncertainty_ns"].GetInt64();
  const int64_t recorded = -1671276771478, recorded_bound = 234;
  CHECK(std::llabs(offset - recorded) <= bound + recorded_bound);
  CHECK(bound < 1000000);  // enqueue calls of microseconds bracket it to well under 1 ms
  // The full recording, for comparison: it has the offset recorded, no estimate, no warning.
  const auto full = run({"launches", "--format", "json",
                         clitest::data("../readers/clprof_trace/data/vector_add_v1.json")});
  CHECK(full.err.find("estimated") == std::string::npos);
}

TEST_CASE("timeline: refusals") {
  CHECK(run({"timeline", "--format", "json", "@basic.json"}).status == 2);
  CHECK(run({"timeline", "--sort", "name", "@basic.json"}).status == 2);
  const auto same = run({"timeline", "-o", clitest::data("basic.json"), "@basic.json"});
  CHECK(same.status == 2);
}

// The checker itself: each rule it enforces catches a file that breaks it.
TEST_CASE("timeline check: it refuses what the viewers refuse") {
  using clprof::test::check_timeline;
  const std::string names =
      R"({"ph":"M","ts":0,"pid":1,"name":"process_name","args":{"name":"p"}},)"
      R"({"ph":"M","ts":0,"pid":1,"tid":2,"name":"thread_name","args":{"name":"t"}})";
  // Whether the checker accepts `events` with the names above.
  auto accepted = [&](const std::string& events) {
    return check_timeline(R"({"traceEvents":[)" + events + "," + names + "]}").errors.empty();
  };
  const std::string a =
      R"({"ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":2,"name":"a","cat":"c","args":{}})";
  CHECK(accepted(a));
  // Partial overlap on one track ([1, 3] and [2, 5]); nesting ([1, 3] and [1.5, 2.5]) is fine.
  CHECK(accepted(
      a + R"(,{"ph":"X","ts":1.500,"dur":1.000,"pid":1,"tid":2,"name":"b","cat":"c","args":{}})"));
  CHECK_FALSE(accepted(
      a + R"(,{"ph":"X","ts":2.000,"dur":3.000,"pid":1,"tid":2,"name":"b","cat":"c","args":{}})"));
  // ts without three decimals, keys out of order, a tid that is not a decimal number.
  CHECK_FALSE(accepted(R"({"ph":"X","ts":1.5,"dur":2.000,"pid":1,"tid":2,"name":"a","args":{}})"));
  CHECK_FALSE(
      accepted(R"({"ts":1.000,"ph":"X","dur":2.000,"pid":1,"tid":2,"name":"a","args":{}})"));
  CHECK_FALSE(
      accepted(R"({"ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":"2","name":"a","args":{}})"));
  // A flow with an end and no start; a track without a name; an unknown top-level key.
  CHECK_FALSE(accepted(
      R"({"ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":2,"name":"a","bind_id":7,"flow_in":true,"args":{}})"));
  CHECK_FALSE(
      accepted(R"({"ph":"X","ts":1.000,"dur":2.000,"pid":1,"tid":3,"name":"a","args":{}})"));
  CHECK_FALSE(check_timeline(R"({"traceEvents":[)" + names + R"(],"extra":1})").errors.empty());
  CHECK_FALSE(check_timeline("{\"traceEvents\":[").errors.empty());
}
