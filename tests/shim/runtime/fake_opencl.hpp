// A driver in miniature for the runtime room's unit tests: events whose status and four
// profiling times a test sets, and the few entry points the runtime calls on them
// (clGetEventProfilingInfo, clGetEventInfo, clRetainEvent, clReleaseEvent), installed as
// the shim's real() table (base/real_opencl.hpp: install_real_table, as the loader layer
// does). clGetPlatformIDs answers too, so the shim counts an OpenCL library as found.
// Also: records to publish, and the launches of a finished trace file.
//
// Threads: a FakeEvent's fields are atomics (the harvester reads them while a test sets
// them). Ownership: the test owns its events (the runtime only counts references).
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "recording/record.hpp"

// The ICD's opaque event type, defined here for the fake (nothing else in these tests
// defines it).
struct _cl_event {
  std::atomic<cl_int> status{CL_COMPLETE};
  std::atomic<int> refs{1};
  std::atomic<int> status_queries{0};  // clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)
  cl_ulong times[4] = {};              // QUEUED, SUBMIT, START, END (device ns)
};
using FakeEvent = _cl_event;

namespace runtime_test {

// Installs the fake as real() (once per process; later calls do nothing).
void install_fake_opencl();

// A launch record as the recording room fills one: kind Launch, queue `queue_id` (in
// order), `event` (nullptr: none), host times 0 ticks, every other field zero.
void fill_launch(clprof::shim::OpRecord& r, std::uint64_t queue_id, cl_event event);

// What a trace file says about one launch record.
struct Launch {
  std::uint64_t seq = 0;
  std::string status;
  std::vector<std::uint64_t> device_ns;  // empty when null
};
// The launch records of a finished trace file (a whole JSON document), in file order; the
// end record's "incomplete" in *incomplete when given. Fails the current case when the
// file does not parse.
std::vector<Launch> launches_in(const std::string& path, std::int64_t* incomplete = nullptr);

// A file's header line for TraceOutput::open.
inline constexpr const char* kHeader =
    R"({"format":"clprof-trace","version":2,"header":{},"records":[)";

}  // namespace runtime_test
