// The OpenCL C program and build options shared by the test app and the tests that check
// the trace (which recompute the source hash).
#pragma once

namespace shim_test {

// Three kernels: vadd (3 buffers), scal (buffer, float, int, __local), noargs.
inline const char* const kSource =
    "__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] + b[i];\n"
    "}\n"
    "__kernel void scal(__global float* x, float f, int n, __local float* tmp) {\n"
    "  size_t i = get_global_id(0); if (i < n) x[i] *= f;\n"
    "}\n"
    "kernel void noargs(void) { }\n";

// The build options recorded verbatim in the build record.
inline const char* const kBuildOptions = "-DM=64 -DN=32 -DK=16";

}  // namespace shim_test
