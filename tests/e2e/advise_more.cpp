// More positive and negative cases of `clprof advise`'s rules on a real driver (e2e test
// advise_cases, advise_tests.cpp): `advise_more CASE bad` does what the rule warns about,
// `advise_more CASE good` the same work the way the rule advises.
//
//   leak   bad: 150 iterations, each a new 4 KiB buffer and a launch's event, never
//              released (150 buffers >= 100)                     -> object-leak (warning)
//          good: the same, each buffer and event released
//   local  bad: 20 launches in work-groups of 12 (not a multiple of PoCL's preferred 8)
//                                                               -> local-size-not-multiple
//          good: 20 launches in work-groups of 64 over the same 1020 items rounded to 1024
//   copy   bad: each of 20 iterations writes 4 MiB, then one launch over 256 items
//                                                               -> transfer-bound (warning)
//          good: one 4 MiB write, then 200 launches over all of it (kernel time some 10x the
//                write's, so a loaded machine or a sanitizer build, where the write took
//                7 ms against 8 ms of 20 launches, cannot make it transfer-bound)
//   tiny   bad: 300 launches of one work-item each              -> launch-bound
//          good: one launch of 300 work-items
//   rank   (run with OMPI_COMM_WORLD_RANK / _SIZE): bad: rank r runs (1 + 3r) x 40 launches
//          over 1 Mi items (rank 1 four times rank 0's)         -> rank-imbalance (warning)
//          good: every rank runs 40
// Prints "ok" and exits 0, or prints the failing call and exits 1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "advise_app.hpp"

namespace {

using advise_app::check;
using advise_app::kSource;

struct Cl {
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
};

bool set_args(cl_kernel k, cl_mem x, int n) {
  const float a = 0.5f;
  cl_int rc = clSetKernelArg(k, 0, sizeof(cl_mem), &x);
  rc |= clSetKernelArg(k, 1, sizeof(float), &a);
  rc |= clSetKernelArg(k, 2, sizeof(int), &n);
  return check(rc, "clSetKernelArg");
}

bool launch(const Cl& c, size_t global, const size_t* local, cl_event* event = nullptr) {
  return check(
      clEnqueueNDRangeKernel(c.queue, c.kernel, 1, nullptr, &global, local, 0, nullptr, event),
      "clEnqueueNDRangeKernel");
}

bool run_case(const Cl& c, const std::string& which, bool bad) {
  cl_int rc = CL_SUCCESS;
  if (which == "leak") {
    for (int it = 0; it < 150; ++it) {
      cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, 4096, nullptr, &rc);
      if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, 1024)) return false;
      cl_event e = nullptr;
      const size_t local = 64;
      if (!launch(c, 1024, &local, &e)) return false;
      if (!check(clWaitForEvents(1, &e), "clWaitForEvents")) return false;
      if (!bad) {
        clReleaseEvent(e);
        clReleaseMemObject(x);
      }
    }
    return true;
  }
  if (which == "local") {
    const int n = 1020;  // 85 x 12
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * 1024, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, n)) return false;
    const size_t local = bad ? 12 : 64;
    const size_t global = bad ? 1020 : 1024;
    for (int it = 0; it < 20; ++it)
      if (!launch(c, global, &local)) return false;
    rc = clFinish(c.queue);
    clReleaseMemObject(x);
    return check(rc, "clFinish");
  }
  if (which == "copy") {
    const int n = 1 << 20;  // 4 MiB of floats
    std::vector<float> host(n, 1.0f);
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, bad ? 256 : n)) return false;
    const size_t local = 64;
    for (int it = 0; it < (bad ? 20 : 200); ++it) {
      if (bad || it == 0)
        if (!check(clEnqueueWriteBuffer(c.queue, x, CL_FALSE, 0, sizeof(float) * n, host.data(), 0,
                                        nullptr, nullptr),
                   "clEnqueueWriteBuffer"))
          return false;
      if (!launch(c, bad ? 256 : n, &local)) return false;
    }
    rc = clFinish(c.queue);
    clReleaseMemObject(x);
    return check(rc, "clFinish");
  }
  if (which == "tiny") {
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * 300, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, 300)) return false;
    const size_t one = 1;
    for (int it = 0; it < (bad ? 300 : 1); ++it)
      if (!launch(c, bad ? 1 : 300, bad ? &one : nullptr)) return false;
    rc = clFinish(c.queue);
    clReleaseMemObject(x);
    return check(rc, "clFinish");
  }
  if (which == "rank") {
    const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
    const int rank = r ? std::atoi(r) : 0;
    const int n = 1 << 20;
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, n)) return false;
    const size_t local = 64;
    const int launches = bad ? 40 * (1 + 3 * rank) : 40;
    for (int it = 0; it < launches; ++it)
      if (!launch(c, n, &local)) return false;
    rc = clFinish(c.queue);
    clReleaseMemObject(x);
    return check(rc, "clFinish");
  }
  std::printf("unknown case %s\n", which.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[2] : "";
  if (mode != "bad" && mode != "good") {
    std::fprintf(stderr, "usage: advise_more leak|local|copy|tiny|rank bad|good\n");
    return 2;
  }
  const bool bad = mode == "bad";
  cl_device_id device;
  Cl c;
  if (!advise_app::open_first_device(device, c.context, c.queue)) return 1;
  cl_int rc = CL_SUCCESS;
  const char* source = kSource;  // the API takes a non-const pointer to the array
  c.program = clCreateProgramWithSource(c.context, 1, &source, nullptr, &rc);
  if (!check(rc, "clCreateProgramWithSource")) return 1;
  rc = clBuildProgram(c.program, 1, &device, "", nullptr, nullptr);
  if (!check(rc, "clBuildProgram")) return 1;
  c.kernel = clCreateKernel(c.program, "scale_add", &rc);
  if (!check(rc, "clCreateKernel")) return 1;
  if (!run_case(c, argv[1], bad)) return 1;
  std::printf("ok\n");
  clReleaseKernel(c.kernel);
  clReleaseProgram(c.program);
  clReleaseCommandQueue(c.queue);
  clReleaseContext(c.context);
  return 0;
}
