// Behaviour switches of the fake OpenCL driver, read once from the environment
// (FAKE_CL_* variables, documented in tests/fake_icd/README.md).
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clprof::fake {

// When the events of enqueued commands reach CL_COMPLETE.
enum class EventMode {
  kImmediate,  // complete when the enqueue call returns
  kOnWait,     // CL_SUBMITTED until clFinish / clWaitForEvents / a blocking call
  kPolls,      // CL_SUBMITTED for the first K status queries, then complete (or on wait)
  kNever,      // never complete
};

// Failure injection for one entry point: which calls fail, with which code.
class Injection {
 public:
  struct Rule {
    std::uint64_t first;  // 1-based call index
    std::uint64_t last;   // inclusive; UINT64_MAX = "and every later call"
    cl_int code;
    std::uint64_t every = 0;  // > 0: only the calls whose index is a multiple of it
  };
  // The rules of entry point `name`; its call counter starts at 0.
  Injection(std::string name, std::vector<Rule> rules);

  // Counts one call; returns the error code this call must fail with, or CL_SUCCESS.
  cl_int hit();
  // Entry-point name this injection applies to ("clEnqueueNDRangeKernel").
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<Rule> rules_;
  std::atomic<std::uint64_t> calls_{0};
};

// Everything the FAKE_CL_* variables select (README.md lists them).
struct Config {
  EventMode event_mode = EventMode::kImmediate;
  int event_polls = 0;            // K for EventMode::kPolls
  std::string event_mode_kernel;  // non-empty: the mode applies only to launches of it
  std::string exec_error_kernel;  // FAKE_CL_EXEC_ERROR: launches of it end with exec_error_code
  int exec_error_code = 0;        // negative
  bool host_timer = true;         // clGetDeviceAndHostTimer supported
  std::string build_fail_token = "-DFAKE_CL_BUILD_FAIL";
  std::string report_path;              // FAKE_CL_REPORT: counts written at library unload
  std::uint64_t query_delay_ns = 0;     // FAKE_CL_QUERY_DELAY_US: each profiling query spins
  std::uint64_t refcount_delay_ns = 0;  // FAKE_CL_REFCOUNT_DELAY_US: spin after reading a count
  std::vector<Injection*> injections;   // never freed: call sites keep pointers for good
};

// The process-wide configuration, parsed from the environment on first use.
const Config& config();

// The injection configured for entry point `name`, or nullptr (the common case).
Injection* find_injection(std::string_view name);

}  // namespace clprof::fake
