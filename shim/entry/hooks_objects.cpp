// Object creation and release: contexts, queues (profiling added, invisibly), kernels,
// memory objects, samplers. Each hook: scope, real call, best-effort record, result.
// Programs and builds are in hooks_programs.cpp.
#include <algorithm>
#include <cstring>
#include <vector>

#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"
#include "recording/record_sink.hpp"

namespace clprof::shim {
namespace {

void register_queue(cl_command_queue queue, cl_context context, cl_device_id device,
                    cl_command_queue_properties app_properties, bool profiling_added,
                    const cl_queue_properties* app_array) {
  const std::uint64_t context_id = context_id_of(context);
  const std::uint64_t device_id = device_id_of(device);
  QueueInfo* q = queues().create(queue);
  live_created(LiveKind::Queue, queue);
  q->context_id = context_id;
  q->device_id = device_id;
  q->profiling_added = profiling_added;
  q->out_of_order = (app_properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
  q->has_properties_array = app_array != nullptr;
  if (app_array) {
    for (const cl_queue_properties* p = app_array; *p; p += 2) {
      q->app_array.push_back(p[0]);
      q->app_array.push_back(p[1]);
    }
    q->app_array.push_back(0);
  }
  emit_queue_facts(*q, app_properties);
}

template <class GetInfo, class Handle>
cl_uint reference_count(GetInfo get_info, Handle h, cl_uint what) {
  cl_uint n = 0;
  return get_info(h, what, sizeof n, &n, nullptr) == CL_SUCCESS ? n : 0;
}

std::uint64_t mem_size(cl_mem mem) {
  size_t n = 0;
  return real().clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof n, &n, nullptr) == CL_SUCCESS ? n : 0;
}

void register_image(cl_mem m, const cl_image_format* format) {
  const std::uint64_t bytes = mem_size(m);
  register_mem(m, ArgKind::Image, bytes, image_element_bytes(format));
  live_created(LiveKind::Image, m, bytes);
}

// The app's retain or release of one of its objects: counted (live_objects.hpp) when the
// driver accepted it.
template <class Handle>
cl_int counted(cl_int (*real_call)(Handle), Handle h, void (*count)(const void*)) {
  HookScope scope;
  const cl_int rc = real_call(h);
  if (scope.active() && rc == CL_SUCCESS) count(h);
  return rc;
}
template <class Handle>
cl_int count_retain(cl_int (*real_call)(Handle), Handle h) {
  return counted(real_call, h, live_retained);
}
template <class Handle>
cl_int count_release(cl_int (*real_call)(Handle), Handle h) {
  return counted(real_call, h, live_released);
}
cl_int count_event(cl_int (*real_call)(cl_event), cl_event e, void (*count)(int tid)) {
  HookScope scope;
  const cl_int rc = real_call(e);
  if (scope.active() && rc == CL_SUCCESS) count(scope.thread().tid);
  return rc;
}

}  // namespace
}  // namespace clprof::shim

using namespace clprof::shim;

// Platform and device queries: the first starts the trace (a process that queries
// platforms and devices and uses none, such as darktable probing OpenCL, gets a trace of
// its devices and an end); the devices found are recorded as they are seen.
CLPROF_EXPORT cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                                  cl_uint* num_platforms) {
  HookScope scope;
  return real().clGetPlatformIDs(num_entries, platforms, num_platforms);
}

CLPROF_EXPORT cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform, cl_device_type type,
                                                cl_uint num_entries, cl_device_id* devices,
                                                cl_uint* num_devices) {
  HookScope scope;
  const cl_int rc = real().clGetDeviceIDs(platform, type, num_entries, devices, num_devices);
  if (scope.active() && rc == CL_SUCCESS && devices) {
    // Only the entries the driver wrote: without the app's count, asked again (the rest
    // of the app's array may hold anything).
    cl_uint total = 0;
    if (num_devices) {
      total = *num_devices;
    } else if (real().clGetDeviceIDs(platform, type, 0, nullptr, &total) != CL_SUCCESS) {
      total = 0;
    }
    const cl_uint found = std::min(num_entries, total);
    for (cl_uint i = 0; i < found; ++i) {
      if (devices[i]) device_id_of(devices[i]);
    }
  }
  return rc;
}

