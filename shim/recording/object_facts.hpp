// What the object registries learn about the app's objects, as plain facts: the values a
// device, queue, kernel or clock_sync record carries, in the shim's own types (no OpenCL
// handle, no JSON). Recording gathers them (devices.cpp, contexts_queues.cpp,
// kernels.cpp) and hands them to the record sink (record_sink.hpp); output turns them into
// the trace's lines (output/object_format.hpp).
//
// Threads: plain values, made and read on one thread. Ownership: by value. Units: as
// named (bytes, MHz, ns); offsets and uncertainties are trace-clock ns (host_clock.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace clprof::shim {

// A device, the first time the shim sees it.
struct DeviceFacts {
  std::uint64_t id = 0;
  std::string name, vendor, platform, platform_version, version, driver_version;
  std::string device_type;  // "GPU", "CPU", "ACCELERATOR", "CUSTOM" or "DEFAULT"
  std::uint64_t compute_units = 0;
  std::uint64_t max_clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t timer_resolution_ns = 0;
};

// One estimate of a device clock's offset from the trace's host clock.
struct ClockSyncFacts {
  std::uint64_t device_id = 0;
  const char* method = "";  // "clGetDeviceAndHostTimer" or "enqueue_bracket" (static text)
  std::int64_t offset_ns = 0;
  std::int64_t uncertainty_ns = 0;
};

// A command queue: made through a hook, or learnt on first use (profiling_added false).
struct QueueFacts {
  std::uint64_t id = 0;
  std::uint64_t context_id = 0;
  std::uint64_t device_id = 0;
  std::uint64_t properties = 0;  // the app's CL_QUEUE_PROPERTIES bits
  bool profiling_added = false;  // the shim turned profiling on behind the app's back
};

// A kernel object.
struct KernelFacts {
  std::uint64_t id = 0;
  std::uint64_t program_id = 0;
  std::uint64_t context_id = 0;
  std::string name;  // the function name, as the driver gave it
  std::uint64_t num_args = 0;
  // CL_KERNEL_ARG_TYPE_NAME of each argument, once per kernel name and program; empty
  // when already given or unknown (then the line has no arg_types).
  std::vector<std::string> arg_types;
};

}  // namespace clprof::shim

namespace clprof::shim {

// A kernel's work-group facts on one device (clGetKernelWorkGroupInfo at its first launch
// there); a query the driver refused is unknown (has_* false).
struct KernelDeviceFacts {
  std::uint64_t kernel_id = 0;
  std::uint64_t program_id = 0;
  std::uint64_t device_id = 0;
  std::string name;  // the kernel function name
  bool has_preferred_multiple = false, has_work_group_size = false;
  std::uint64_t preferred_multiple = 0;  // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE
  std::uint64_t work_group_size = 0;     // CL_KERNEL_WORK_GROUP_SIZE
};

// The app's objects alive at the end (recording/live_objects.hpp), as the end record's
// "live" object: kind name -> count (and *_bytes); events absent when unknown.
struct LiveFacts {
  std::vector<std::pair<std::string, std::uint64_t>> counts;
};

}  // namespace clprof::shim
