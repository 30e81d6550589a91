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
// entry/dlsym_interposer.cpp is the interposed dlsym; real_dlsym.cpp is libc's, behind it.
// The hooks' own addresses by name (for that interposer and clGetExtensionFunctionAddress)
// are the entry room's: entry/hook_addresses.hpp.
//
// Threads: any; resolution happens once under a lock, after which real() is one load.
// Ownership: tables are leaked on purpose (hooks may run during exit, and a hook may still
// hold the table an installed one replaced). Static TLS: one byte (t_resolving_real_opencl).
#pragma once

#include <atomic>
#include <string>

#include "base/entry_points.hpp"

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

// Code on the dlsym path runs when sanitizer runtimes resolve their interceptors, before
// their shadow memory exists: it must not be instrumented (matters for sanitizer builds
// of the shim only).
#define CLPROF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))

using DlsymFn = void* (*)(void*, const char*);

// The real dlsym (never the interposer). Threads: any. real_dlsym.cpp.
void* real_dlsym(void* handle, const char* name);

// libc's `name` (dlsym, dlopen, dlclose), not an interposer's (dlvsym). Threads: any.
void* libc_symbol(const char* name);

}  // namespace clprof::shim
