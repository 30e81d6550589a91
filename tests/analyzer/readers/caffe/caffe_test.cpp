// Caffe importer: CK per_layer_info, its TensorRT variant, CK points with repetitions and
// dvdt_prof, and the caffe time log.
#include <doctest/doctest.h>

#include <string>
#include <tuple>
#include <vector>

#include "helpers.hpp"
#include "readers/caffe/caffe.hpp"

using namespace clprof;
using clprof::test::fixture;
using clprof::test::read_with;

namespace {

using Row = std::tuple<std::string, std::string, int64_t, uint32_t>;

std::vector<Row> rows(const model::Run& run) {
  std::vector<Row> out;
  for (const auto& t : run.layer_timings)
    out.emplace_back(t.layer, t.direction, t.time_ns, t.iteration);
  return out;
}

}  // namespace

TEST_CASE("caffe: SqueezeNet per_layer_info, forward and backward") {
  readers::Diagnostics diag;
  model::Run run = test::read_one_process(
      readers::caffe_reader(), "caffe_per_layer_info_squeezenet_sample.json", diag, "caffe");
  CHECK(run.processes[0].iteration_wall_ns == std::vector<int64_t>{8414690000});
  CHECK(run.launches.empty());
  CHECK(run.ranges.empty());  // timestamps are print times: nothing is placed on a timeline
  // 150 entries, 6 backward times are wrapped-around timers (1.8e13 ms) and skipped.
  REQUIRE(run.layer_timings.size() == 144);
  CHECK(rows(run)[0] == Row{"input", "forward", 373566, 0});
  CHECK(rows(run)[3] == Row{"conv1", "backward", 734461000, 0});
  int64_t forward = 0;
  for (const auto& t : run.layer_timings)
    if (t.direction == "forward") forward += t.time_ns;
  CHECK(forward == 3679239835);  // Caffe's own "Average Forward pass" is 3699.29 ms
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0].find("6 Caffe layer times out of range") != std::string::npos);
  CHECK(diag.warnings[0].find("fire2/expand1x1 (18445700000000.0)") != std::string::npos);
}

TEST_CASE("caffe: the caffe time log gives the same layer table as its per_layer_info") {
  readers::Diagnostics diag;
  model::Run log = read_with(readers::caffe_reader(),
                             fixture("caffe_time_stderr_constructed_sample.log"), &diag);
  model::Run json =
      read_with(readers::caffe_reader(), fixture("caffe_per_layer_info_squeezenet_sample.json"));
  CHECK(rows(log) == rows(json));
  CHECK(log.processes.at(0).iteration_wall_ns == std::vector<int64_t>{8414690000});
  REQUIRE(diag.warnings.size() == 1);
}

TEST_CASE("caffe: TensorRT variant uses the name field, forward only") {
  model::Run run = read_with(readers::caffe_reader(),
                             fixture("caffe_per_layer_info_tensorrt_variant_sample.json"));
  REQUIRE(run.layer_timings.size() == 16);
  CHECK(rows(run)[0] == Row{"conv1 + relu1", "forward", 11328363, 0});
  CHECK(run.processes.at(0).iteration_wall_ns == std::vector<int64_t>{104076155});
}

TEST_CASE("caffe: CK point with two repetitions and dvdt_prof calls") {
  model::Run run =
      read_with(readers::caffe_reader(), fixture("caffe_ck_point_two_repetitions.json"));
  CHECK(rows(run) == std::vector<Row>{{"conv1", "forward", 1500000, 0},
                                      {"conv1", "backward", 1250000, 0},
                                      {"10: odd name", "forward", 1000000, 0},
                                      {"conv1", "forward", 1000000, 1}});
  REQUIRE(run.processes.size() == 2);  // the caffe run + repetition 1's dvdt-prof trace
  CHECK(run.processes[0].iteration_wall_ns == std::vector<int64_t>{4000000, 2000000});
  CHECK(run.processes[1].source_format == "dvdt-prof");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].process == 1);
  CHECK(run.launches[0].name == "im2col_float");
  CHECK(*run.launches[0].duration_ns() == 51200);
}

TEST_CASE("caffe: sniff") {
  test::check_sniff(readers::caffe_reader(), "caffe",
                    {"{\n  \"REAL_ENV_CK_CAFFE_BATCH_SIZE\": \"4\",\n  \"per_layer_info\": [",
                     "I0520 12:30:45.101337  2345 caffe.cpp:452] *** Benchmark begins ***\n"},
                    {"{\"traceEvents\": []}"});
}

TEST_CASE("caffe: malformed input points at file:line:column") {
  test::check_errors(
      readers::caffe_reader(),
      {
          {"{\"per_layer_info\": [{\"label\": \"00: a\", \"time_ms\": \"fast\"}]}",
           "bad.json:1:51: expected a layer time (a number), found a string"},
          {"{\"per_layer_info\": [\n  {\"time_ms\": 1}]}",
           "bad.json:2:3: expected member \"label\" in this object"},
          {"{\"per_layer_info\": {}}",
           "bad.json:1:20: expected \"per_layer_info\" (an array), found an object"},
          {"{\"something\": 1}",
           "bad.json:1:1: expected CK-Caffe run characteristics: an object with "
           "\"per_layer_info\""},
          {"I0520 1  1 caffe.cpp:494]      conv1\tforward: fast ms.\n",
           "bad.json:1:47: expected a time in ms after conv1, found \"fast\""},
          {"I0520 1  1 caffe.cpp:494]      conv1\tforward: 1.5\n",
           "bad.json:1:47: expected \"<time> ms.\" after conv1"},
          {"hello\n",
           "bad.json:1:1: expected caffe time per-layer lines (\"<layer>\\tforward: <t> ms.\")"},
      });
}
