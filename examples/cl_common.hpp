// What the C++ examples share: an OpenCL error check that exits with a readable message,
// and the first platform's first device with a context on it. Header-only: each example
// stays one .cpp file built on its own (examples/CMakeLists.txt). Threads: check() may run
// on any thread (it only prints and exits); first_device_context() is for main's setup.
#pragma once

#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>

namespace clprof_examples {

// The example's name, the prefix of its messages: each example defines it.
extern const char* const kExampleName;

// Exits with a readable message: an example that silently continues after an OpenCL
// error would only produce a confusing trace.
inline void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "%s: %s failed: %d\n", kExampleName, what, rc);
    std::exit(2);
  }
}

// The first platform's first device (of any type) and a context on that device alone.
// Exits on any failure. The caller releases the context.
struct DeviceContext {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
};
inline DeviceContext first_device_context() {
  cl_platform_id platform = nullptr;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  DeviceContext dc;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dc.device, nullptr), "clGetDeviceIDs");
  cl_int rc = CL_SUCCESS;
  dc.context = clCreateContext(nullptr, 1, &dc.device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  return dc;
}

}  // namespace clprof_examples
