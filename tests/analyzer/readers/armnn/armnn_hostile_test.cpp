// The Arm NN reader on hostile profiles (issue 18): negative durations, measurements
// without values, nesting past the range ceiling. Inputs are generated here.
#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"
#include "readers/armnn/armnn.hpp"
#include "readers/limits.hpp"

using namespace clprof;
using clprof::test::error_of;
using clprof::test::read_with;

namespace {

std::string measurement(const std::string& key, const std::string& raw) {
  return "\"" + key + "\": {\"type\": \"Measurement\", \"raw\": [" + raw + "], \"unit\": \"us\"}";
}

// One inference_measurements root of three inferences holding `body` (events and
// measurements).
std::string profile(const std::string& body, const std::string& walls = "100, 200, 300") {
  return "{\"ArmNN\": {\"inference_measurements_#1\": {\"type\": \"Event\", " +
         measurement("Wall clock time_#1", walls) + ", " + body + "}}}\n";
}

}  // namespace

TEST_CASE("armnn: a negative duration is rejected with a warning naming its measurement") {
  const std::string text =
      profile("\"W_#2\": {\"type\": \"Event\",\n" +
                  measurement("OpenClKernelTimer/0: k GWS[4]_#3", "1.5, -2, 3") + "}",
              "100, -100, 300");
  readers::Diagnostics diag;
  model::Run run = read_with(readers::armnn_reader(), text, &diag, "neg.json");
  REQUIRE(run.launches.size() == 2);  // inferences 0 and 2
  CHECK(*run.launches[0].duration_ns() == 1500);
  CHECK(*run.launches[1].duration_ns() == 3000);
  CHECK(run.launches[1].extra.at("armnn.inference") == "2");
  // The wall time of inference 1 (-100 us) is rejected too.
  CHECK(run.processes.at(0).iteration_wall_ns == std::vector<int64_t>{100000, 0, 300000});
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] ==
        "neg.json: 2 Arm NN measurements or values skipped, the first at neg.json:1:118: expected "
        "a duration >= 0 "
        "in \"Wall clock time_#1\", found -100");
}

TEST_CASE("armnn: a measurement without values is a bad record; only bad records is an error") {
  const std::string text = profile(
      "\"W_#2\": {\"type\": \"Event\", \"OpenClKernelTimer/0: k_#3\": {\"type\": "
      "\"Measurement\"}, " +
      measurement("OpenClKernelTimer/1: j_#4", "1, 2, 3") + "}");
  readers::Diagnostics diag;
  model::Run run = read_with(readers::armnn_reader(), text, &diag, "f");
  CHECK(run.launches.size() == 3);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("expected member \"raw\" in this object") != std::string::npos);
  CHECK(error_of(
            readers::armnn_reader(),
            "{\"ArmNN\": {\"a_#1\": {" + measurement("OpenClKernelTimer/0: k_#3", "-1, -2") + "}}}",
            "f") == "f:1:82: expected a duration >= 0 in \"OpenClKernelTimer/0: k_#3\", found -1");
}

TEST_CASE("armnn: events nested past 64 levels are skipped; chains stay within the ceiling") {
  std::string body, close;
  for (int i = 0; i < 100; ++i) {
    body +=
        "\"E" + std::to_string(i) + "_#" + std::to_string(i + 10) + "\": {\"type\": \"Event\", " +
        measurement("OpenClKernelTimer/0: k" + std::to_string(i) + "_#" + std::to_string(i + 500),
                    "1, 1, 1") +
        (i + 1 < 100 ? ", " : "");
    close += "}";
  }
  readers::Diagnostics diag;
  model::Run run = read_with(readers::armnn_reader(), profile(body + close), &diag, "deep.json");
  for (const auto& l : run.launches) CHECK(l.ranges.size() <= readers::limits::kMaxRangeDepth);
  CHECK(run.launches.size() == 3 * 63);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("expected events nested at most 64 deep") != std::string::npos);
}

TEST_CASE("armnn: NUL bytes and oversized names") {
  std::string text = "log line\n" + profile(measurement("OpenClKernelTimer/0: k_#3", "1, 2, 3"));
  text[3] = '\0';
  CHECK(error_of(readers::armnn_reader(), text, "z") ==
        "z:1:4: expected text, found a NUL byte (binary data, or a hole in a sparse file)");
  readers::Diagnostics diag;
  model::Run run = read_with(
      readers::armnn_reader(),
      profile(measurement("OpenClKernelTimer/0: " + std::string(10000, 'k') + "_#3", "1")), &diag,
      "n");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name.size() <= readers::limits::kMaxNameBytes);
  std::string all;
  for (const auto& w : diag.warnings) all += w + "\n";
  CHECK(all.find("n: 1 names longer than 4096 bytes were cut to that length\n") !=
        std::string::npos);
}
