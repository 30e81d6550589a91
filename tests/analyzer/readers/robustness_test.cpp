// Every importer on hostile bytes: empty input, garbage, deep nesting, huge numbers, wrong
// types, and every sample cut short or with bytes flipped. Each read must either succeed
// or throw InputError with a file:line:column prefix; nothing else may escape.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "readers/armnn/armnn.hpp"
#include "readers/caffe/caffe.hpp"
#include "readers/chrome/chrome_trace.hpp"
#include "readers/consistency.hpp"
#include "readers/dvdt_prof/dvdt_prof.hpp"

using namespace clprof;

namespace {

std::vector<const readers::Reader*> importers() {
  return {&readers::armnn_reader(), &readers::dvdt_prof_reader(), &readers::chrome_trace_reader(),
          &readers::caffe_reader()};
}

// "ok", or "input-error" when the message starts with "<path>:<line>:<column>: ", or a
// description of what went wrong.
std::string outcome(const readers::Reader& reader, const std::string& content) {
  try {
    test::read_with(reader, content, nullptr, "f");
    return "ok";
  } catch (const readers::InputError& e) {
    std::string w = e.what();
    if (w.rfind("f:", 0) != 0 || e.line() == 0 || e.column() == 0) return "bad location: " + w;
    std::string prefix = "f:" + std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": ";
    if (w.rfind(prefix, 0) != 0 || w.size() == prefix.size()) return "bad message: " + w;
    return "input-error";
  } catch (const std::exception& e) {
    return std::string("other exception: ") + e.what();
  }
}

const char* kSamples[] = {"armnn_executenetwork_stdout_mobilenet_v2.txt",
                          "armnn_profile_small_constructed.json",
                          "armnn_profile_pyarmnn_mock_multi_inference.json",
                          "dvdt_prof_sample_small.json",
                          "dvdt_prof_cjson_stdout_sample.txt",
                          "dvdt_prof_ostream_stdout_sample.txt",
                          "chrome_trace_array_unterminated_sample.json",
                          "itrex_engine_profiling_trace_sample.json",
                          "caffe_per_layer_info_squeezenet_sample.json",
                          "caffe_time_stderr_constructed_sample.log",
                          "caffe_per_layer_info_tensorrt_variant_sample.json"};

}  // namespace

TEST_CASE("robustness: empty, blank and garbage inputs are InputErrors") {
  for (const auto* r : importers()) {
    CAPTURE(r->name());
    for (std::string input :
         {std::string(), std::string("\n\n  \n"), std::string("\x00\xff\xfe garbage", 12),
          std::string("{"), std::string("["), std::string("null"), std::string("42"),
          std::string("\"str\""), std::string("{}"), std::string("[]x")}) {
      CAPTURE(input);
      std::string o = outcome(*r, input);
      CHECK((o == "input-error" || o == "ok"));
    }
  }
}

TEST_CASE("robustness: deep nesting is rejected quickly at the offending bracket") {
  std::string deep(1'000'000, '[');
  std::string obj;
  for (int i = 0; i < 300; ++i) obj += "{\"a\":";
  for (const auto* r : importers()) {
    CAPTURE(r->name());
    CHECK(outcome(*r, deep) == "input-error");
    CHECK(outcome(*r, obj) == "input-error");
  }
  CHECK(test::error_of(readers::chrome_trace_reader(), deep, "f") ==
        "f:1:258: JSON nested deeper than 256 levels");
}

