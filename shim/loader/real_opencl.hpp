// Finding the real OpenCL functions, and the dlsym interposer that hands apps which
// bypass symbol interposition (dlopen + dlsym of libOpenCL) the shim's hooks instead.
#pragma once

#include <atomic>
#include <string>

#include "hooks/hooks.hpp"

namespace clprof::shim {

// The real functions. Resolves on first use (CLPROF_OPENCL_LIBRARY, else RTLD_NEXT,
// else dlopen("libOpenCL.so.1")). Threads: any; resolution happens once, after which
// this is one load.
const RealTable& real_slow();
extern std::atomic<const RealTable*> g_real_table;
inline const RealTable& real() {
  const RealTable* t = g_real_table.load(std::memory_order_acquire);
  return __builtin_expect(t != nullptr, 1) ? *t : real_slow();
}

// True when a real OpenCL library was found (else real() holds stubs only).
bool real_opencl_found();

// The real dlsym (never the interposer). Threads: any.
void* real_dlsym(void* handle, const char* name);

// The shim's own hook for `name` if `name` is a hooked entry point, else nullptr.
void* hook_address(const char* name);

// The real function for hooked `name` in the table, else nullptr.
void* real_address(const char* name);

}  // namespace clprof::shim