CLPROF_EXPORT cl_context CL_API_CALL clCreateContext(
    const cl_context_properties* properties, cl_uint num_devices, const cl_device_id* devices,
    void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*), void* user_data,
    cl_int* errcode_ret) {
  HookScope scope;
  cl_context ctx =
      real().clCreateContext(properties, num_devices, devices, pfn_notify, user_data, errcode_ret);
  if (scope.active() && ctx) {
    register_context(ctx);
    live_created(LiveKind::Context, ctx);
  }
  return ctx;
}

CLPROF_EXPORT cl_context CL_API_CALL
clCreateContextFromType(const cl_context_properties* properties, cl_device_type device_type,
                        void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                        void* user_data, cl_int* errcode_ret) {
  HookScope scope;
  cl_context ctx =
      real().clCreateContextFromType(properties, device_type, pfn_notify, user_data, errcode_ret);
  if (scope.active() && ctx) {
    register_context(ctx);
    live_created(LiveKind::Context, ctx);
  }
  return ctx;
}

CLPROF_EXPORT cl_command_queue CL_API_CALL
clCreateCommandQueue(cl_context context, cl_device_id device,
                     cl_command_queue_properties properties, cl_int* errcode_ret) {
  HookScope scope;
  bool added = scope.active() && !(properties & CL_QUEUE_PROFILING_ENABLE);
  cl_command_queue q = real().clCreateCommandQueue(
      context, device, added ? properties | CL_QUEUE_PROFILING_ENABLE : properties, errcode_ret);
  if (added && !q) {
    // The device refused profiling with these properties: the app's own request wins.
    added = false;
    q = real().clCreateCommandQueue(context, device, properties, errcode_ret);
  }
  if (scope.active() && q) register_queue(q, context, device, properties, added, nullptr);
  return q;
}

CLPROF_EXPORT cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                   const cl_queue_properties* properties, cl_int* errcode_ret) {
  HookScope scope;
  cl_command_queue_properties app_bits = 0;
  std::vector<cl_queue_properties> ours;
  bool added = false;
  if (scope.active()) {
    bool has_entry = false;
    for (const cl_queue_properties* p = properties; p && *p; p += 2) {
      ours.push_back(p[0]);
      ours.push_back(p[1]);
      if (p[0] == CL_QUEUE_PROPERTIES) {
        has_entry = true;
        app_bits = p[1];
        if (!(p[1] & CL_QUEUE_PROFILING_ENABLE)) {
          ours.back() |= CL_QUEUE_PROFILING_ENABLE;
          added = true;
        }
      }
    }
    if (!has_entry) {
      ours.push_back(CL_QUEUE_PROPERTIES);
      ours.push_back(CL_QUEUE_PROFILING_ENABLE);
      added = true;
    }
    ours.push_back(0);
  }
  cl_command_queue q = real().clCreateCommandQueueWithProperties(
      context, device, added ? ours.data() : properties, errcode_ret);
  if (added && !q) {
    added = false;
    q = real().clCreateCommandQueueWithProperties(context, device, properties, errcode_ret);
  }
  if (scope.active() && q) {
    static const cl_queue_properties kEmpty[1] = {0};
    register_queue(q, context, device, app_bits, added, properties ? properties : kEmpty);
  }
  return q;
}

CLPROF_EXPORT cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue queue,
                                                       cl_command_queue_info param, size_t size,
                                                       void* value, size_t* size_ret) {
  HookScope scope;
  cl_int rc = real().clGetCommandQueueInfo(queue, param, size, value, size_ret);
  // Hide the profiling bit the shim added; queues made before the trace started, or
  // while disabled, are not in the registry and pass untouched.
  const QueueInfo* q = rc == CL_SUCCESS ? queues().find(queue) : nullptr;
  if (q && q->profiling_added) {
    if (param == CL_QUEUE_PROPERTIES && value && size >= sizeof(cl_command_queue_properties)) {
      cl_command_queue_properties bits;
      std::memcpy(&bits, value, sizeof bits);
      bits &= ~static_cast<cl_command_queue_properties>(CL_QUEUE_PROFILING_ENABLE);
      std::memcpy(value, &bits, sizeof bits);
    } else if (param == CL_QUEUE_PROPERTIES_ARRAY) {
      // What the app passed, not the array the shim handed the driver.
      const size_t bytes = q->app_array.size() * sizeof(cl_queue_properties);
      const size_t reported = q->app_array.size() <= 1 ? 0 : bytes;
      if (size_ret) *size_ret = reported;
      if (value) {
        if (size < reported) return CL_INVALID_VALUE;
        std::memcpy(value, q->app_array.data(), reported);
      }
    }
  }
  return rc;
}

