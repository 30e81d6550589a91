#include "app_support.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "kernel_source.hpp"

namespace shim_test {

long tid() {
  return static_cast<long>(syscall(SYS_gettid));
}

void say(const char* key, long long value) {
  std::printf("%s %lld\n", key, value);
}

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "shim_test_app: %s failed: %d\n", what, rc);
    std::exit(90);
  }
}

Cl::Cl(cl_command_queue_properties props) {
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int rc = 0;
  context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  queue = clCreateCommandQueue(context, device, props, &rc);
  check(rc, "clCreateCommandQueue");
  const char* src = shim_test::kSource;
  program = clCreateProgramWithSource(context, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, shim_test::kBuildOptions, nullptr, nullptr),
        "clBuildProgram");
  vadd = clCreateKernel(program, "vadd", &rc);
  check(rc, "clCreateKernel vadd");
  scal = clCreateKernel(program, "scal", &rc);
  check(rc, "clCreateKernel scal");
  noargs = clCreateKernel(program, "noargs", &rc);
  check(rc, "clCreateKernel noargs");
  a = clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, nullptr, &rc);
  check(rc, "clCreateBuffer a");
  b = clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, nullptr, &rc);
  check(rc, "clCreateBuffer b");
  c = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024, nullptr, &rc);
  check(rc, "clCreateBuffer c");
  check(clSetKernelArg(vadd, 0, sizeof a, &a), "arg");
  check(clSetKernelArg(vadd, 1, sizeof b, &b), "arg");
  check(clSetKernelArg(vadd, 2, sizeof c, &c), "arg");
}
Cl::~Cl() {
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  clReleaseKernel(vadd);
  clReleaseKernel(scal);
  clReleaseKernel(noargs);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
}

}  // namespace shim_test
