// How the shim reaches the real OpenCL functions, and how apps that bypass symbol
// interposition (dlopen + dlsym of libOpenCL) get the hooks anyway.
//
// Where the table of real functions comes from:
//   preload mode (LD_PRELOAD)  real_opencl.cpp resolves each entry point by name, once:
//                              CLPROF_OPENCL_LIBRARY (refused when it is a clprof shim or
//                              not OpenCL: the shim is then off, one warning), else the
//                              next definition after libclprof.so, else
//                              dlopen("libOpenCL.so.1").
//   layer mode (OPENCL_LAYERS) the ICD loader calls clInitLayer (layer.cpp) with the next
//                              layer's dispatch table, and install_real_table() publishes
//                              the table made from it.
// Every hook calls the driver through real() only, so no hook knows the mode.
// dlsym_interposer.cpp is the interposed dlsym.
//
// Threads: any; resolution happens once under a lock, after which real() is one load.
// Ownership: tables are leaked on purpose (hooks may run during exit, and a hook may still
// hold the table an installed one replaced). Static TLS: one byte (t_resolving_real_opencl).
#pragma once

#include <atomic>
#include <string>

#include "hooks/hooks.hpp"

namespace clprof::shim {

// The real functions, resolved on first use.
const RealTable& real_slow();
extern std::atomic<const RealTable*> g_real_table;
inline const RealTable& real() {
  const RealTable* t = g_real_table.load(std::memory_order_acquire);
  return __builtin_expect(t != nullptr, 1) ? *t : real_slow();
}

// True when a real OpenCL library was found and accepted: the shim may record over it.
// False when there is none (real() holds stubs only), or CLPROF_OPENCL_LIBRARY was
// refused (real() holds the usual library's functions; the refusal was the one warning).
bool real_opencl_found();

// Layer mode: from now on real() is `table` (a null member becomes a stub). Threads: any.
void install_real_table(const RealTable& table);

// True on a thread that is resolving the table: the libraries it loads may call dlsym
// from their constructors, and the interposer then answers exactly as libc does.
// __thread, not thread_local: C++ reads a thread_local of another file through a wrapper
// function, which a sanitizer build instruments, and the dlsym path runs before the
// sanitizer's runtime is set up (a ThreadSanitizer build crashed there).
extern __thread bool t_resolving_real_opencl __attribute__((tls_model("initial-exec")));

// The real dlsym (never the interposer). Threads: any.
void* real_dlsym(void* handle, const char* name);

// The shim's own hook for `name` if `name` is a hooked entry point, else nullptr.
void* hook_address(const char* name);

// The real function for hooked `name` in the table, else nullptr.
void* real_address(const char* name);

}  // namespace clprof::shim
