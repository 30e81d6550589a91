// The dvdt-prof reader on hostile inputs (issue 18): bad records among good ones, times
// outside int64 ns, huge names.
#include <doctest/doctest.h>

#include <string>

#include "helpers.hpp"
#include "readers/dvdt_prof/dvdt_prof.hpp"
#include "readers/limits.hpp"

using namespace clprof;
using clprof::test::error_of;
using clprof::test::read_with;

namespace {

std::string launch(const std::string& name, const std::string& start) {
  return "{\"call\": \"clEnqueueNDRangeKernel\", \"name\": \"" + name +
         "\", \"timestamp\": {\"start\": \"" + start + "\", \"end\": \"" + start +
         "\"}, \"profiling\": {\"queued\": 1, \"submit\": 2, \"start\": 3, "
         "\"end\": 9}}";
}

}  // namespace

TEST_CASE("dvdt: bad records are skipped and counted; the first is named") {
  const std::string text = "[" + launch("a", "2018-02-09T10:36:48.5") + ",\n" +
                           launch("b", "9999-02-09T10:36:48.5") + ",\n" +
                           "{\"call\": \"clSetKernelArg\", \"kernel\": \"0x1\"},\n" +
                           launch("c", "2018-02-09T10:36:49") + "]";
  readers::Diagnostics diag;
  model::Run run = read_with(readers::dvdt_prof_reader(), text, &diag, "d.json");
  REQUIRE(run.launches.size() == 2);
  CHECK(run.launches[0].name == "a");
  CHECK(run.launches[1].name == "c");
  CHECK(run.launches[1].seq == 2);
  CHECK(run.launches[1].host_begin_ns == 500000000);
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] ==
        "d.json: 2 dvdt-prof call records skipped, the first at d.json:2:72: expected an ISO "
        "time like 2018-02-09T10:36:48.553314, found \"9999-02-09T10:36:48.5\"");
}

TEST_CASE("dvdt: kernel names past the ceiling are cut, with a warning") {
  readers::Diagnostics diag;
  model::Run run =
      read_with(readers::dvdt_prof_reader(),
                "[" + launch(std::string(20000, 'k'), "2018-02-09T10:36:48") + "]", &diag, "n");
  REQUIRE(run.launches.size() == 1);
  CHECK(run.launches[0].name == std::string(readers::limits::kMaxNameBytes, 'k'));
  REQUIRE(diag.warnings.size() == 1);
  CHECK(diag.warnings[0] == "n: 1 names longer than 4096 bytes were cut to that length");
}
