#include "base/real_opencl.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "base/log.hpp"
#include "base/process_settings.hpp"
#include "base/settings.hpp"

namespace clprof::shim {

__thread bool t_resolving_real_opencl __attribute__((tls_model("initial-exec"))) = false;

namespace {

// Stubs keep every table slot callable when no OpenCL library exists, so hooks never
// need a null check. errcode_ret-style out-params are set so the app sees a failure.
template <class T>
void set_error_out(T) {}
inline void set_error_out(cl_int* p) {
  if (p) *p = CL_INVALID_PLATFORM;
}

template <class F>
struct Stub;
template <class R, class... A>
struct Stub<R(CL_API_CALL*)(A...)> {
  static R CL_API_CALL call(A... a) {
    (set_error_out(a), ...);
    if constexpr (std::is_pointer_v<R>) {
      return nullptr;
    } else if constexpr (std::is_same_v<R, cl_int>) {
      return CL_INVALID_PLATFORM;
    } else {
      return R{};
    }
  }
};

struct Resolution {
  RealTable table;
  bool found = false;  // a real OpenCL library the shim may record over
};

void fill_stubs(RealTable& t) {
#define CLPROF_STUB(name) \
  if (!t.name) t.name = &Stub<decltype(&::name)>::call;
  CLPROF_HOOKED_FUNCTIONS(CLPROF_STUB)
  CLPROF_FORWARDED_FUNCTIONS(CLPROF_STUB)
#undef CLPROF_STUB
}

// Why CLPROF_OPENCL_LIBRARY's `handle` cannot be the real OpenCL, or nullptr. Forwarding
// to a clprof shim (this one under another name, or another copy) would call the hooks
// back without end; a library without the OpenCL entry points (libc, say) would answer
// every call with the stubs' errors.
const char* refusal(void* handle) {
  if (real_dlsym(handle, "clprof_shim_range_push_v1")) return "it is clprof's own shim";
  for (const char* name : {"clGetPlatformIDs", "clEnqueueNDRangeKernel"}) {
    if (!real_dlsym(handle, name))
      return "it is not an OpenCL library (no clGetPlatformIDs or clEnqueueNDRangeKernel)";
  }
  return nullptr;
}

Resolution* resolve() {
  auto* r = new Resolution;  // leaked on purpose: hooks may run during exit
  t_resolving_real_opencl = true;
  void* handle = nullptr;
  bool refused = false;
  // Already checked for form (settings.hpp); here for what it is.
  const std::string& forced = settings().opencl_library;
  if (!forced.empty()) {
    handle = dlopen(forced.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* why = handle ? refusal(handle) : dlerror();
    if (why) {
      // The app must keep working: on the library it would have used, unrecorded.
      log_once_warn(
          "CLPROF_OPENCL_LIBRARY=\"%s\": %s; clprof is off, the program runs "
          "untouched on its usual OpenCL library",
          printable_value(forced).c_str(), why);
      if (handle) dlclose(handle);
      handle = nullptr;
      refused = true;
    }
  }
  if (!handle) {
    handle = real_dlsym(RTLD_NEXT, "clGetPlatformIDs")
                 ? RTLD_NEXT
                 : dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  }
  if (handle) {
#define CLPROF_RESOLVE(name) \
  r->table.name = reinterpret_cast<decltype(&::name)>(real_dlsym(handle, #name));
    CLPROF_HOOKED_FUNCTIONS(CLPROF_RESOLVE)
    CLPROF_FORWARDED_FUNCTIONS(CLPROF_RESOLVE)
#undef CLPROF_RESOLVE
  }
  r->found = r->table.clGetPlatformIDs != nullptr && !refused;
  fill_stubs(r->table);
  t_resolving_real_opencl = false;
  return r;
}

std::atomic<Resolution*> g_resolution{nullptr};
std::mutex g_resolve_mutex;

Resolution& resolution() {
  Resolution* r = g_resolution.load(std::memory_order_acquire);
  if (r) return *r;
  std::lock_guard<std::mutex> lock(g_resolve_mutex);
  r = g_resolution.load(std::memory_order_relaxed);
  if (!r) {
    r = resolve();
    g_resolution.store(r, std::memory_order_release);
  }
  return *r;
}

}  // namespace

std::atomic<const RealTable*> g_real_table{nullptr};

void install_real_table(const RealTable& table) {
  auto* r = new Resolution;  // leaked on purpose, as resolve()'s (and the one it replaces)
  r->table = table;
  r->found = r->table.clGetPlatformIDs != nullptr;
  fill_stubs(r->table);
  std::lock_guard<std::mutex> lock(g_resolve_mutex);
  g_resolution.store(r, std::memory_order_release);
  g_real_table.store(&r->table, std::memory_order_release);
}

const RealTable& real_slow() {
  const RealTable& t = resolution().table;
  g_real_table.store(&t, std::memory_order_release);
  return t;
}

bool real_opencl_found() {
  return resolution().found;
}

}  // namespace clprof::shim
