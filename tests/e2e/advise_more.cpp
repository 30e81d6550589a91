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
//   idle   (after one launch and clFinish in both modes: PoCL's compile at the first launch)
//          bad: 20 iterations of one launch over 1 Mi items, clFlush, then 20 ms of host
//              computation before the next launch: the device idles some 20 ms of every
//              20 ms + one launch (a launch took 0.27 ms here: idle share ~98%, >= 0.5)
//                                                               -> device-idle (warning)
//          good: the same 20 launches enqueued back to back, then the host's 20 x 20 ms of
//                computation while the device runs them, then one clFinish (each gap's next
//                command was queued before the gap: not idle)
//   queues bad: two queues, 20 launches over 1 Mi items on the first, clFinish, then 20 on
//              the second, clFinish: each queue finished before the other starts (0 overlap)
//                                                               -> queue-serialisation (info:
//                                                                  the rule's only level)
//          good: the 40 launches enqueued alternately on both queues, both flushed, then
//                both waited for: PoCL's CPU device runs the two queues' commands at once
//                (measured here without the shim: 84-89% of the smaller queue's busy time
//                overlapped, against the rule's 1%)
//   build  (the test gives each run an empty POCL_CACHE_DIR: PoCL's own binary cache would
//          otherwise hide the compile) bad: builds a 400-function program from source
//          (kBigFunctions x kBigSteps statements; PoCL took 18 s at load average 14 here, and
//          7 s for 2000 functions on an idle machine: its fixed cost alone is some 1.1 s),
//          then one launch over 1024 items      -> build-dominates (warning: build >= 1 s
//                                                  and >= 20% of the wall time)
//          good BINARY: the same program from BINARY with clCreateProgramWithBinary (0.39 s
//                at load average 14, an 853 KiB binary; 0.27 s for 2000 functions idle: under
//                warning_ns, 1 s, either way), then the same launch.
//                When BINARY does not exist yet it builds from source and writes it (the
//                run that fills the app's cache; the test runs that once, unrecorded).
// Prints "ok" and exits 0, or prints the failing call and exits 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "advise_app.hpp"

