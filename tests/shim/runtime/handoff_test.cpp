// How records leave the app's threads (runtime/handoff.cpp, recording's record sink): with
// no trace the sink does nothing; a line and an object's facts reach the file as output
// formats them; a kernel name comes back quoted and interned; and more records than the
// ring holds all reach the file once, in claim order, the producer waiting for the
// harvester instead of dropping. Expected values worked out by hand beside each check.
#include <doctest/doctest.h>

#include <string>

#include "fake_opencl.hpp"
#include "output/object_format.hpp"
#include "recording/record_sink.hpp"
#include "runtime/process_trace.hpp"
#include "test_files.hpp"

using namespace clprof::shim;
using runtime_test::launches_in;

namespace {

// A ProcessTrace writing into `file`, current (g_process_trace) while the fixture lives.
struct CurrentTrace {
  CurrentTrace() {
    runtime_test::install_fake_opencl();
    std::string error;
    REQUIRE(trace.output().open(file.path, runtime_test::kHeader, error));
    trace.completion.clocks().start();
    g_process_trace.store(&trace, std::memory_order_release);
  }
  ~CurrentTrace() { g_process_trace.store(nullptr, std::memory_order_release); }
  // Ends it as the finaliser does: the harvester stopped, the ring drained, wait 0.
  void end() {
    trace.harvester.stop();
    const std::uint64_t incomplete = trace.harvester.finish(0);
    trace.output().finish(/*end_ns=*/1, incomplete);
  }
  shim_test::TempFile file;
  ProcessTrace trace{1};
};

}  // namespace

TEST_CASE("handoff: with no trace, a line, a prefetch and a sync point are dropped quietly") {
  REQUIRE(g_process_trace.load() == nullptr);
  emit_line(LineKind::Mark, R"({"type":"mark"})");
  prefetch_claim();
  app_sync_point(1);
  CHECK(g_process_trace.load() == nullptr);  // reached without touching a trace
}

TEST_CASE("handoff: an object's facts reach the file as output formats them, after a line") {
  CurrentTrace t;
  KernelFacts k;
  k.id = 3;
  k.program_id = 2;
  k.context_id = 1;
  k.name = "vadd";
  k.num_args = 2;
  k.arg_types = {"float*", "int"};
  const std::string mark = R"({"type":"mark","name":"m","tid":7,"host_ns":5})";
  emit_line(LineKind::Mark, mark);
  emit_object(k);
  t.end();
  const std::string text = shim_test::read_file(t.file.path);
  // Two lines queued, in that order, each followed by ",\n" as the writer ends records.
  const std::string expected = mark + ",\n" + format_kernel_line(k) + ",\n";
  CHECK_MESSAGE(text.find(expected) != std::string::npos, text);
  // The kernel line is output's text, spelled out here from docs/trace-format.md.
  CHECK(format_kernel_line(k) ==
        R"({"type":"kernel","id":3,"program_id":2,"context_id":1,"name":"vadd","num_args":2,)"
        R"("arg_types":["float*","int"]})");
}

TEST_CASE("handoff: a kernel name comes back as the trace spells it, interned") {
  // "va\"dd" as a JSON string is "va\"dd" with the quote escaped: 8 characters, by hand.
  const char* a = record_sink_kernel_name("va\"dd");
  const char* b = record_sink_kernel_name(std::string("va") + "\"dd");
  CHECK(std::string(a) == R"("va\"dd")");
  CHECK(a == b);  // the same text is the same pointer (launch records compare pointers)
}

TEST_CASE("handoff: 2000 records through a ring of 512 all reach the file once, in claim order") {
  CurrentTrace t;
  REQUIRE(t.trace.harvester.start(nullptr) == 0);
  // 2000 claims, the ring holds 512: past the first 512 the producer must wait for the
  // harvester to free cells (claim_record never drops), so 2000 launches, seq 1..2000.
  constexpr int kRecords = 2000;
  for (int i = 0; i < kRecords; ++i) {
    auto slot = claim_record();
    REQUIRE(slot.value != nullptr);
    runtime_test::fill_launch(*slot.value, 1, nullptr);
    publish_record(slot);
  }
  t.end();
  const auto launches = launches_in(t.file.path);
  REQUIRE(launches.size() == kRecords);
  for (int i = 0; i < kRecords; ++i) {
    if (launches[i].seq != static_cast<std::uint64_t>(i + 1)) {
      FAIL("record " << i << " has seq " << launches[i].seq);
    }
  }
}
