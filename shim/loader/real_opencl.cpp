#include "loader/real_opencl.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "runtime/log.hpp"

namespace clprof::shim {

__thread bool t_resolving_real_opencl __attribute__((tls_model("initial-exec"))) = false;

namespace {

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
  bool found = false;
};

Resolution* resolve() {
  auto* r = new Resolution;  // leaked on purpose: hooks may run during exit
  t_resolving_real_opencl = true;
  void* handle = nullptr;
  const char* forced = std::getenv("CLPROF_OPENCL_LIBRARY");
  if (forced && *forced) {
    handle = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    // The app must keep working: fall back to the library it would have used.
    if (!handle) {
      log_message(LogLevel::Warn, "cannot load CLPROF_OPENCL_LIBRARY=%s (%s); using the default",
                  forced, dlerror());
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
  r->found = r->table.clGetPlatformIDs != nullptr;
#define CLPROF_STUB(name) \
  if (!r->table.name) r->table.name = &Stub<decltype(&::name)>::call;
  CLPROF_HOOKED_FUNCTIONS(CLPROF_STUB)
  CLPROF_FORWARDED_FUNCTIONS(CLPROF_STUB)
#undef CLPROF_STUB
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

struct NamedHook {
  const char* name;
  void* hook;
};

const NamedHook kHooks[] = {
#define CLPROF_NAMED_HOOK(name) {#name, reinterpret_cast<void*>(&::name)},
    CLPROF_HOOKED_FUNCTIONS(CLPROF_NAMED_HOOK)
#undef CLPROF_NAMED_HOOK
};

int hook_index(const char* name) {
  if (!name || name[0] != 'c' || name[1] != 'l') return -1;
  for (size_t i = 0; i < sizeof(kHooks) / sizeof(kHooks[0]); ++i) {
    if (std::strcmp(kHooks[i].name, name) == 0) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::atomic<const RealTable*> g_real_table{nullptr};

const RealTable& real_slow() {
  const RealTable& t = resolution().table;
  g_real_table.store(&t, std::memory_order_release);
  return t;
}

bool real_opencl_found() {
  return resolution().found;
}

void* hook_address(const char* name) {
  const int i = hook_index(name);
  return i < 0 ? nullptr : kHooks[i].hook;
}

void* real_address(const char* name) {
  const int i = hook_index(name);
  if (i < 0) return nullptr;
  const RealTable& t = real();
  // The table is the X-macro list in order, hooked functions first: index matches.
  static_assert(sizeof(RealTable) % sizeof(void*) == 0);
  void* const* slots = reinterpret_cast<void* const*>(&t);
  return slots[i];
}

}  // namespace clprof::shim
