// The app's devices: their clprof ids, whether their device timer works, and the device and
// clock_sync records written the first time each is seen.
//
// Threads: any. Ownership: DeviceInfo entries are the registry's (pooled, never freed).
// Clocks: clock_sync offsets are trace-clock ns (base/host_clock.hpp).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "recording/clock_sync.hpp"
#include "recording/object_facts.hpp"
#include "recording/registry.hpp"

namespace clprof::shim {

struct DeviceInfo : ObjectInfo {
  cl_device_id device = nullptr;
  bool timer_ok = false;  // clGetDeviceAndHostTimer works on this device
  void reset() { timer_ok = false; }
};

extern template class Registry<DeviceInfo>;

// The registry: a leaked singleton (hooks may run during static destruction), inline so
// the hot path pays a guard check, not a call. No thread-cache row.
inline Registry<DeviceInfo>& devices() {
  static auto* r = new Registry<DeviceInfo>(-1);
  return *r;
}

// The id of `device`, registering it on first sight: its facts go to the record sink
// (a device record, and a clock_sync record when its timer works). 0 for NULL.
std::uint64_t device_id_of(cl_device_id device);

// Clock_sync facts for the end of the trace: a fresh clGetDeviceAndHostTimer sample for
// devices that support it, else `brackets` (device id -> estimator) where valid.
std::vector<ClockSyncFacts> final_clock_syncs(
    const std::unordered_map<std::uint64_t, BracketEstimator>& brackets);

// pthread_atfork: prepare takes the registry's lock, parent and child release it.
void devices_fork_prepare();
void devices_fork_parent();
void devices_fork_child();

}  // namespace clprof::shim
