// The lines of the app's objects, from the facts the registries return
// (recording/object_facts.hpp): device, clock_sync, queue and kernel records, exactly as
// docs/trace-format.md gives them. Pure functions (no OpenCL, no I/O).
//
// Threads: any; each call allocates its result. Units: as in the facts.
#pragma once

#include <string>

#include "recording/object_facts.hpp"

namespace clprof::shim {

std::string format_device_line(const DeviceFacts& f);
std::string format_clock_sync_line(const ClockSyncFacts& f);
std::string format_queue_line(const QueueFacts& f);
std::string format_kernel_line(const KernelFacts& f);
std::string format_kernel_device_line(const KernelDeviceFacts& f);

}  // namespace clprof::shim
