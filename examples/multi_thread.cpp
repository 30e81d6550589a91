// multi_thread: several host threads enqueueing kernels at the same time.
//
//   multi_thread [THREADS=4] [LAUNCHES_PER_THREAD=8]
//
// Every thread owns a buffer, a kernel object (clSetKernelArg is not thread-safe on a
// shared cl_kernel) and a command queue. It runs two phases:
//   1. range "worker<t>": LAUNCHES launches on its own queue,
//   2. range "shared<t>": LAUNCHES launches on one queue shared by all threads
//      (clEnqueueNDRangeKernel is thread-safe since OpenCL 1.1).
// Each launch adds a value that encodes (phase, thread, launch index) to every element:
//   own queue:    add = 1000 * (t + 1) + j
//   shared queue: add = 1000000 + 1000 * (t + 1) + j
// so a profile can be checked launch by launch, and the final buffer is checked on the CPU.
// Ranges are per thread in clprof: each launch carries only its own thread's ranges.

#include <CL/cl.h>

#include <clprof/clprof.h>

#include "cl_common.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using clprof_examples::check;
using clprof_examples::first_device_context;

const char* kSource = R"CLC(
kernel void accumulate(global int* data, int add, uint n) {
  size_t i = get_global_id(0);
  if (i < n) data[i] += add;
}
)CLC";

constexpr cl_uint kElements = 256;
// The add encoding above needs the launch index below 1000 and the thread term to stay
// far from INT_MAX.
constexpr int kMaxThreads = 64;
constexpr int kMaxLaunches = 999;

int own_add(int t, int j) {
  return 1000 * (t + 1) + j;
}
int shared_add(int t, int j) {
  return 1000000 + 1000 * (t + 1) + j;
}

struct Shared {
  cl_context context;
  cl_device_id device;
  cl_program program;
  cl_command_queue shared_queue;
  int launches;
};

void enqueue(cl_command_queue queue, cl_kernel kernel, int add, const size_t* local) {
  check(clSetKernelArg(kernel, 1, sizeof(int), &add), "clSetKernelArg(add)");
  const size_t global = kElements;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
}

// Returns the number of wrong elements in this thread's buffer.
int worker(const Shared& s, int t) {
  cl_int rc = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueueWithProperties(s.context, s.device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties");
  cl_kernel kernel = clCreateKernel(s.program, "accumulate", &rc);
  check(rc, "clCreateKernel");
  const size_t bytes = kElements * sizeof(int);
  std::vector<int> data(kElements, t);  // start from t so buffers differ per thread
  cl_mem buf =
      clCreateBuffer(s.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, data.data(), &rc);
  check(rc, "clCreateBuffer");
  const cl_uint n = kElements;
  check(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buf), "clSetKernelArg(data)");
  check(clSetKernelArg(kernel, 2, sizeof(cl_uint), &n), "clSetKernelArg(n)");

  const std::string own_name = "worker" + std::to_string(t);
  const std::string shared_name = "shared" + std::to_string(t);
  const size_t local = 64;
  long long expected_add = 0;
  {
    clprof::ScopedRange range{own_name.c_str()};
    for (int j = 0; j < s.launches; ++j) {
      enqueue(queue, kernel, own_add(t, j), &local);
      expected_add += own_add(t, j);
    }
    check(clFinish(queue), "clFinish(own)");
  }
  {
    clprof::ScopedRange range{shared_name.c_str()};
    for (int j = 0; j < s.launches; ++j) {
      // NULL local size on the shared queue, so both forms appear under concurrency.
      enqueue(s.shared_queue, kernel, shared_add(t, j), nullptr);
      expected_add += shared_add(t, j);
    }
    // Waits for every command in the shared queue, this thread's included.
    check(clFinish(s.shared_queue), "clFinish(shared)");
  }
  check(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, bytes, data.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");

  int bad = 0;
  for (cl_uint i = 0; i < kElements; ++i) {
    if (data[i] != t + expected_add) ++bad;
  }
  clReleaseMemObject(buf);
  clReleaseKernel(kernel);
  clReleaseCommandQueue(queue);
  return bad;
}

int parse_arg(const char* text, int lo, int hi, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) {
    std::fprintf(stderr, "multi_thread: %s must be an integer in [%d, %d]\n", what, lo, hi);
    std::exit(2);
  }
  return static_cast<int>(v);
}

}  // namespace

const char* const clprof_examples::kExampleName = "multi_thread";

int main(int argc, char** argv) {
  const int threads = argc > 1 ? parse_arg(argv[1], 1, kMaxThreads, "THREADS") : 4;
  const int launches = argc > 2 ? parse_arg(argv[2], 1, kMaxLaunches, "LAUNCHES") : 8;

  const auto [device, context] = first_device_context();
  cl_int rc = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_command_queue shared_queue = clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties(shared)");

  const Shared shared{context, device, program, shared_queue, launches};
  std::vector<int> bad(static_cast<size_t>(threads), 0);
  {
    clprof::ScopedRange range{"threads"};  // main thread only: workers do not inherit it
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&shared, &bad, t] { bad[static_cast<size_t>(t)] = worker(shared, t); });
    }
    for (std::thread& th : pool) th.join();
  }

  clReleaseCommandQueue(shared_queue);
  clReleaseProgram(program);
  clReleaseContext(context);

  int total_bad = 0;
  for (int t = 0; t < threads; ++t) {
    std::printf("thread %d: %d launches on own queue, %d on the shared queue, %s\n", t, launches,
                launches, bad[static_cast<size_t>(t)] ? "WRONG" : "ok");
    total_bad += bad[static_cast<size_t>(t)];
  }
  if (total_bad != 0) {
    std::printf("multi_thread: FAILED (%d wrong elements)\n", total_bad);
    return 1;
  }
  std::printf("multi_thread: OK (%d threads, %d launches)\n", threads, 2 * threads * launches);
  return 0;
}
