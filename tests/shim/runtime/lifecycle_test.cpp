// The trace's life (runtime/lifecycle.hpp) in this process, on the fake driver: it starts
// on first use (the file opened with its header, the harvester running) and ends once
// (the end record), after which the hooks pass through. CLPROF_OUTPUT names a fresh file
// (set before main by lifecycle_env.cpp, since the settings are parsed once per process).
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "fake_opencl.hpp"
#include "lifecycle_env.hpp"
#include "runtime/lifecycle.hpp"
#include "runtime/process_trace.hpp"
#include "test_files.hpp"

using namespace clprof::shim;

TEST_CASE("lifecycle: the trace starts on first use and ends once") {
  runtime_test::install_fake_opencl();
  const std::string path = runtime_test::lifecycle_output();
  REQUIRE(g_process_trace.load() == nullptr);
  // The fake's clGetPlatformIDs makes the library count as found: recording starts.
  CHECK(recording_active());
  ProcessTrace* trace = g_process_trace.load();
  REQUIRE(trace != nullptr);
  CHECK(trace->pid == static_cast<long>(getpid()));
  // Started: the header is in the file (line 1), nothing else yet.
  const std::string started = shim_test::read_file(path);
  CHECK(started.rfind(R"({"format":"clprof-trace")", 0) == 0);
  CHECK(shim_test::count_of(started, R"({"type":"end")") == 0);
  finalize_trace();
  // Ended: the file is a whole trace whose last record is the end record, no launch in
  // it (none was made), none incomplete.
  std::int64_t incomplete = -1;
  CHECK(runtime_test::launches_in(path, &incomplete).empty());
  CHECK(incomplete == 0);
  const std::string ended = shim_test::read_file(path);
  CHECK(shim_test::count_of(ended, R"({"type":"end")") == 1);
  // Finalised: the hooks pass through from now on, and a second ending writes nothing.
  CHECK_FALSE(recording_active());
  finalize_trace();
  CHECK(shim_test::read_file(path) == ended);
}
