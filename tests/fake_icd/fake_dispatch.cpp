// The dispatch table, extension lookup and the symbols the library exports: the only way
// in for the ICD loader, apps and tests (README.md, "Loading it" and "Live event objects").
#include <cstdio>
#include <type_traits>

#include "fake_internal.hpp"

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace clprof::fake {
namespace {

// ocl-icd looks up clIcdGetPlatformIDsKHR and clGetPlatformInfo through here (our cl*
// symbols are not exported, so its dlsym fallback finds nothing).
void* extension_address(const char* name) {
  if (!name) return nullptr;
  if (std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0)
    return reinterpret_cast<void*>(&GetPlatformIDs);
  if (std::strcmp(name, "clGetPlatformInfo") == 0) return reinterpret_cast<void*>(&GetPlatformInfo);
  if (std::strcmp(name, "clImportMemoryARM") == 0) return reinterpret_cast<void*>(&ImportMemoryARM);
  // cl_intel_unified_shared_memory's argument setter (a USM pointer, like an SVM one).
  if (std::strcmp(name, "clSetKernelArgMemPointerINTEL") == 0)
    return reinterpret_cast<void*>(&SetKernelArgSVMPointer);
  return nullptr;
}

// A typed "not supported" answer for every slot we do not implement, so that an app calling
// an exotic entry point gets an error code instead of a jump to address 0.
template <typename F>
struct Unsupported {
  static F get() { return nullptr; }  // the slot's typedef is void* (API level disabled)
};

template <typename R, typename... A>
struct Unsupported<R(CL_API_CALL*)(A...)> {
  static R CL_API_CALL fn(A... args) {
    if constexpr (std::is_pointer_v<R>) {
      // Object-returning entry points take `cl_int* errcode_ret` last.
      set_errcode(args...);
      return nullptr;
    } else if constexpr (std::is_void_v<R>) {
      return;
    } else {
      return CL_INVALID_OPERATION;
    }
  }
  static void set_errcode() {}
  template <typename Last>
  static void set_errcode(Last last) {
    if constexpr (std::is_same_v<Last, cl_int*>) {
      if (last) *last = CL_INVALID_OPERATION;
    }
  }
  template <typename First, typename Second, typename... Rest>
  static void set_errcode(First, Second second, Rest... rest) {
    set_errcode(second, rest...);
  }
  static R(CL_API_CALL* get())(A...) { return &fn; }
};

void init_dispatch(cl_icd_dispatch& d) {
// The table has slots for deprecated entry points too; filling them is the point.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define X(name) d.name = Unsupported<decltype(d.name)>::get();
#include "dispatch_members.inc"
#undef X
#pragma GCC diagnostic pop
#define X(name) d.cl##name = name;
#include "fake_entry_points.inc"
#undef X
}

// The loader's first call into us is one of the two exported functions; both make sure the
// table is filled first. A static initialiser would also do, but the loader may dlopen us
// from inside another library's constructor, so we do not rely on initialisation order.
void ensure_dispatch() {
  static const bool done = [] {
    init_dispatch(g_dispatch);
    return true;
  }();
  (void)done;
}

// FAKE_CL_REPORT: what is still alive when the library is unloaded. As a destructor of
// this library it runs after the process's atexit handlers (ld.so's own exit handler,
// which runs the library destructors, was registered before main), so it sees what an
// exit handler of a layer above (libclprof.so's) left behind. The configuration is
// leaked on purpose, so it is still there.
__attribute__((destructor)) void write_report() {
  const std::string& path = config().report_path;
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "clprof fake ICD: cannot write FAKE_CL_REPORT=\"%s\"\n", path.c_str());
    return;
  }
  std::fprintf(f, "live_events %llu\n",
               static_cast<unsigned long long>(g_live_events.load(std::memory_order_relaxed)));
  std::fclose(f);
}

}  // namespace

void* CL_API_CALL GetExtensionFunctionAddressForPlatform(cl_platform_id, const char* name) {
  return extension_address(name);
}

void* CL_API_CALL GetExtensionFunctionAddress(const char* name) {
  return extension_address(name);
}

}  // namespace clprof::fake

// Event objects created and not yet destroyed, for tests (README.md, "Live event objects").
// Not an OpenCL entry point: tests find it with dlopen(RTLD_NOLOAD) + dlsym.
FAKE_EXPORT unsigned long long clprof_fake_live_events(void) {
  return clprof::fake::g_live_events.load(std::memory_order_relaxed);
}

FAKE_EXPORT unsigned long long clprof_fake_referenced_events(void) {
  return clprof::fake::g_referenced_events.load(std::memory_order_relaxed);
}

FAKE_EXPORT CL_API_ENTRY cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                                   cl_platform_id* platforms,
                                                                   cl_uint* num_platforms) {
  clprof::fake::ensure_dispatch();
  return clprof::fake::GetPlatformIDs(num_entries, platforms, num_platforms);
}

FAKE_EXPORT CL_API_ENTRY void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {
  clprof::fake::ensure_dispatch();
  return clprof::fake::extension_address(name);
}

// Exported as a vendor's own libOpenCL exports it (Mali's does), for apps that dlsym it
// from the library (Arm Compute Library does).
FAKE_EXPORT CL_API_ENTRY cl_mem CL_API_CALL clImportMemoryARM(cl_context c, cl_mem_flags flags,
                                                              const intptr_t* properties,
                                                              void* memory, size_t bytes,
                                                              cl_int* errcode_ret) {
  return clprof::fake::ImportMemoryARM(c, flags, properties, memory, bytes, errcode_ret);
}
