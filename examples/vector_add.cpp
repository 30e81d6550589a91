// vector_add: the smallest complete OpenCL program worth profiling with clprof.
//
// It runs three kernels through the plain C API:
//   saxpy(float a, global const float* x, global float* y, uint n)   y = a*x + y
//   vadd(global const float* x, global const float* y, global float* z)   z = x + y
//   sum_first(global const float* z, global float* out, uint count)   out[0] = z[0..count)
// saxpy runs with different scalar arguments and work sizes, one launch with a NULL local
// size and one with a global offset; sum_first is a single work-item clEnqueueTask. The
// results are read back and checked on the CPU (exit 1 on a mismatch).
// Range markers name the phases so `clprof layers` can attribute the launches.
//
// Every launch is also printed as one "launch ..." line on stdout. The line is for people
// comparing the program with its trace (and for the end-to-end tests, which do the same).
//
//   build/bin/vector_add
//   clprof record -o run.json -- build/bin/vector_add && clprof kernels run.json

#include <CL/cl.h>

#include <clprof/clprof.h>

#include "cl_common.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using clprof_examples::check;
using clprof_examples::first_device_context;

const char* kSource = R"CLC(
kernel void saxpy(float a, global const float* x, global float* y, uint n) {
  size_t i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
kernel void vadd(global const float* x, global const float* y, global float* z) {
  size_t i = get_global_id(0);
  z[i] = x[i] + y[i];
}
kernel void sum_first(global const float* z, global float* out, uint count) {
  float acc = 0.0f;
  for (uint i = 0; i < count; ++i) acc += z[i];
  out[0] = acc;
}
)CLC";

constexpr cl_uint kElements = 4096;
constexpr cl_uint kSumCount = 16;

// One saxpy launch as the program plans it; the CPU mirror below replays the same list.
struct SaxpyLaunch {
  float a;
  cl_uint n;      // elements updated (the kernel guards i < n)
  size_t global;  // global work size
  size_t local;   // 0 = pass NULL and let the driver choose
  size_t offset;  // global offset; 0 = pass NULL
};

const SaxpyLaunch kSaxpyPlan[] = {
    {2.0f, kElements, kElements, 64, 0},
    {0.5f, 1000, 1024, 128, 0},           // n not a multiple of the work-group size
    {-1.0f, kElements, kElements, 0, 0},  // NULL local size
    {3.0f, 2048, 2048, 256, 0},
    {1.5f, kElements, 1024, 64, 1024},  // elements [1024, 2048) through a global offset
};

void enqueue_saxpy(cl_command_queue queue, cl_kernel kernel, cl_mem x, cl_mem y,
                   const SaxpyLaunch& l) {
  check(clSetKernelArg(kernel, 0, sizeof(float), &l.a), "clSetKernelArg(a)");
  check(clSetKernelArg(kernel, 1, sizeof(cl_mem), &x), "clSetKernelArg(x)");
  check(clSetKernelArg(kernel, 2, sizeof(cl_mem), &y), "clSetKernelArg(y)");
  check(clSetKernelArg(kernel, 3, sizeof(cl_uint), &l.n), "clSetKernelArg(n)");
  const size_t* local = l.local ? &l.local : nullptr;
  const size_t* offset = l.offset ? &l.offset : nullptr;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, offset, &l.global, local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel(saxpy)");
  if (l.offset != 0) {
    std::printf("launch saxpy gws=%zu lws=%zu gwo=%zu a=%g n=%u\n", l.global, l.local, l.offset,
                static_cast<double>(l.a), l.n);
  } else {
    std::printf("launch saxpy gws=%zu lws=%zu a=%g n=%u\n", l.global, l.local,
                static_cast<double>(l.a), l.n);
  }
}

// Relative tolerance: the device may contract a*x+y into an FMA, the CPU may not.
bool close_enough(float got, float want) {
  return std::fabs(got - want) <= 1e-5f * std::fmax(1.0f, std::fabs(want));
}

}  // namespace

const char* const clprof_examples::kExampleName = "vector_add";

