// A kernel's work-group facts on a device (CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
// CL_KERNEL_WORK_GROUP_SIZE): asked of the driver at the kernel's first successful launch
// on each device, once per program, kernel name and device (a library that makes a new
// kernel object per call asks once), and handed to the record sink as a kernel_device
// record. Best-effort: a refused query is unknown (null).
//
// Threads: any. The launch path pays one relaxed load and compare per launch
// (KernelInfo::wg_devices); the first launch on a device takes the module's own lock for
// a set lookup only, never across the driver's queries, which run on the launching thread
// after the real enqueue returned.
#pragma once

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <mutex>

#include "recording/kernels.hpp"

namespace clprof::shim {

void note_work_group_slow(KernelInfo& k, cl_kernel kernel, cl_command_queue queue,
                          std::uint64_t device_id);

// After a successful launch of `kernel` on `queue` (device `device_id`, clprof id).
inline void note_work_group(KernelInfo& k, cl_kernel kernel, cl_command_queue queue,
                            std::uint64_t device_id) {
  if (device_id == 0) return;
  if (__builtin_expect(k.wg_devices[0].load(std::memory_order_relaxed) == device_id ||
                           k.wg_devices[1].load(std::memory_order_relaxed) == device_id,
                       1))
    return;
  note_work_group_slow(k, kernel, queue, device_id);
}

// The set's lock, for the fork hooks (recording/objects.cpp).
std::mutex& work_groups_mutex();

}  // namespace clprof::shim
