// Best-effort recording helpers shared by the hooks: each fills one record in a ring
// slot on the calling thread (no allocation, no I/O, no locks on the steady path).
#pragma once

#include <CL/cl.h>

#include <cstdint>

#include "recording/hook_scope.hpp"
#include "recording/record.hpp"

namespace clprof::shim {

// A kernel launch (clEnqueueNDRangeKernel / clEnqueueTask). api: nullptr for the
// default clEnqueueNDRangeKernel. Call only when scope.active(). `capture`: the capture
// record's id for a launch CLPROF_CAPTURE took (0: none); `end_ticks`: when the enqueue
// call returned (host_ticks_now; 0: now).
void record_launch(EnqueueScope& scope, const char* api, cl_int rc, cl_command_queue queue,
                   cl_kernel kernel, cl_uint work_dim, const size_t* gwo, const size_t* gws,
                   const size_t* lws, std::uint64_t capture = 0, std::uint64_t end_ticks = 0);

// A transfer. Call only when scope.active().
void record_transfer(EnqueueScope& scope, const char* api, TransferOp op, cl_int rc,
                     cl_command_queue queue, std::uint64_t bytes, bool blocking);

// A host wait (clFinish: queue; clWaitForEvents: nullptr). Call only when active.
void record_sync(HookScope& scope, const char* api, cl_int rc, cl_command_queue queue);

// Product of a 3-element region (rect and image transfers), 0 for NULL.
inline std::uint64_t region_product(const size_t* region) {
  return region ? static_cast<std::uint64_t>(region[0]) * region[1] * region[2] : 0;
}

}  // namespace clprof::shim
