// Kernel arguments and launches: the hot path. Each hook: scope, real call,
// best-effort record, the real result. A launch CLPROF_CAPTURE takes (rare, slow by
// design) goes through captured_launch: the same real call, between the capture's waits
// and reads (recording/capture.hpp).
#include <cstring>
#include <mutex>
#include <string>

#include "output/capture_files.hpp"
#include "recording/capture.hpp"
#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/recording.hpp"

namespace clprof::shim {
namespace {

// Classifies one clSetKernelArg value. Without kernel-arg info a cl_mem and an 8-byte
// scalar look alike: a value that is a live mem object (or sampler) handle counts as
// one, a pointer to a NULL handle is a NULL buffer, and a NULL arg_value is __local
// memory of arg_size bytes.
void snapshot_arg(ArgSnapshot& a, const void*& handle_out, size_t size, const void* value) {
  a.size = static_cast<std::uint32_t>(size);
  handle_out = nullptr;
  if (!value) {
    a.kind = ArgKind::Local;
    return;
  }
  if (size == sizeof(cl_mem)) {
    const void* handle;
    std::memcpy(&handle, value, sizeof handle);
    if (MemInfo* m = mems().find(handle)) {
      handle_out = handle;
      a.kind = m->kind;
      a.object.id = m->id;
      a.object.mem_bytes = m->bytes;
      return;
    }
    if (SamplerInfo* s = samplers().find(handle)) {
      handle_out = handle;
      a.kind = ArgKind::Sampler;
      a.object.id = s->id;
      a.object.mem_bytes = 0;
      return;
    }
    if (!handle) {
      a.kind = ArgKind::Buffer;
      a.object.id = 0;
      a.object.mem_bytes = 0;
      return;
    }
  }
  a.kind = ArgKind::Scalar;
  std::memcpy(a.bytes, value, size < sizeof a.bytes ? size : sizeof a.bytes);
}

// A launch CLPROF_CAPTURE claimed (capture `id`, capture_mutex held): the capture's
// waits and reads, the real call `enqueue` (with the event EnqueueScope hands it), the
// wait for the launch and the second reads, the launch record (naming the capture, with
// the enqueue call's own end time), then the capture's files and record. The app gets
// the real call's result and its event, complete.
template <class Enqueue>
cl_int captured_launch(EnqueueScope& scope, std::uint64_t id, const char* api,
                       cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                       const size_t* gwo, const size_t* gws, const size_t* lws, cl_uint num_events,
                       const cl_event* wait_list, Enqueue enqueue) {
  std::unique_lock<std::mutex> lock(capture_mutex(), std::adopt_lock);
  KernelInfo* k = kernel_info(kernel);
  LaunchCapture capture(id, queue, kernel, *k);
  const bool taken = capture.before(work_dim, gwo, gws, lws, num_events, wait_list);
  const cl_int rc = enqueue(scope.event_out());
  const std::uint64_t end_ticks = host_ticks_now();
  if (taken && rc == CL_SUCCESS) {
    cl_event* e = scope.event_out();
    capture.after(e ? *e : nullptr);
  } else if (taken) {
    capture.facts.status = "refused";
    capture.facts.reason = "the enqueue call failed (" + std::to_string(rc) + ")";
  }
  record_launch(scope, api, rc, queue, kernel, work_dim, gwo, gws, lws, id, end_ticks);
  emit_line(LineKind::Capture, write_capture(capture.facts));
  return rc;
}

}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                                size_t arg_size, const void* arg_value) {
  HookScope scope;
  const cl_int rc = real().clSetKernelArg(kernel, arg_index, arg_size, arg_value);
  if (scope.active() && rc == CL_SUCCESS && arg_index < kMaxRecordedArgs) {
    if (KernelInfo* k = kernel_info(kernel)) {
      snapshot_arg(k->args[arg_index], k->handles[arg_index], arg_size, arg_value);
    }
  }
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                                          const void* arg_value) {
  HookScope scope;
  const cl_int rc = real().clSetKernelArgSVMPointer(kernel, arg_index, arg_value);
  if (scope.active() && rc == CL_SUCCESS) snapshot_pointer_arg(kernel, arg_index, arg_value);
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue queue, cl_kernel kernel, cl_uint work_dim, const size_t* global_work_offset,
    const size_t* global_work_size, const size_t* local_work_size, cl_uint num_events_in_wait_list,
    const cl_event* event_wait_list, cl_event* event) {
  EnqueueScope scope(event);
  if (scope.active()) {
    if (const std::uint64_t id = capture_claim(kernel)) {
      return captured_launch(scope, id, nullptr, queue, kernel, work_dim, global_work_offset,
                             global_work_size, local_work_size, num_events_in_wait_list,
                             event_wait_list, [&](cl_event* e) {
                               return real().clEnqueueNDRangeKernel(
                                   queue, kernel, work_dim, global_work_offset, global_work_size,
                                   local_work_size, num_events_in_wait_list, event_wait_list, e);
                             });
    }
  }
  const cl_int rc = real().clEnqueueNDRangeKernel(
      queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
      num_events_in_wait_list, event_wait_list, scope.event_out());
  if (scope.active()) {
    record_launch(scope, nullptr, rc, queue, kernel, work_dim, global_work_offset, global_work_size,
                  local_work_size);
  }
  return rc;
}

CLPROF_EXPORT cl_int CL_API_CALL clEnqueueTask(cl_command_queue queue, cl_kernel kernel,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event* event_wait_list, cl_event* event) {
  EnqueueScope scope(event);
  static const size_t kOne[1] = {1};
  if (scope.active()) {
    if (const std::uint64_t id = capture_claim(kernel)) {
      return captured_launch(scope, id, "clEnqueueTask", queue, kernel, 1, nullptr, kOne, kOne,
                             num_events_in_wait_list, event_wait_list, [&](cl_event* e) {
                               return real().clEnqueueTask(queue, kernel, num_events_in_wait_list,
                                                           event_wait_list, e);
                             });
    }
  }
  const cl_int rc = real().clEnqueueTask(queue, kernel, num_events_in_wait_list, event_wait_list,
                                         scope.event_out());
  if (scope.active()) {
    record_launch(scope, "clEnqueueTask", rc, queue, kernel, 1, nullptr, kOne, kOne);
  }
  return rc;
}