CLPROF_EXPORT cl_kernel CL_API_CALL clCreateKernel(cl_program program, const char* kernel_name,
                                                   cl_int* errcode_ret) {
  HookScope scope;
  cl_kernel k = real().clCreateKernel(program, kernel_name, errcode_ret);
  if (scope.active() && k) {
    register_kernel(k);
    live_created(LiveKind::Kernel, k);
  }
  return k;
}

CLPROF_EXPORT cl_int CL_API_CALL clCreateKernelsInProgram(cl_program program, cl_uint num_kernels,
                                                          cl_kernel* kernels_out,
                                                          cl_uint* num_kernels_ret) {
  HookScope scope;
  cl_uint made = 0;
  const cl_int rc = real().clCreateKernelsInProgram(program, num_kernels, kernels_out, &made);
  if (num_kernels_ret) *num_kernels_ret = made;
  if (scope.active() && rc == CL_SUCCESS && kernels_out) {
    for (cl_uint i = 0; i < made && i < num_kernels; ++i) {
      register_kernel(kernels_out[i]);
      live_created(LiveKind::Kernel, kernels_out[i]);
    }
  }
  return rc;
}

CLPROF_EXPORT cl_kernel CL_API_CALL clCloneKernel(cl_kernel source_kernel, cl_int* errcode_ret) {
  HookScope scope;
  cl_kernel k = real().clCloneKernel(source_kernel, errcode_ret);
  if (scope.active() && k) {
    KernelInfo* clone = register_kernel(k);
    live_created(LiveKind::Kernel, k);
    // A clone starts with the source's arguments (OpenCL 2.1 semantics).
    if (const KernelInfo* src = kernels().find(source_kernel)) {
      std::memcpy(static_cast<void*>(clone->args), src->args, sizeof clone->args);
    }
  }
  return k;
}

