// The positive and negative cases of `clprof advise`'s rules on a real driver (e2e test
// advise_cases): `advise_cases bad` does what the rules warn about, `advise_cases good` the
// same work the way the rules advise.
//
//   bad:  builds one source 3 times with the same options   -> repeated-build
//         20 launches with local size NULL over a prime
//         global size (1021)                                -> default-local-size (warning)
//         clFinish after each launch                       -> sync-after-each-launch
//         a blocking read between launches each iteration  -> blocking-transfer
//         one launch with local size 7 over the prime global
//         size (CL_INVALID_WORK_GROUP_SIZE), result ignored  -> api-errors (warning)
//   good: one build; 20 launches over 1024 work-items in work-groups of 64 (the kernel
//         guards i < n), no wait between them; one blocking read after the last launch.
// Prints "ok SUM" (the same in both modes) and exits 0, or prints the failing call, exit 1.
#include <cstdio>
#include <cstring>
#include <vector>

#include "advise_app.hpp"

namespace {

using advise_app::check;
using advise_app::kSource;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "bad") != 0 && std::strcmp(argv[1], "good") != 0)) {
    std::fprintf(stderr, "usage: advise_cases bad|good\n");
    return 2;
  }
  const bool bad = std::strcmp(argv[1], "bad") == 0;
  const int n = 1021;  // a prime
  const int iterations = 20;
  cl_platform_id platform;
  cl_device_id device;
  cl_int rc = clGetPlatformIDs(1, &platform, nullptr);
  if (!check(rc, "clGetPlatformIDs")) return 1;
  rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
  if (!check(rc, "clGetDeviceIDs")) return 1;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  if (!check(rc, "clCreateContext")) return 1;
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &rc);
  if (!check(rc, "clCreateCommandQueue")) return 1;

  cl_program program = nullptr;
  for (int b = 0; b < (bad ? 3 : 1); ++b) {
    if (program) clReleaseProgram(program);
    const char* source = kSource;  // the API takes a non-const pointer to the array
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &rc);
    if (!check(rc, "clCreateProgramWithSource")) return 1;
    rc = clBuildProgram(program, 1, &device, "-cl-fast-relaxed-math", nullptr, nullptr);
    if (!check(rc, "clBuildProgram")) return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "scale_add", &rc);
  if (!check(rc, "clCreateKernel")) return 1;

  std::vector<float> host(n, 1.0f);
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * n,
                            host.data(), &rc);
  if (!check(rc, "clCreateBuffer")) return 1;
  const float a = 0.5f;
  rc = clSetKernelArg(kernel, 0, sizeof(cl_mem), &x);
  rc |= clSetKernelArg(kernel, 1, sizeof(float), &a);
  rc |= clSetKernelArg(kernel, 2, sizeof(int), &n);
  if (!check(rc, "clSetKernelArg")) return 1;

  const size_t prime_global = static_cast<size_t>(n);
  const size_t local = 64;
  const size_t rounded = (prime_global + local - 1) / local * local;  // 1024
  if (bad) {
    // 7 does not divide 1021: the enqueue fails, and the program goes on as if it had not.
    const size_t seven = 7;
    (void)clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &prime_global, &seven, 0, nullptr,
                                 nullptr);
  }
  for (int it = 0; it < iterations; ++it) {
    if (bad) {
      rc = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &prime_global, nullptr, 0, nullptr,
                                  nullptr);
      if (!check(rc, "clEnqueueNDRangeKernel")) return 1;
      rc = clFinish(queue);
      if (!check(rc, "clFinish")) return 1;
      rc = clEnqueueReadBuffer(queue, x, CL_TRUE, 0, sizeof(float) * n, host.data(), 0, nullptr,
                               nullptr);
      if (!check(rc, "clEnqueueReadBuffer")) return 1;
    } else {
      rc = clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &rounded, &local, 0, nullptr, nullptr);
      if (!check(rc, "clEnqueueNDRangeKernel")) return 1;
    }
  }
  rc = clEnqueueReadBuffer(queue, x, CL_TRUE, 0, sizeof(float) * n, host.data(), 0, nullptr,
                           nullptr);
  if (!check(rc, "clEnqueueReadBuffer")) return 1;
  double sum = 0;
  for (float v : host) sum += v;
  std::printf("ok %.3f\n", sum);
  clReleaseMemObject(x);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
