// What the advise test programs share (advise_cases.cpp, advise_more.cpp): their kernel and
// their check of a return code.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>

namespace advise_app {

// x[i] = x[i] * a + 1 for i < n (the guard lets a global size be rounded up).
inline const char* const kSource =
    "__kernel void scale_add(__global float* x, const float a, const int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) x[i] = x[i] * a + 1.0f;\n"
    "}\n";

// True for CL_SUCCESS; else prints "WHAT failed: RC".
inline bool check(cl_int rc, const char* what) {
  if (rc == CL_SUCCESS) return true;
  std::printf("%s failed: %d\n", what, rc);
  return false;
}

// The first device of the first platform, a context and an in-order queue on it (with
// `properties`, e.g. CL_QUEUE_PROFILING_ENABLE).
inline bool open_first_device(cl_device_id& device, cl_context& context, cl_command_queue& queue,
                              cl_command_queue_properties properties = 0) {
  cl_platform_id platform;
  cl_int rc = clGetPlatformIDs(1, &platform, nullptr);
  if (check(rc, "clGetPlatformIDs"))
    rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
  if (check(rc, "clGetDeviceIDs"))
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  if (check(rc, "clCreateContext")) queue = clCreateCommandQueue(context, device, properties, &rc);
  return check(rc, "clCreateCommandQueue");
}

}  // namespace advise_app
