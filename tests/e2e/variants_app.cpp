// Kernel variants (variants_tests.cpp): one source built three times in one context, as
// three programs: with -D OP=1, with -D OP=2 and with -D OP=1 again. Inside the range
// "stage" the first program's `op` is launched 3 times, the second's 5 times and the third's
// 4 times, each over the same buffer of kN ints (0 at the start; one launch at a time: the
// queue is in order and the buffer is read back at the end).
//   OP=1: x += 1    OP=2: x *= 2
// So x ends at ((0 + 3) * 2^5) + 4 = 100 everywhere; the program prints "ok 100" when it
// does (the three builds really ran, each with its options).
#include <clprof/clprof.h>

#include <cstdio>
#include <vector>

#include "advise_app.hpp"  // CL/cl.h, check, open_first_device

namespace {

const char* const kSource =
    "__kernel void op(__global int* x) {\n"
    "  int i = get_global_id(0);\n"
    "#if OP == 1\n"
    "  x[i] += 1;\n"
    "#else\n"
    "  x[i] *= 2;\n"
    "#endif\n"
    "}\n";

constexpr size_t kN = 64;

using advise_app::check;

cl_kernel build(cl_context context, cl_device_id device, const char* options) {
  cl_int rc = CL_SUCCESS;
  const char* source = kSource;  // Debian's header: const char**
  cl_program program = clCreateProgramWithSource(context, 1, &source, nullptr, &rc);
  if (!check(rc, "clCreateProgramWithSource")) return nullptr;
  if (!check(clBuildProgram(program, 1, &device, options, nullptr, nullptr), "clBuildProgram"))
    return nullptr;
  cl_kernel kernel = clCreateKernel(program, "op", &rc);
  clReleaseProgram(program);  // the kernel keeps it
  return check(rc, "clCreateKernel") ? kernel : nullptr;
}

bool launch(cl_command_queue queue, cl_kernel kernel, cl_mem x, int times) {
  if (!check(clSetKernelArg(kernel, 0, sizeof x, &x), "clSetKernelArg")) return false;
  const size_t global = kN;
  for (int i = 0; i < times; ++i)
    if (!check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                      nullptr),
               "clEnqueueNDRangeKernel"))
      return false;
  return true;
}

}  // namespace

int main() {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  if (!advise_app::open_first_device(device, context, queue)) return 1;
  cl_int rc = CL_SUCCESS;
  std::vector<cl_int> host(kN, 0);
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, kN * sizeof(cl_int),
                            host.data(), &rc);
  if (!check(rc, "clCreateBuffer")) return 1;
  cl_kernel add = build(context, device, "-D OP=1");
  cl_kernel twice = build(context, device, "-D OP=2");
  cl_kernel add_again = build(context, device, "-D OP=1");
  if (!add || !twice || !add_again) return 1;
  clprof_range_push("stage");
  const bool ok =
      launch(queue, add, x, 3) && launch(queue, twice, x, 5) && launch(queue, add_again, x, 4);
  clprof_range_pop();
  if (!ok) return 1;
  if (!check(clEnqueueReadBuffer(queue, x, CL_TRUE, 0, kN * sizeof(cl_int), host.data(), 0, nullptr,
                                 nullptr),
             "clEnqueueReadBuffer"))
    return 1;
  for (size_t i = 0; i < kN; ++i)
    if (host[i] != 100) {
      std::printf("x[%zu] = %d, not 100\n", i, host[i]);
      return 1;
    }
  std::printf("ok 100\n");
  for (cl_kernel k : {add, twice, add_again}) clReleaseKernel(k);
  clReleaseMemObject(x);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  return 0;
}
