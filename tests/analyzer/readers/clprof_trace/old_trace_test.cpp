// Old traces stay readable: data/vector_add_v1.json, written by libclprof.so at cf25d0f
// (trace version 1: examples/vector_add on PoCL), reads as that version's reader read it
// (data/vector_add_v1.expected, dumped by that reader), by every path, without warnings.
#include <doctest/doctest.h>

#include <string>

#include "readers/clprof_trace/clprof_trace.hpp"
#include "readers/load.hpp"
#include "run_child.hpp"
#include "run_dump.hpp"
#include "test_util.hpp"

using namespace clprof;

namespace {

std::string data_file(const std::string& name) {
  const std::string text = test::slurp(std::string(CLPROF_READER_TEST_DATA) + "/" + name);
  REQUIRE_FALSE(text.empty());
  return text;
}

}  // namespace

TEST_CASE("a version 1 trace of today's main reads as the version 1 reader read it") {
  const std::string path = std::string(CLPROF_READER_TEST_DATA) + "/vector_add_v1.json";
  const std::string expected = data_file("vector_add_v1.expected");
  for (bool fast : {true, false}) {
    CAPTURE(fast);
    model::Run run;
    readers::Diagnostics diag;
    readers::detail::read_clprof_trace(path, data_file("vector_add_v1.json"), run, diag, fast);
    CHECK(diag.warnings.empty());
    CHECK(test::dump_v1_fields(run) == expected);
    REQUIRE(run.processes.size() == 1);
    CHECK(run.processes[0].trace_version == 1);
    CHECK(run.processes[0].session_id.empty());  // a version 2 field
    CHECK(run.processes[0].ppid != 0);           // read now, dropped before
    CHECK(run.queues.size() == 1);
    CHECK(run.kernels.size() == 3);
    CHECK(run.launches.size() == 7);
  }
  // Streaming: the same metadata and the same launches, fed.
  for (unsigned threads : {1u, 2u}) {
    auto [run, diag, a] = test::stream_totals(path, threads, 512);
    CHECK(diag.warnings.empty());
    auto& totals = static_cast<test::KernelTotals&>(*a);
    CHECK(totals.rows["saxpy"].count == 5);
    CHECK(totals.rows["vadd"].count == 1);
    CHECK(totals.rows["sum_first"].count == 1);
    CHECK(totals.transfers == 5);
  }
}