namespace {

using advise_app::check;
using advise_app::kSource;

struct Cl {
  cl_device_id device = nullptr;
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

// The host's own work between launches: sums a series for `ms` milliseconds of steady time.
double host_work(int ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  double sum = 0;
  for (long i = 1; std::chrono::steady_clock::now() < until; ++i)
    for (int j = 0; j < 1000; ++j) sum += 1.0 / (static_cast<double>(i) * 1000 + j);
  return sum;
}

// The build case's program: kBigFunctions helper functions of kBigSteps statements each,
// and scale_add (advise_app::kSource's contract) through the first of them.
constexpr int kBigFunctions = 400;
constexpr int kBigSteps = 20;
std::string big_source() {
  std::string s;
  for (int f = 0; f < kBigFunctions; ++f) {
    s += "float h" + std::to_string(f) + "(float v, float a) {\n";
    for (int j = 0; j < kBigSteps; ++j)
      s += "  v = v * a + " + std::to_string(f * kBigSteps + j) + ".0f; if (v > " +
           std::to_string(j) + ".5f) v = sqrt(v);\n";
    s += "  return v;\n}\n";
  }
  return s +
         "__kernel void scale_add(__global float* x, const float a, const int n) {\n"
         "  int i = get_global_id(0);\n"
         "  if (i < n) x[i] = h0(x[i], a);\n"
         "}\n";
}

// The build case (see the header): its own context and queue, no other build.
bool build_case(bool bad, const char* binary_path) {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  if (!advise_app::open_first_device(device, context, queue)) return false;
  cl_int rc = CL_SUCCESS;
  std::vector<unsigned char> binary;
  if (!bad) {
    std::ifstream in(binary_path, std::ios::binary);
    binary.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  cl_program program = nullptr;
  const bool from_binary = !binary.empty();
  if (from_binary) {
    const size_t size = binary.size();
    const unsigned char* bytes = binary.data();
    cl_int status = CL_SUCCESS;
    program = clCreateProgramWithBinary(context, 1, &device, &size, &bytes, &status, &rc);
    if (!check(rc, "clCreateProgramWithBinary") || !check(status, "binary status")) return false;
  } else {
    const std::string text = big_source();
    const char* source = text.c_str();
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &rc);
    if (!check(rc, "clCreateProgramWithSource")) return false;
  }
  if (!check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram"))
    return false;
  if (!bad && !from_binary) {  // fill the app's cache
    size_t size = 0;
    rc = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
    if (!check(rc, "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)")) return false;
    binary.resize(size);
    unsigned char* bytes = binary.data();
    rc = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof(bytes), &bytes, nullptr);
    if (!check(rc, "clGetProgramInfo(CL_PROGRAM_BINARIES)")) return false;
    std::ofstream out(binary_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(size));
    if (!out) {
      std::printf("cannot write %s\n", binary_path);
      return false;
    }
  }
  Cl c;
  c.device = device;
  c.context = context;
  c.queue = queue;
  c.program = program;
  c.kernel = clCreateKernel(program, "scale_add", &rc);
  if (!check(rc, "clCreateKernel")) return false;
  cl_mem x = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof(float) * 1024, nullptr, &rc);
  const size_t local = 64;
  if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, 1024) || !launch(c, 1024, &local))
    return false;
  rc = clFinish(queue);
  clReleaseMemObject(x);
  clReleaseKernel(c.kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  if (!check(rc, "clFinish")) return false;
  std::printf("ok (program from %s)\n", from_binary ? "binary" : "source");
  return true;
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
  if (which == "idle") {
    const int n = 1 << 20;
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, n)) return false;
    const size_t local = 64;
    // PoCL compiles the kernel at its first launch (0.8 s here): commands queued meanwhile
    // would all be waiting before the device starts, so the loop starts after one finished.
    if (!launch(c, n, &local) || !check(clFinish(c.queue), "clFinish")) return false;
    double sum = 0;
    for (int it = 0; it < 20; ++it) {
      if (!launch(c, n, &local) || !check(clFlush(c.queue), "clFlush")) return false;
      if (bad) sum += host_work(20);
    }
    if (!bad)
      for (int it = 0; it < 20; ++it) sum += host_work(20);
    rc = clFinish(c.queue);
    clReleaseMemObject(x);
    return check(rc, "clFinish") && sum > 0;
  }
  if (which == "queues") {
    const int n = 1 << 20;
    Cl q2 = c;
    q2.queue = clCreateCommandQueue(c.context, c.device, 0, &rc);
    if (!check(rc, "clCreateCommandQueue")) return false;
    q2.kernel = clCreateKernel(c.program, "scale_add", &rc);
    if (!check(rc, "clCreateKernel")) return false;
    cl_mem x = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
    if (!check(rc, "clCreateBuffer")) return false;
    cl_mem y = clCreateBuffer(c.context, CL_MEM_READ_WRITE, sizeof(float) * n, nullptr, &rc);
    if (!check(rc, "clCreateBuffer") || !set_args(c.kernel, x, n) || !set_args(q2.kernel, y, n))
      return false;
    const size_t local = 64;
    if (bad) {
      for (const Cl* q : {&c, static_cast<const Cl*>(&q2)}) {
        for (int it = 0; it < 20; ++it)
          if (!launch(*q, n, &local)) return false;
        if (!check(clFinish(q->queue), "clFinish")) return false;
      }
    } else {
      for (int it = 0; it < 20; ++it)
        if (!launch(c, n, &local) || !launch(q2, n, &local)) return false;
      if (!check(clFlush(c.queue), "clFlush") || !check(clFlush(q2.queue), "clFlush") ||
          !check(clFinish(c.queue), "clFinish") || !check(clFinish(q2.queue), "clFinish"))
        return false;
    }
    clReleaseMemObject(x);
    clReleaseMemObject(y);
    clReleaseKernel(q2.kernel);
    clReleaseCommandQueue(q2.queue);
    return true;
  }
  std::printf("unknown case %s\n", which.c_str());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc >= 3 ? argv[2] : "";
  const bool build = argc >= 2 && std::strcmp(argv[1], "build") == 0;
  if ((mode != "bad" && mode != "good") || argc != (build && mode == "good" ? 4 : 3)) {
    std::fprintf(stderr,
                 "usage: advise_more leak|local|copy|tiny|rank|idle|queues bad|good\n"
                 "       advise_more build bad | advise_more build good BINARY\n");
    return 2;
  }
  const bool bad = mode == "bad";
  if (build) return build_case(bad, bad ? nullptr : argv[3]) ? 0 : 1;
  cl_device_id device;
  Cl c;
  if (!advise_app::open_first_device(device, c.context, c.queue)) return 1;
  c.device = device;
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