CLPROF_EXPORT cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  HookScope scope;
  const cl_uint before =
      scope.active() ? reference_count(real().clGetKernelInfo, kernel, CL_KERNEL_REFERENCE_COUNT)
                     : 0;
  const cl_int rc = real().clReleaseKernel(kernel);
  if (scope.active() && rc == CL_SUCCESS) {
    if (before == 1) kernels().erase(kernel);
    live_released(kernel);
  }
  return rc;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                                void* host_ptr, cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateBuffer(context, flags, size, host_ptr, errcode_ret);
  if (scope.active() && m) {
    register_mem(m, ArgKind::Buffer, size, 0);
    live_created(LiveKind::Buffer, m, size);
  }
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateBufferWithProperties(cl_context context,
                                                              const cl_mem_properties* properties,
                                                              cl_mem_flags flags, size_t size,
                                                              void* host_ptr, cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m =
      real().clCreateBufferWithProperties(context, properties, flags, size, host_ptr, errcode_ret);
  if (scope.active() && m) {
    register_mem(m, ArgKind::Buffer, size, 0);
    live_created(LiveKind::Buffer, m, size);
  }
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateSubBuffer(cl_mem buffer, cl_mem_flags flags,
                                                   cl_buffer_create_type type, const void* info,
                                                   cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateSubBuffer(buffer, flags, type, info, errcode_ret);
  if (scope.active() && m) {
    const auto* region = static_cast<const cl_buffer_region*>(info);
    register_mem(m, ArgKind::Buffer,
                 type == CL_BUFFER_CREATE_TYPE_REGION && region ? region->size : mem_size(m), 0);
    live_created(LiveKind::SubBuffer, m);
  }
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateImage(cl_context context, cl_mem_flags flags,
                                               const cl_image_format* format,
                                               const cl_image_desc* desc, void* host_ptr,
                                               cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateImage(context, flags, format, desc, host_ptr, errcode_ret);
  if (scope.active() && m) register_image(m, format);
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateImageWithProperties(
    cl_context context, const cl_mem_properties* properties, cl_mem_flags flags,
    const cl_image_format* format, const cl_image_desc* desc, void* host_ptr, cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateImageWithProperties(context, properties, flags, format, desc, host_ptr,
                                                errcode_ret);
  if (scope.active() && m) register_image(m, format);
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateImage2D(cl_context context, cl_mem_flags flags,
                                                 const cl_image_format* format, size_t width,
                                                 size_t height, size_t row_pitch, void* host_ptr,
                                                 cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateImage2D(context, flags, format, width, height, row_pitch, host_ptr,
                                    errcode_ret);
  if (scope.active() && m) register_image(m, format);
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreateImage3D(cl_context context, cl_mem_flags flags,
                                                 const cl_image_format* format, size_t width,
                                                 size_t height, size_t depth, size_t row_pitch,
                                                 size_t slice_pitch, void* host_ptr,
                                                 cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreateImage3D(context, flags, format, width, height, depth, row_pitch,
                                    slice_pitch, host_ptr, errcode_ret);
  if (scope.active() && m) register_image(m, format);
  return m;
}

CLPROF_EXPORT cl_mem CL_API_CALL clCreatePipe(cl_context context, cl_mem_flags flags,
                                              cl_uint packet_size, cl_uint max_packets,
                                              const cl_pipe_properties* properties,
                                              cl_int* errcode_ret) {
  HookScope scope;
  cl_mem m = real().clCreatePipe(context, flags, packet_size, max_packets, properties, errcode_ret);
  if (scope.active() && m) {
    const std::uint64_t bytes = static_cast<std::uint64_t>(packet_size) * max_packets;
    register_mem(m, ArgKind::Pipe, bytes, 0);
    live_created(LiveKind::Pipe, m, bytes);
  }
  return m;
}

CLPROF_EXPORT cl_int CL_API_CALL clReleaseMemObject(cl_mem mem) {
  HookScope scope;
  const cl_uint before =
      scope.active() ? reference_count(real().clGetMemObjectInfo, mem, CL_MEM_REFERENCE_COUNT) : 0;
  const cl_int rc = real().clReleaseMemObject(mem);
  if (scope.active() && rc == CL_SUCCESS) {
    if (before == 1) mems().erase(mem);
    live_released(mem);
  }
  return rc;
}

CLPROF_EXPORT cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized,
                                                     cl_addressing_mode addressing,
                                                     cl_filter_mode filter, cl_int* errcode_ret) {
  HookScope scope;
  cl_sampler s = real().clCreateSampler(context, normalized, addressing, filter, errcode_ret);
  if (scope.active() && s) {
    samplers().create(s);
    live_created(LiveKind::Sampler, s);
  }
  return s;
}

CLPROF_EXPORT cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context context, const cl_sampler_properties* properties, cl_int* errcode_ret) {
  HookScope scope;
  cl_sampler s = real().clCreateSamplerWithProperties(context, properties, errcode_ret);
  if (scope.active() && s) {
    samplers().create(s);
    live_created(LiveKind::Sampler, s);
  }
  return s;
}

// Retains and releases the shim only counts (live_objects.hpp); clReleaseKernel and
// clReleaseMemObject are above (they also retire the registry entry).
#define CLPROF_COUNTED_HOOK(fn, how, Handle)      \
  CLPROF_EXPORT cl_int CL_API_CALL fn(Handle h) { \
    return how(real().fn, h);                     \
  }
#define CLPROF_COUNTED_PAIR(Kind, Handle)                   \
  CLPROF_COUNTED_HOOK(clRetain##Kind, count_retain, Handle) \
  CLPROF_COUNTED_HOOK(clRelease##Kind, count_release, Handle)
CLPROF_COUNTED_HOOK(clRetainKernel, count_retain, cl_kernel)
CLPROF_COUNTED_HOOK(clRetainMemObject, count_retain, cl_mem)
CLPROF_COUNTED_PAIR(Program, cl_program)
CLPROF_COUNTED_PAIR(CommandQueue, cl_command_queue)
CLPROF_COUNTED_PAIR(Context, cl_context)
CLPROF_COUNTED_PAIR(Sampler, cl_sampler)
#undef CLPROF_COUNTED_PAIR
#undef CLPROF_COUNTED_HOOK

// The app's events: counters only (the enqueue path takes no lock; live_objects.hpp).
CLPROF_EXPORT cl_event CL_API_CALL clCreateUserEvent(cl_context context, cl_int* errcode_ret) {
  HookScope scope;
  cl_event e = real().clCreateUserEvent(context, errcode_ret);
  if (scope.active() && e) live_event_given(scope.thread().tid);
  return e;
}
CLPROF_EXPORT cl_int CL_API_CALL clRetainEvent(cl_event event) {
  return count_event(real().clRetainEvent, event, live_event_retained);
}
CLPROF_EXPORT cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  return count_event(real().clReleaseEvent, event, live_event_released);
}
