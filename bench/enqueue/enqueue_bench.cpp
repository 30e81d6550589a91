// Enqueue micro-benchmark: the host cost of one launch (clSetKernelArg x3 +
// clEnqueueNDRangeKernel, no event, queue without profiling), bare or under libclprof.so.
// Run by bench/enqueue/run.sh; see there for the method.
//
//   enqueue_bench [ITERATIONS [FINISH_EVERY [WARMUP]]]
//
// ENQUEUE_BENCH_EVENTS=1 makes the app itself do what a tracer needs from the driver: a
// profiling queue and an event per launch (released right away). run.sh uses it to tell
// the driver's share of the shim's cost from clprof's own.
//
// Prints "key value" lines: platform, iterations, launches (incl. warm-up), ns_per_iter
// (wall clock), thread_cpu_ns_per_iter (CPU time of the enqueuing thread),
// process_cpu_ns_per_iter (all threads: driver and clprof background threads included),
// peak_rss_kb (VmHWM at the end).
#include <CL/cl.h>

#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

const char* kSource =
    "__kernel void triv(__global float* a, __global const float* b, const int n) {\n"
    "  size_t i = get_global_id(0); if ((int)i < n) a[i] = b[i];\n"
    "}\n";

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "enqueue_bench: %s failed: %d\n", what, rc);
    std::exit(1);
  }
}

long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

double cpu_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

unsigned long arg_or(int argc, char** argv, int i, unsigned long fallback) {
  return argc > i ? std::strtoul(argv[i], nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned long iterations = arg_or(argc, argv, 1, 200000);
  const unsigned long finish_every = arg_or(argc, argv, 2, 1000);
  const unsigned long warmup = arg_or(argc, argv, 3, 2000);
  if (iterations == 0 || finish_every == 0) {
    std::fprintf(stderr, "usage: %s [ITERATIONS [FINISH_EVERY [WARMUP]]]\n", argv[0]);
    return 2;
  }

  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  char name[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
  cl_int rc = 0;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  const char* events_env = std::getenv("ENQUEUE_BENCH_EVENTS");
  const bool with_events = events_env && std::strcmp(events_env, "1") == 0;
  cl_command_queue q = clCreateCommandQueue(
      ctx, device, with_events ? CL_QUEUE_PROFILING_ENABLE : 0, &rc);  // normally no profiling
  check(rc, "clCreateCommandQueue");
  cl_program prog = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  check(clBuildProgram(prog, 1, &device, "", nullptr, nullptr), "clBuildProgram");
  cl_kernel k = clCreateKernel(prog, "triv", &rc);
  check(rc, "clCreateKernel");
  const size_t gws = 64;
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gws * sizeof(float), nullptr, &rc);
  check(rc, "clCreateBuffer");
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gws * sizeof(float), nullptr, &rc);
  check(rc, "clCreateBuffer");

  auto one = [&](unsigned long i) {
    const cl_int n = static_cast<cl_int>(i & 63);
    clSetKernelArg(k, 0, sizeof a, &a);
    clSetKernelArg(k, 1, sizeof b, &b);
    clSetKernelArg(k, 2, sizeof n, &n);
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr,
                                 with_events ? &e : nullptr),
          "clEnqueueNDRangeKernel");
    if (e) clReleaseEvent(e);
    // Bounds the queue (same in both modes) so that memory, not launches, is constant.
    if (i % finish_every == finish_every - 1) check(clFinish(q), "clFinish");
  };

  // Warm-up: PoCL compiles the kernel for the work-group size at the first launch.
  for (unsigned long i = 0; i < warmup; ++i) one(i);
  check(clFinish(q), "clFinish");

  const double thread0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
  const double process0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned long i = 0; i < iterations; ++i) one(i);
  check(clFinish(q), "clFinish");
  const auto t1 = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  const double thread_ns = cpu_ns(CLOCK_THREAD_CPUTIME_ID) - thread0;
  const double process_ns = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - process0;

  std::printf("platform %s\n", name);
  std::printf("iterations %lu\n", iterations);
  std::printf("launches %lu\n", iterations + warmup);
  std::printf("ns_per_iter %.1f\n", ns / static_cast<double>(iterations));
  std::printf("thread_cpu_ns_per_iter %.1f\n", thread_ns / static_cast<double>(iterations));
  std::printf("process_cpu_ns_per_iter %.1f\n", process_ns / static_cast<double>(iterations));
  std::printf("peak_rss_kb %ld\n", peak_rss_kb());

  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
