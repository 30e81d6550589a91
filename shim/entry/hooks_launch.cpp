// Kernel arguments and launches: the hot path. Each hook: scope, real call,
// best-effort record, the real result.
#include <cstring>

#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/recording.hpp"

namespace clprof::shim {
namespace {

// Classifies one clSetKernelArg value. Without kernel-arg info a cl_mem and an 8-byte
// scalar look alike: a value that is a live mem object (or sampler) handle counts as
// one, a pointer to a NULL handle is a NULL buffer, and a NULL arg_value is __local
// memory of arg_size bytes.
void snapshot_arg(ArgSnapshot& a, size_t size, const void* value) {
  a.size = static_cast<std::uint32_t>(size);
  if (!value) {
    a.kind = ArgKind::Local;
    return;
  }
  if (size == sizeof(cl_mem)) {
    const void* handle;
    std::memcpy(&handle, value, sizeof handle);
    if (MemInfo* m = mems().find(handle)) {
      a.kind = m->kind;
      a.object.id = m->id;
      a.object.mem_bytes = m->bytes;
      return;
    }
    if (SamplerInfo* s = samplers().find(handle)) {
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

}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

CLPROF_EXPORT cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                                size_t arg_size, const void* arg_value) {
  HookScope scope;
  const cl_int rc = real().clSetKernelArg(kernel, arg_index, arg_size, arg_value);
  if (scope.active() && rc == CL_SUCCESS && arg_index < kMaxRecordedArgs) {
    if (KernelInfo* k = kernel_info(kernel)) snapshot_arg(k->args[arg_index], arg_size, arg_value);
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
  const cl_int rc = real().clEnqueueTask(queue, kernel, num_events_in_wait_list, event_wait_list,
                                         scope.event_out());
  if (scope.active()) {
    static const size_t kOne[1] = {1};
    record_launch(scope, "clEnqueueTask", rc, queue, kernel, 1, nullptr, kOne, kOne);
  }
  return rc;
}