TEST_CASE("robustness: huge numbers and wrong types") {
  CHECK(test::error_of(readers::chrome_trace_reader(),
                       "[{\"ph\":\"X\",\"ts\":99999999999999999999999}]", "f") ==
        "f:1:17: expected ts (microseconds) in range, found 99999999999999999999999");
  CHECK(test::error_of(readers::dvdt_prof_reader(),
                       "[{\"call\":\"clEnqueueNDRangeKernel\",\"profiling\":{\"start\":1e3}}]",
                       "f") == "f:1:56: expected a device time (ns) (an integer), found \"1e3\"");
  CHECK(test::error_of(readers::dvdt_prof_reader(),
                       "[{\"call\":\"clSetKernelArg\",\"kernel\":\"0x1\",\"arg_index\":99999,"
                       "\"arg_size\":4}]",
                       "f") == "f:1:54: expected an argument index below 1024");
  CHECK(test::error_of(readers::armnn_reader(),
                       "{\"ArmNN\": {\"e_#1\": {\"k_#1\": {\"raw\": {}}}}}", "f") ==
        "f:1:37: expected \"raw\" measurement values (an array), found an object");
  CHECK(test::error_of(readers::chrome_trace_reader(), "[{\"ph\":\"X\",\"ts\":3000000000000000}]",
                       "f") ==
        "f:1:17: expected ts (microseconds) in range, found 3000000000000000");
  CHECK(test::error_of(readers::dvdt_prof_reader(),
                       "[{\"call\":\"clEnqueueNDRangeKernel\",\"profiling\":{\"end\":-5}}]",
                       "f") == "f:1:54: expected a device time (ns) in [0, 2^61], found -5");
  CHECK(test::error_of(readers::caffe_reader(), "{\"per_layer_info\": [1]}", "f") ==
        "f:1:21: expected a per_layer_info entry (an object), found a number");
}

TEST_CASE("robustness: every sample cut short or with flipped bytes never escapes InputError") {
  for (const char* name : kSamples) {
    std::string full = test::fixture(name);
    for (const auto* r : importers()) {
      CAPTURE(name);
      CAPTURE(r->name());
      // 40 cut points spread over the file.
      for (size_t k = 1; k <= 40; ++k) {
        std::string cut = full.substr(0, full.size() * k / 41);
        std::string o = outcome(*r, cut);
        CHECK_MESSAGE((o == "ok" || o == "input-error"), o);
      }
      // 40 single-byte corruptions at deterministic pseudo-random places.
      uint64_t state = 0x9e3779b97f4a7c15ULL;
      for (int k = 0; k < 40; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        std::string bad = full;
        size_t at = static_cast<size_t>((state >> 17) % bad.size());
        const char replacements[] = {'"', '{', ']', ',', '\0', '9', '-', '\n', 'e', '['};
        bad[at] = replacements[(state >> 5) % sizeof(replacements)];
        std::string o = outcome(*r, bad);
        CHECK_MESSAGE((o == "ok" || o == "input-error"), o);
      }
    }
  }
}

TEST_CASE("consistency: inverted records and orphan ranges are each said once, with a count") {
  // By hand: two launches whose device end precedes their start (one also inverted on the
  // host), one transfer inverted on the host, a range whose parent 99 no input defines.
  clprof::model::Run run;
  run.processes.resize(1);
  run.processes[0].source = "app.dvdt.json";
  clprof::model::Launch a, b, ok;
  a.name = "direct_convolution3x3";
  a.seq = 4;
  a.start_ns = 500;
  a.end_ns = 400;
  a.host_begin_ns = 90;
  a.host_end_ns = 80;
  b = a;
  b.seq = 5;
  b.host_end_ns = 100;
  ok.name = "fine";
  ok.start_ns = 1;
  ok.end_ns = 2;
  run.launches = {ok, a, b};
  clprof::model::Transfer t;
  t.api = "clEnqueueReadBuffer";
  t.host_begin_ns = 10;
  t.host_end_ns = 5;
  run.transfers = {t};
  clprof::model::Range top, orphan;
  top.id = 1;
  top.name = "net";
  orphan.id = 2;
  orphan.parent = 99;
  orphan.name = "conv1";
  run.ranges = {top, orphan};
  clprof::readers::Diagnostics d;
  clprof::readers::check_consistency(run, 0, 0, 0, d);
  REQUIRE(d.warnings.size() == 3);
  CHECK(d.warnings[0] ==
        "2 record(s) whose host end comes before their host begin: left untimed on the host "
        "(first: kernel 'direct_convolution3x3' (seq 4) in app.dvdt.json)");
  CHECK(d.warnings[1] ==
        "2 record(s) whose device end comes before their device start: left without a device "
        "time (first: kernel 'direct_convolution3x3' (seq 4) in app.dvdt.json)");
  CHECK(d.warnings[2] ==
        "1 range(s) whose parent range no input defines: shown as top-level ranges (first: "
        "'conv1' in app.dvdt.json)");
  // Only what was read from `first_launch` on is checked.
  clprof::readers::Diagnostics later;
  run.transfers.clear();
  run.ranges = {top};
  clprof::readers::check_consistency(run, 0, 3, 0, later);
  CHECK(later.warnings.empty());
}
