// The Caffe reader on hostile inputs (issue 18): negative times, bad entries among good
// ones, control characters in names.
#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"
#include "readers/caffe/caffe.hpp"

using namespace clprof;
using clprof::test::error_of;
using clprof::test::read_with;

TEST_CASE("caffe: negative layer and forward times are rejected with a warning naming the record") {
  const std::string json =
      "{\"per_layer_info\": [{\"name\": \"conv1\", \"time_ms\": 1.5},\n"
      "  {\"name\": \"relu1\", \"time_ms\": -0.5}, {\"name\": \"pool\", \"time_ms\": 2}], "
      "\"time_fw_ms\": -4}";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::caffe_reader(), json, &diag, "c.json");
  REQUIRE(run.layer_timings.size() == 2);
  CHECK(run.layer_timings[0].layer == "conv1");
  CHECK(run.layer_timings[1].layer == "pool");
  CHECK(run.processes.at(0).iteration_wall_ns.empty());
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] ==
        "c.json: 2 Caffe layer records skipped, the first at c.json:2:32: expected a time >= 0 "
        "for \"relu1\", found -0.5");
}

TEST_CASE(
    "caffe: log lines with negative or unreadable times are skipped, control characters escaped") {
  const std::string log =
      "I0520 1  1 caffe.cpp:494]      conv1\tforward: 1.5 ms.\n"
      "I0520 1  1 caffe.cpp:494]      bad\x1b[2J\tforward: -3 ms.\n"
      "I0520 1  1 caffe.cpp:494]      relu\tforward: 0.5 ms.\n";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::caffe_reader(), log, &diag, "c.log");
  REQUIRE(run.layer_timings.size() == 2);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] ==
        "c.log: 1 Caffe layer records skipped, the first at c.log:2:49: expected a time >= 0 "
        "for \"bad\\x1b[2J\", found -3");
  // Only bad lines: nothing read, the first is the error.
  CHECK(error_of(readers::caffe_reader(), "I0520 1  1 caffe.cpp:494]      conv1\tforward: -1 ms.\n",
                 "e") == "e:1:47: expected a time >= 0 for \"conv1\", found -1");
}

TEST_CASE("caffe: a NUL byte (a sparse file's hole) is an error, not skipped lines") {
  std::string log =
      "I0520 1  1 caffe.cpp:494]      conv1\tforward: 1.5 ms.\n" + std::string(1000, '\0');
  CHECK(error_of(readers::caffe_reader(), log, "s") ==
        "s:2:1: expected text, found a NUL byte (binary data, or a hole in a sparse file)");
}
