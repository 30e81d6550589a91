// The objects of the fake OpenCL driver. Every one begins with the dispatch table pointer,
// which is what the ICD loader (ocl-icd) dereferences to route a call to us.
#pragma once

#include <CL/cl_icd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

// ThreadSanitizer's annotations, present only when its runtime is loaded (an app built
// with -fsanitize=thread, as in the shim's tests). This library is not instrumented, so
// without them TSan cannot see that the last release, which deletes an object, comes
// after every other thread's use of it, and reports the delete as a race.
extern "C" void __tsan_acquire(void* addr) __attribute__((weak));
extern "C" void __tsan_release(void* addr) __attribute__((weak));

namespace clprof::fake {

// The app-visible reference count (CL_*_REFERENCE_COUNT) and the driver's own holds,
// packed into one atomic so that "both reached zero" is a single decision.
class RefCount {
 public:
  // One app reference, no internal hold: the state of a freshly created object.
  RefCount() = default;
  // Adds one app reference (clRetainX).
  void retain_api() { v_.fetch_add(kApi, std::memory_order_relaxed); }
  // Adds one internal hold (a child object or a queue's pending list).
  void retain_internal() { v_.fetch_add(1, std::memory_order_relaxed); }
  // Drops one app reference; returns the packed remainder (0: destroy now).
  std::uint64_t release_api() { return release(kApi); }
  // Drops one internal hold; returns the packed remainder (0: destroy now).
  std::uint64_t release_internal() { return release(1); }
  // The count the app sees.
  cl_uint api() const { return static_cast<cl_uint>(v_.load(std::memory_order_acquire) >> 32); }
  // True when a packed remainder has no app reference left.
  static bool no_api(std::uint64_t packed) { return (packed >> 32) == 0; }

 private:
  static constexpr std::uint64_t kApi = std::uint64_t{1} << 32;
  std::uint64_t release(std::uint64_t amount) {
    if (__tsan_release) __tsan_release(this);
    const std::uint64_t left = v_.fetch_sub(amount, std::memory_order_acq_rel) - amount;
    if (left == 0 && __tsan_acquire) __tsan_acquire(this);
    return left;
  }
  std::atomic<std::uint64_t> v_{kApi};
};

// One parameter of a kernel as parsed from the OpenCL C source.
struct ArgInfo {
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  bool is_pointer = false;
  std::string type_name;
  std::string name;
};

// One `__kernel void NAME(...)` found in a program's source.
struct KernelInfo {
  std::string name;
  std::vector<ArgInfo> args;
};

}  // namespace clprof::fake

// The struct names are fixed by CL/cl.h (`typedef struct _cl_context *cl_context`), hence
// global and lower-case.
// The one platform (a static singleton; never created or freed).
struct _cl_platform_id {
  const cl_icd_dispatch* dispatch;
};

// The one device (a static singleton; retain/release are no-ops).
struct _cl_device_id {
  const cl_icd_dispatch* dispatch;
};

// A context; holds no device list (there is one device).
struct _cl_context {
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  std::vector<cl_context_properties> properties;  // as given, 0-terminated, or empty
  std::mutex mutex;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_context, void*), void*>> destructors;
};

// An in-order queue; `pending` are the events not yet complete in the slow event modes.
// Every command retains and releases its queue, while a profiler's thread reads
// `properties` (clGetEventProfilingInfo checks it): the counts get a cache line of their own,
// so that the two threads do not bounce one line between cores on each command.
struct _cl_command_queue {
  const cl_icd_dispatch* dispatch;
  cl_context context = nullptr;
  cl_device_id device = nullptr;
  cl_command_queue_properties properties = 0;
  std::vector<cl_queue_properties> properties_array;  // clCreateCommandQueueWithProperties
  alignas(64) clprof::fake::RefCount refs;
  std::mutex mutex;
  std::vector<cl_event> pending;  // not-yet-complete events (each holds an internal ref)
};

// A buffer, sub-buffer or image backed by host memory.
struct _cl_mem {
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  cl_context context = nullptr;
  cl_mem_object_type type = CL_MEM_OBJECT_BUFFER;
  cl_mem_flags flags = 0;
  std::size_t size = 0;
  unsigned char* data = nullptr;  // the bytes (owned unless USE_HOST_PTR or sub-buffer)
  bool owns_data = false;
  void* host_ptr = nullptr;
  cl_mem parent = nullptr;  // sub-buffer: its buffer (internally held)
  std::size_t offset = 0;
  cl_image_format format{};
  cl_image_desc desc{};
  std::size_t element_size = 0;
  std::atomic<cl_uint> map_count{0};
  std::mutex mutex;
  std::vector<std::pair<void(CL_CALLBACK*)(cl_mem, void*), void*>> destructors;
};

// A program; its kernels are parsed from the source when it is created.
struct _cl_program {
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  cl_context context = nullptr;
  std::string source;
  std::vector<clprof::fake::KernelInfo> kernels;  // fixed at creation
  std::mutex mutex;                               // guards the build state below
  cl_build_status build_status = CL_BUILD_NONE;
  cl_program_binary_type binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
  std::string options;
  std::string log;
};

// A kernel of a built program; remembers which arguments were set.
struct _cl_kernel {
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  cl_program program = nullptr;  // internally held
  const clprof::fake::KernelInfo* info = nullptr;
  std::atomic<std::uint64_t> args_set{0};  // bit i: argument i was set (first 64)
};

// The event of one command (or a user event), with its fixed profiling stamps.
struct _cl_event {
  struct Callback {
    cl_int type;
    void(CL_CALLBACK* fn)(cl_event, cl_int, void*);
    void* user_data;
  };
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  cl_command_queue queue = nullptr;  // internally held; null for user events
  cl_context context = nullptr;      // internally held for user events only
  cl_command_type command_type = 0;
  std::atomic<cl_int> status{CL_COMPLETE};
  std::atomic<int> polls_left{0};
  bool never = false;
  cl_ulong times_ns[4] = {0, 0, 0, 0};  // queued, submit, start, end
  std::mutex mutex;
  std::vector<Callback> callbacks;
};

// A sampler: only its properties.
struct _cl_sampler {
  const cl_icd_dispatch* dispatch;
  clprof::fake::RefCount refs;
  cl_context context = nullptr;
  cl_bool normalized = CL_FALSE;
  cl_addressing_mode addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode filter = CL_FILTER_NEAREST;
};
