// Extension entry points handed out wrapped (through clGetExtensionFunctionAddress,
// clGetExtensionFunctionAddressForPlatform, or dlsym on a vendor library that exports
// them): the few that make objects or set arguments the trace must know about. Memory
// imported with clImportMemoryARM (Arm NN's zero-copy inputs and outputs) is a buffer
// argument like any other, not an 8-byte scalar; an argument set with
// clSetKernelArgMemPointerINTEL (unified shared memory) is a pointer, not whatever the
// argument held before.
#pragma once

#include <CL/cl.h>

namespace clprof::shim {

// The wrapper to hand out instead of `found`, the driver's function `name` (looked up
// for `platform`, or nullptr when it came from dlsym on a library), or nullptr when
// `name` is not wrapped. Remembers `found` for the wrapper to call. Threads: any.
void* extension_hook(cl_platform_id platform, const char* name, void* found);

}  // namespace clprof::shim
