// The shim's own hooks by name, and the real function each forwards to: what the dlsym
// interposer hands out (entry/dlsym_interposer.cpp) and what
// clGetExtensionFunctionAddress answers for a hooked name (hooks_sync.cpp). In the entry
// room: the table names the hooks themselves.
//
// Threads: any. No allocation, no lock: a scan of a constant table (and real(), one load).
#pragma once

namespace clprof::shim {

// The shim's own hook for `name` if `name` is a hooked entry point, else nullptr.
void* hook_address(const char* name);

// The real function for hooked `name` in the table (base/real_opencl.hpp), else nullptr.
void* real_address(const char* name);

}  // namespace clprof::shim
