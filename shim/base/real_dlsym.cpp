// libc's own dlsym, found without going through the interposed one
// (entry/dlsym_interposer.cpp): real_dlsym() and the pointer the interposer's assembly
// entry point jumps through. In base: the real OpenCL library is looked up with it.
// Not instrumented (CLPROF_NO_SANITIZE, base/real_opencl.hpp).
#include <dlfcn.h>

#include "base/real_opencl.hpp"

namespace clprof::shim {

namespace {

// The version glibc gave dlsym, dlopen and dlclose when it first supported this
// architecture: the only one they have in libdl.so.2 before glibc 2.34, a compatibility
// alias of the same function in libc.so.6 since (where GLIBC_2.34 is the default).
#if defined(__x86_64__)
#define CLPROF_GLIBC_BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CLPROF_GLIBC_BASE_VERSION "GLIBC_2.17"
#endif

}  // namespace

CLPROF_NO_SANITIZE void* libc_symbol(const char* name) {
  // dlvsym is not interposed, so this cannot recurse into our own dlsym. The version every
  // glibc has comes first: a lookup that fails makes glibc before 2.34 malloc and free an
  // error message (and leaves it for the app's dlerror()), which crashed an app built with
  // GCC 10's AddressSanitizer, whose allocator is not ready while it resolves its
  // interceptors through our dlsym (Debian 11, scripts/debian11.sh).
#ifdef CLPROF_GLIBC_BASE_VERSION
  if (void* f = dlvsym(RTLD_NEXT, name, CLPROF_GLIBC_BASE_VERSION)) return f;
#endif
  return dlvsym(RTLD_NEXT, name, "GLIBC_2.34");
}

namespace {

CLPROF_NO_SANITIZE DlsymFn find_real_dlsym() {
  return reinterpret_cast<DlsymFn>(libc_symbol("dlsym"));
}

}  // namespace

}  // namespace clprof::shim

// libc's dlsym, found once. A plain pointer read with atomic builtins, not a
// function-local static or std::atomic: sanitizer runtimes call dlsym before their own
// set-up is done, when a static's guard (__cxa_guard_acquire) or an instrumented
// std::atomic member crashes them. Two threads racing here both store the same value.
// C linkage: the interposer's assembly entry point (entry/dlsym_interposer.cpp) reads it.
extern "C" {
__attribute__((visibility("hidden"))) clprof::shim::DlsymFn clprof_real_dlsym = nullptr;
}

extern "C" __attribute__((visibility("hidden"))) CLPROF_NO_SANITIZE clprof::shim::DlsymFn
clprof_resolve_real_dlsym() {
  clprof::shim::DlsymFn fn = __atomic_load_n(&clprof_real_dlsym, __ATOMIC_ACQUIRE);
  if (!fn) {
    fn = clprof::shim::find_real_dlsym();
    __atomic_store_n(&clprof_real_dlsym, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

namespace clprof::shim {

CLPROF_NO_SANITIZE void* real_dlsym(void* handle, const char* name) {
  const DlsymFn fn = clprof_resolve_real_dlsym();
  return fn ? fn(handle, name) : nullptr;
}

}  // namespace clprof::shim