int main() {
  const auto [device, context] = first_device_context();
  cl_int rc = CL_SUCCESS;
  // No profiling flag on purpose: clprof adds CL_QUEUE_PROFILING_ENABLE itself.
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties");

  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  {
    clprof::ScopedRange build_range{"build"};
    // -cl-kernel-arg-info: drivers then answer clGetKernelArgInfo (PoCL does only with it), so
    // clprof records the argument types and prints saxpy's float `a` as its value.
    rc = clBuildProgram(program, 1, &device, "-cl-kernel-arg-info", nullptr, nullptr);
    if (rc != CL_SUCCESS) {
      char log[4096] = {};
      clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, nullptr);
      std::fprintf(stderr, "vector_add: build failed:\n%s\n", log);
      return 2;
    }
  }
  cl_kernel saxpy = clCreateKernel(program, "saxpy", &rc);
  check(rc, "clCreateKernel(saxpy)");
  cl_kernel vadd = clCreateKernel(program, "vadd", &rc);
  check(rc, "clCreateKernel(vadd)");
  cl_kernel sum_first = clCreateKernel(program, "sum_first", &rc);
  check(rc, "clCreateKernel(sum_first)");

  std::vector<float> x(kElements), y(kElements);
  for (cl_uint i = 0; i < kElements; ++i) {
    x[i] = static_cast<float>(i % 97) * 0.25f;
    y[i] = static_cast<float>(i % 13) - 6.0f;
  }
  const size_t bytes = kElements * sizeof(float);
  clprof_mark("buffers");
  cl_mem x_buf = clCreateBuffer(context, CL_MEM_READ_ONLY, bytes, nullptr, &rc);
  check(rc, "clCreateBuffer(x)");
  cl_mem y_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
  check(rc, "clCreateBuffer(y)");
  cl_mem z_buf = clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
  check(rc, "clCreateBuffer(z)");
  cl_mem sum_buf = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof(float), nullptr, &rc);
  check(rc, "clCreateBuffer(sum)");

  std::vector<float> y_out(kElements), z_out(kElements);
  float sum_out = 0.0f;
  clprof_range_push("vector_add");
  {
    clprof::ScopedRange upload{"upload"};
    check(clEnqueueWriteBuffer(queue, x_buf, CL_TRUE, 0, bytes, x.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer(x)");
    check(clEnqueueWriteBuffer(queue, y_buf, CL_TRUE, 0, bytes, y.data(), 0, nullptr, nullptr),
          "clEnqueueWriteBuffer(y)");
  }
  {
    clprof::ScopedRange compute{"saxpy"};
    for (const SaxpyLaunch& l : kSaxpyPlan) enqueue_saxpy(queue, saxpy, x_buf, y_buf, l);
  }
  {
    clprof::ScopedRange compute{"vadd"};
    check(clSetKernelArg(vadd, 0, sizeof(cl_mem), &x_buf), "clSetKernelArg(vadd x)");
    check(clSetKernelArg(vadd, 1, sizeof(cl_mem), &y_buf), "clSetKernelArg(vadd y)");
    check(clSetKernelArg(vadd, 2, sizeof(cl_mem), &z_buf), "clSetKernelArg(vadd z)");
    const size_t global = kElements;
    const size_t local = 32;
    check(clEnqueueNDRangeKernel(queue, vadd, 1, nullptr, &global, &local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel(vadd)");
    std::printf("launch vadd gws=%zu lws=%zu\n", global, local);
  }
  {
    clprof::ScopedRange reduce{"reduce"};
    check(clSetKernelArg(sum_first, 0, sizeof(cl_mem), &z_buf), "clSetKernelArg(sum z)");
    check(clSetKernelArg(sum_first, 1, sizeof(cl_mem), &sum_buf), "clSetKernelArg(sum out)");
    check(clSetKernelArg(sum_first, 2, sizeof(cl_uint), &kSumCount), "clSetKernelArg(count)");
    // A single work-item: the OpenCL 1.x way, deprecated since 2.0 but still common.
    check(clEnqueueTask(queue, sum_first, 0, nullptr, nullptr), "clEnqueueTask(sum_first)");
    std::printf("launch sum_first gws=1 lws=1 api=clEnqueueTask count=%u\n", kSumCount);
  }
  check(clFinish(queue), "clFinish");
  {
    clprof::ScopedRange download{"download"};
    check(clEnqueueReadBuffer(queue, y_buf, CL_TRUE, 0, bytes, y_out.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer(y)");
    check(clEnqueueReadBuffer(queue, z_buf, CL_TRUE, 0, bytes, z_out.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer(z)");
    check(clEnqueueReadBuffer(queue, sum_buf, CL_TRUE, 0, sizeof(float), &sum_out, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer(sum)");
  }
  clprof_range_pop();

  // CPU mirror of the same plan, in the same order, then z = x + y and the sum.
  std::vector<float> y_want = y;
  for (const SaxpyLaunch& l : kSaxpyPlan) {
    for (size_t i = l.offset; i < l.offset + l.global && i < l.n; ++i) {
      y_want[i] = l.a * x[i] + y_want[i];
    }
  }
  float sum_want = 0.0f;
  for (cl_uint i = 0; i < kSumCount; ++i) sum_want += x[i] + y_want[i];
  int bad = 0;
  for (cl_uint i = 0; i < kElements; ++i) {
    if (!close_enough(y_out[i], y_want[i]) || !close_enough(z_out[i], x[i] + y_want[i])) {
      if (bad < 5) {
        std::fprintf(stderr, "vector_add: mismatch at %u: y=%g (want %g) z=%g (want %g)\n", i,
                     static_cast<double>(y_out[i]), static_cast<double>(y_want[i]),
                     static_cast<double>(z_out[i]), static_cast<double>(x[i] + y_want[i]));
      }
      ++bad;
    }
  }
  // The sum adds rounding per term on top of the per-element tolerance.
  if (std::fabs(sum_out - sum_want) > 1e-4f * std::fmax(1.0f, std::fabs(sum_want))) {
    std::fprintf(stderr, "vector_add: sum_first = %g, want %g\n", static_cast<double>(sum_out),
                 static_cast<double>(sum_want));
    ++bad;
  }

  clReleaseMemObject(sum_buf);
  clReleaseMemObject(z_buf);
  clReleaseMemObject(y_buf);
  clReleaseMemObject(x_buf);
  clReleaseKernel(sum_first);
  clReleaseKernel(vadd);
  clReleaseKernel(saxpy);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);

  if (bad != 0) {
    std::printf("vector_add: FAILED (%d mismatches)\n", bad);
    return 1;
  }
  std::printf("vector_add: OK (%u elements, %zu saxpy launches, 1 vadd, 1 sum_first task)\n",
              kElements, sizeof(kSaxpyPlan) / sizeof(kSaxpyPlan[0]));
  return 0;
}
