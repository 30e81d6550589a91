#include "entry/hooks_extensions.hpp"

#include <CL/cl_ext.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "recording/hook_scope.hpp"
#include "recording/objects.hpp"

namespace clprof::shim {
namespace {

// The driver functions behind one wrapper and the platform each was looked up for
// (nullptr: found by dlsym). One per platform or library, so a handful at most; written
// under the mutex, and an entry never changes once counted.
template <class Fn>
class RealFunctions {
 public:
  void remember(cl_platform_id platform, Fn fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int n = count_.load(std::memory_order_relaxed);
    for (int i = 0; i < n; ++i) {
      if (entries_[i].fn == fn && entries_[i].platform == platform) return;
    }
    if (n == kMax) return;  // the first ones serve (cannot happen in practice)
    entries_[n] = {platform, fn};
    count_.store(n + 1, std::memory_order_release);
  }
  // The function for an object of `context`: the only one known (the usual case), else
  // the one looked up for the context's platform, else the first. nullptr: none yet.
  Fn for_context(cl_context context) const {
    const int n = count_.load(std::memory_order_acquire);
    if (n <= 1) return n == 1 ? entries_[0].fn : nullptr;
    const cl_platform_id platform = platform_of(context);
    for (int i = 0; i < n; ++i) {
      if (entries_[i].platform == platform) return entries_[i].fn;
    }
    return entries_[0].fn;
  }

 private:
  static cl_platform_id platform_of(cl_context context) {
    size_t bytes = 0;
    if (real().clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &bytes) != CL_SUCCESS ||
        bytes < sizeof(cl_device_id)) {
      return nullptr;
    }
    std::vector<cl_device_id> devices(bytes / sizeof(cl_device_id));
    cl_platform_id platform = nullptr;
    if (real().clGetContextInfo(context, CL_CONTEXT_DEVICES, bytes, devices.data(), nullptr) ==
        CL_SUCCESS) {
      real().clGetDeviceInfo(devices[0], CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    }
    return platform;
  }

  struct Entry {
    cl_platform_id platform;
    Fn fn;
  };
  static constexpr int kMax = 8;
  mutable std::mutex mutex_;
  Entry entries_[kMax] = {};
  std::atomic<int> count_{0};
};

// ---- cl_arm_import_memory: the imported memory is a buffer ----------------------------
using ImportMemoryArm = decltype(&::clImportMemoryARM);
RealFunctions<ImportMemoryArm> g_import_memory_arm;

cl_mem CL_API_CALL import_memory_arm(cl_context context, cl_mem_flags flags,
                                     const cl_import_properties_arm* properties, void* memory,
                                     size_t size, cl_int* errcode_ret) {
  HookScope scope;
  const ImportMemoryArm fn = g_import_memory_arm.for_context(context);
  if (!fn) {  // (handed out only after a driver function was found)
    if (errcode_ret) *errcode_ret = CL_INVALID_OPERATION;
    return nullptr;
  }
  cl_mem mem = fn(context, flags, properties, memory, size, errcode_ret);
  if (scope.active() && mem) {
    // The driver's size: `size` may be CL_IMPORT_MEMORY_WHOLE_ALLOCATION_ARM.
    size_t bytes = 0;
    if (real().clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) != CL_SUCCESS)
      bytes = size;
    register_mem(mem, ArgKind::Buffer, bytes, 0);
  }
  return mem;
}

// ---- cl_intel_unified_shared_memory: a pointer argument, like an SVM one ---------------
#if defined(cl_intel_unified_shared_memory)
using SetKernelArgMemPointerIntel = decltype(&::clSetKernelArgMemPointerINTEL);
#else
// Headers older than the extension (Debian 11's): the signature of its specification.
using SetKernelArgMemPointerIntel = cl_int(CL_API_CALL*)(cl_kernel, cl_uint, const void*);
#endif
RealFunctions<SetKernelArgMemPointerIntel> g_set_arg_mem_pointer_intel;

cl_int CL_API_CALL set_kernel_arg_mem_pointer_intel(cl_kernel kernel, cl_uint arg_index,
                                                    const void* arg_value) {
  HookScope scope;
  cl_context context = nullptr;
  real().clGetKernelInfo(kernel, CL_KERNEL_CONTEXT, sizeof context, &context, nullptr);
  const SetKernelArgMemPointerIntel fn = g_set_arg_mem_pointer_intel.for_context(context);
  if (!fn) return CL_INVALID_OPERATION;  // (as above)
  const cl_int rc = fn(kernel, arg_index, arg_value);
  if (scope.active() && rc == CL_SUCCESS) snapshot_pointer_arg(kernel, arg_index, arg_value);
  return rc;
}

template <class Fn>
void* wrap(RealFunctions<Fn>& reals, Fn wrapper, cl_platform_id platform, void* found) {
  // A loader that hands out what another lookup of ours gave it: never wrap the wrapper.
  if (found == reinterpret_cast<void*>(wrapper)) return found;
  reals.remember(platform, reinterpret_cast<Fn>(found));
  return reinterpret_cast<void*>(wrapper);
}

}  // namespace

void* extension_hook(cl_platform_id platform, const char* name, void* found) {
  if (!found || !name) return nullptr;
  if (std::strcmp(name, "clImportMemoryARM") == 0)
    return wrap(g_import_memory_arm, &import_memory_arm, platform, found);
  if (std::strcmp(name, "clSetKernelArgMemPointerINTEL") == 0)
    return wrap(g_set_arg_mem_pointer_intel, &set_kernel_arg_mem_pointer_intel, platform, found);
  return nullptr;
}

}  // namespace clprof::shim
