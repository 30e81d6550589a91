// An ordinary OpenCL app (linked to libOpenCL, knows nothing of clprof) that the shim tests
// run with and without libclprof.so preloaded. argv[1] picks a scenario; what the app saw
// (return codes, counts, ids) goes to stdout as "key value" lines for the test to compare.
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <clprof/clprof.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "shim_test_source.hpp"

namespace {

// Sanitizer runtimes (ASan, TSan) resolve their interceptors with dlsym(RTLD_NEXT, ...) from
// the executable's .preinit_array, before any library initializer has run (libclprof.so's
// included). SHIM_TEST_EARLY_DLSYM=1 makes this app do the same.
// (getenv does not work yet at that point: the environment comes as the third argument.)
void* g_early_mmap = nullptr;
void early_dlsym(int, char**, char** envp) {
  for (char** e = envp; e && *e; ++e)
    if (std::strcmp(*e, "SHIM_TEST_EARLY_DLSYM=1") == 0) g_early_mmap = dlsym(RTLD_NEXT, "mmap");
}
__attribute__((section(".preinit_array"), used)) void (*const g_preinit)(int, char**, char**) =
    early_dlsym;

long tid() { return static_cast<long>(syscall(SYS_gettid)); }

void say(const char* key, long long value) { std::printf("%s %lld\n", key, value); }

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "shim_test_app: %s failed: %d\n", what, rc);
    std::exit(90);
  }
}

struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel vadd = nullptr;
  cl_kernel scal = nullptr;
  cl_kernel noargs = nullptr;
  cl_mem a = nullptr, b = nullptr, c = nullptr;

  explicit Cl(cl_command_queue_properties props = CL_QUEUE_PROFILING_ENABLE) {
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
  ~Cl() {
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

  cl_int launch_vadd(size_t gws, cl_event* event = nullptr) const {
    return clEnqueueNDRangeKernel(queue, vadd, 1, nullptr, &gws, nullptr, 0, nullptr, event);
  }
};

// The reference run of tests/shim: every kind of record, exact values known to the test.
int scenario_basic() {
  Cl cl;
  say("pid", getpid());
  say("tid", tid());
  const size_t gws1 = 1024, lws1 = 64;
  cl_event e = nullptr;
  // 1: vadd, released right after enqueue.
  check(clEnqueueNDRangeKernel(cl.queue, cl.vadd, 1, nullptr, &gws1, &lws1, 0, nullptr, &e), "l1");
  check(clReleaseEvent(e), "release");
  // 2: vadd with an offset, NULL local size, NULL event.
  const size_t gws2 = 2048, gwo2 = 16;
  check(clEnqueueNDRangeKernel(cl.queue, cl.vadd, 1, &gwo2, &gws2, nullptr, 0, nullptr, nullptr),
        "l2");
  // 3: scal(a, 2.5f, 7, local 256)
  const float f1 = 2.5f;
  const cl_int n1 = 7;
  check(clSetKernelArg(cl.scal, 0, sizeof cl.a, &cl.a), "arg");
  check(clSetKernelArg(cl.scal, 1, sizeof f1, &f1), "arg");
  check(clSetKernelArg(cl.scal, 2, sizeof n1, &n1), "arg");
  check(clSetKernelArg(cl.scal, 3, 256, nullptr), "arg");
  const size_t gws3 = 256;
  check(clEnqueueNDRangeKernel(cl.queue, cl.scal, 1, nullptr, &gws3, nullptr, 0, nullptr, nullptr),
        "l3");
  // 4: the same kernel after its arguments changed: scal(b, 3.0f, 7, local 512)
  const float f2 = 3.0f;
  check(clSetKernelArg(cl.scal, 0, sizeof cl.b, &cl.b), "arg");
  check(clSetKernelArg(cl.scal, 1, sizeof f2, &f2), "arg");
  check(clSetKernelArg(cl.scal, 3, 512, nullptr), "arg");
  check(clEnqueueNDRangeKernel(cl.queue, cl.scal, 1, nullptr, &gws3, nullptr, 0, nullptr, nullptr),
        "l4");
  // 5: 2-D launch with a local size, app keeps its event until after clFinish.
  const size_t gws5[2] = {64, 8}, lws5[2] = {8, 8};
  cl_event e5 = nullptr;
  check(clEnqueueNDRangeKernel(cl.queue, cl.vadd, 2, nullptr, gws5, lws5, 0, nullptr, &e5), "l5");
  // 6: a task.
  check(clEnqueueTask(cl.queue, cl.noargs, 0, nullptr, nullptr), "task");
  // transfers 7..10
  std::vector<unsigned char> host(4096, 0x5A);
  check(clEnqueueWriteBuffer(cl.queue, cl.a, CL_TRUE, 0, 4096, host.data(), 0, nullptr, nullptr),
        "write");
  check(clEnqueueReadBuffer(cl.queue, cl.c, CL_FALSE, 0, 1024, host.data(), 0, nullptr, nullptr),
        "read");
  check(clEnqueueCopyBuffer(cl.queue, cl.a, cl.b, 0, 0, 512, 0, nullptr, nullptr), "copy");
  const cl_uint pattern = 0xDEADBEEF;
  check(clEnqueueFillBuffer(cl.queue, cl.b, &pattern, 4, 0, 2048, 0, nullptr, nullptr), "fill");
  check(clFinish(cl.queue), "clFinish");
  cl_ulong queued = 0;
  check(clGetEventProfilingInfo(e5, CL_PROFILING_COMMAND_QUEUED, sizeof queued, &queued, nullptr),
        "profiling");
  say("l5_queued", static_cast<long long>(queued));
  cl_uint refs = 0;
  check(clGetEventInfo(e5, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("l5_refs", refs);
  check(clReleaseEvent(e5), "release");
  say("data_read", host[0]);
  return 0;
}

// Failed enqueues: the app gets the driver's code; the shim must not crash or hide it.
int scenario_inject() {
  Cl cl;
  const size_t gws = 128;
  cl_event e = nullptr;
  say("rc1", cl.launch_vadd(gws));
  say("rc2", cl.launch_vadd(gws, &e));  // FAKE_CL_FAIL makes this one fail
  say("event2_null", e == nullptr ? 1 : 0);
  if (e) clReleaseEvent(e);  // only if the injection did not happen
  say("rc3", cl.launch_vadd(gws));
  const cl_uint bad_index = 3;
  say("rc_bad_arg", clSetKernelArg(cl.vadd, bad_index, sizeof cl.a, &cl.a));
  say("rc4", cl.launch_vadd(gws));
  check(clFinish(cl.queue), "clFinish");
  return 0;
}

// What the app sees of its own objects must not change under the shim.
int scenario_app_view() {
  Cl cl(0);  // queue WITHOUT profiling
  cl_command_queue_properties props = 99;
  check(clGetCommandQueueInfo(cl.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "q");
  say("queue_props", static_cast<long long>(props));
  cl_event e = nullptr;
  check(cl.launch_vadd(64, &e), "launch");
  cl_uint refs = 0;
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_enqueue", refs);
  check(clRetainEvent(e), "retain");
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_retain", refs);
  check(clReleaseEvent(e), "release");
  check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
  say("refs_after_release", refs);
  check(clFinish(cl.queue), "finish");
  cl_ulong t = 0;
  say("profiling_rc",
      clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  check(clReleaseEvent(e), "release");
  // The same through clCreateCommandQueueWithProperties.
  const cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, 0, 0};
  cl_int rc = 0;
  cl_command_queue q2 = clCreateCommandQueueWithProperties(cl.context, cl.device, qp, &rc);
  check(rc, "queue2");
  check(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr), "q2");
  say("queue2_props", static_cast<long long>(props));
  cl_queue_properties back[4] = {7, 7, 7, 7};
  size_t back_size = 0;
  check(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &back_size), "qa");
  say("queue2_array_size", static_cast<long long>(back_size));
  say("queue2_array_1", static_cast<long long>(back[1]));
  size_t gws = 32;
  cl_event e2 = nullptr;
  check(clEnqueueNDRangeKernel(q2, cl.vadd, 1, nullptr, &gws, nullptr, 0, nullptr, &e2), "l2");
  check(clFinish(q2), "finish2");
  say("profiling2_rc",
      clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  cl_int status = 1;
  check(clGetEventInfo(e2, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "status");
  say("status2", status);
  check(clReleaseEvent(e2), "release2");
  check(clReleaseCommandQueue(q2), "rq2");
  return 0;
}

int scenario_threads() {
  Cl cl;
  constexpr int kThreads = 8, kLaunches = 500;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&cl, &failures, t] {
      cl_int rc = 0;
      // Each thread its own kernel object: clSetKernelArg is not thread-safe per kernel.
      cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);
      if (rc != CL_SUCCESS) {
        ++failures[t];
        return;
      }
      for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
      const size_t gws = 16 + t;
      for (int i = 0; i < kLaunches; ++i) {
        cl_event e = nullptr;
        cl_event* ep = (i % 2) ? &e : nullptr;
        if (clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, ep) !=
            CL_SUCCESS)
          ++failures[t];
        if (e) clReleaseEvent(e);
      }
      clReleaseKernel(k);
    });
  }
  for (auto& th : threads) th.join();
  check(clFinish(cl.queue), "finish");
  int total = 0;
  for (int f : failures) total += f;
  say("failures", total);
  return 0;
}

// A queue and a kernel the shim never saw created (made through the driver's dispatch
// table, as through an entry point clprof does not hook), first used by 8 threads at
// once: the shim learns them on first use while other threads look them up.
int scenario_lazy_objects() {
  Cl cl(0);
  const cl_icd_dispatch* d = *reinterpret_cast<const cl_icd_dispatch* const*>(cl.context);
  cl_int rc = 0;
  cl_command_queue q = d->clCreateCommandQueue(cl.context, cl.device, 0, &rc);
  check(rc, "direct clCreateCommandQueue");
  cl_kernel k = d->clCreateKernel(cl.program, "vadd", &rc);
  check(rc, "direct clCreateKernel");
  for (cl_uint i = 0; i < 3; ++i) check(d->clSetKernelArg(k, i, sizeof cl.a, &cl.a), "direct arg");
  constexpr int kThreads = 8, kLaunches = 50;
  std::atomic<int> ready{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      const size_t gws = 64;
      for (int i = 0; i < kLaunches; ++i) {
        if (clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) !=
            CL_SUCCESS)
          failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  check(clFinish(q), "finish");
  check(clReleaseKernel(k), "release kernel");
  check(clReleaseCommandQueue(q), "release queue");
  say("failures", failures.load());
  return 0;
}

// The app asks each of its events for its reference count while clprof's background
// thread may be releasing the reference it holds (FAKE_CL_REFCOUNT_DELAY_US makes the
// driver's answer slow, so a release often lands while one is being read).
int scenario_refcount_race() {
  Cl cl;
  int wrong = 0;
  for (int i = 0; i < 40; ++i) {
    cl_event e = nullptr;
    check(cl.launch_vadd(64, &e), "launch");
    cl_uint refs = 0;
    check(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, nullptr), "refs");
    if (refs != 1) ++wrong;
    check(clReleaseEvent(e), "release");
  }
  say("wrong_counts", wrong);
  return 0;
}

// Launches whose events complete late (FAKE_CL_EVENT_MODE); the app never waits.
int scenario_no_wait() {
  Cl cl;
  for (int i = 0; i < 10; ++i) check(cl.launch_vadd(100 + i), "launch");
  return 0;
}

// Launches, then clFinish after a pause: events complete only then (on_wait mode).
int scenario_late_finish() {
  Cl cl;
  for (int i = 0; i < 5; ++i) check(cl.launch_vadd(100 + i), "launch");
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  check(clFinish(cl.queue), "finish");
  return 0;
}

int scenario_exit(int how) {
  Cl* cl = new Cl();  // deliberately not destroyed for exit paths 1 and 2
  check(cl->launch_vadd(64), "launch");
  check(clFinish(cl->queue), "finish");
  std::fflush(stdout);
  if (how == 1) exit(3);
  if (how == 2) std::exit(4);
  delete cl;
  return 0;
}

// Launch until killed.
int scenario_forever() {
  Cl cl;
  for (long i = 0;; ++i) {
    cl.launch_vadd(64 + (i % 7));
    if (i % 50 == 49) {
      clFinish(cl.queue);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
}

int scenario_child() {
  Cl cl;
  check(cl.launch_vadd(11), "launch");
  check(cl.launch_vadd(12), "launch");
  check(clFinish(cl.queue), "finish");
  return 0;
}

int scenario_spawn(const char* self) {
  {
    Cl cl;
    check(cl.launch_vadd(10), "launch");
    check(clFinish(cl.queue), "finish");
  }
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    execl(self, self, "child", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  say("pid", getpid());
  say("child", child);
  say("child_exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

int scenario_markers() {
  Cl cl;
  clprof_mark("start");
  clprof_range_push("outer");
  check(cl.launch_vadd(1), "launch");  // ranges [outer]
  {
    clprof::ScopedRange inner{"inner"};
    check(cl.launch_vadd(2), "launch");  // ranges [outer, inner]
  }
  std::thread other([&cl] {
    clprof_range_push("thread_range");
    check(cl.launch_vadd(3), "launch");  // ranges [thread_range]
    clprof_range_pop();
  });
  other.join();
  clprof_range_pop();
  check(cl.launch_vadd(4), "launch");  // ranges []
  check(clFinish(cl.queue), "finish");
  say("markers_done", 1);
  return 0;
}

int scenario_markers_unbalanced() {
  Cl cl;
  clprof_range_pop();  // nothing open
  clprof_range_push("left_open");
  check(cl.launch_vadd(5), "launch");
  check(clFinish(cl.queue), "finish");
  say("markers_done", 1);
  return 0;  // "left_open" never popped
}

// A build that fails (the fake's injected-failure option) and a clWaitForEvents sync.
int scenario_build_and_wait() {
  Cl cl;
  cl_int rc = 0;
  const char* src = shim_test::kSource;
  cl_program bad = clCreateProgramWithSource(cl.context, 1, &src, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  // The options also carry a byte that is not UTF-8 (a Latin-1 e acute).
  say("build_rc",
      clBuildProgram(bad, 1, &cl.device, "-DFAKE_CL_BUILD_FAIL -DNAME=caf\xE9", nullptr, nullptr));
  clReleaseProgram(bad);
  cl_event e[2] = {nullptr, nullptr};
  check(cl.launch_vadd(32, &e[0]), "launch");
  check(cl.launch_vadd(33, &e[1]), "launch");
  say("wait_rc", clWaitForEvents(2, e));
  clReleaseEvent(e[0]);
  clReleaseEvent(e[1]);
  return 0;
}

// Object ids: a handle the driver reuses after a release must get a new id; sub-buffers,
// NULL buffers and never-set arguments are recorded as such.
int scenario_ids() {
  Cl cl;
  cl_int rc = 0;
  cl_mem x = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 256, nullptr, &rc);
  check(rc, "x");
  check(clSetKernelArg(cl.vadd, 0, sizeof x, &x), "arg x");
  check(cl.launch_vadd(40), "launch 40");
  check(clFinish(cl.queue), "finish");
  check(clReleaseMemObject(x), "release x");
  cl_mem y = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 128, nullptr, &rc);
  check(rc, "y");
  say("same_mem_handle", x == y ? 1 : 0);
  check(clSetKernelArg(cl.vadd, 0, sizeof y, &y), "arg y");
  check(cl.launch_vadd(41), "launch 41");
  const cl_buffer_region region{1024, 512};
  cl_mem sub = clCreateSubBuffer(cl.a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &rc);
  check(rc, "sub");
  check(clSetKernelArg(cl.vadd, 0, sizeof sub, &sub), "arg sub");
  check(cl.launch_vadd(42), "launch 42");
  // Both spellings of a NULL buffer argument (OpenCL: arg_value NULL or pointing to NULL).
  check(clSetKernelArg(cl.vadd, 0, sizeof(cl_mem), nullptr), "arg null");
  check(cl.launch_vadd(43), "launch 43");
  const cl_mem null_mem = nullptr;
  check(clSetKernelArg(cl.vadd, 0, sizeof null_mem, &null_mem), "arg &null");
  check(cl.launch_vadd(45), "launch 45");
  check(clFinish(cl.queue), "finish");
  cl_kernel k1 = clCreateKernel(cl.program, "noargs", &rc);
  check(rc, "k1");
  check(clEnqueueTask(cl.queue, k1, 0, nullptr, nullptr), "task 1");
  check(clFinish(cl.queue), "finish");
  check(clReleaseKernel(k1), "release k1");
  cl_kernel k2 = clCreateKernel(cl.program, "noargs", &rc);
  check(rc, "k2");
  say("same_kernel_handle", k1 == k2 ? 1 : 0);
  check(clEnqueueTask(cl.queue, k2, 0, nullptr, nullptr), "task 2");
  cl_kernel k3 = clCreateKernel(cl.program, "scal", &rc);
  check(rc, "k3");
  check(clSetKernelArg(k3, 0, sizeof cl.a, &cl.a), "arg");
  const size_t gws = 44;
  say("unset_rc", clEnqueueNDRangeKernel(cl.queue, k3, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr));
  // An app's mistake: no kernel at all. The driver refuses it; the trace keeps the attempt.
  const size_t gws_null = 46;
  say("null_kernel_rc", clEnqueueNDRangeKernel(cl.queue, nullptr, 1, nullptr, &gws_null, nullptr, 0,
                                               nullptr, nullptr));
  check(clFinish(cl.queue), "finish");
  clReleaseKernel(k2);
  clReleaseKernel(k3);
  clReleaseMemObject(sub);
  clReleaseMemObject(y);
  return 0;
}

// Map/unmap, rect and image transfers (bytes per docs/trace-format.md's table).
int scenario_transfers() {
  Cl cl;
  cl_int rc = 0;
  void* p = clEnqueueMapBuffer(cl.queue, cl.a, CL_TRUE, CL_MAP_READ, 0, 256, 0, nullptr, nullptr, &rc);
  check(rc, "map");
  check(clEnqueueUnmapMemObject(cl.queue, cl.a, p, 0, nullptr, nullptr), "unmap");
  std::vector<unsigned char> host(4096);
  const size_t origin[3] = {0, 0, 0}, region[3] = {16, 4, 1};
  check(clEnqueueReadBufferRect(cl.queue, cl.a, CL_TRUE, origin, origin, region, 64, 0, 16, 0,
                                host.data(), 0, nullptr, nullptr),
        "read rect");
  const cl_image_format fmt{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = 8;
  desc.image_height = 4;
  cl_mem img = clCreateImage(cl.context, CL_MEM_READ_WRITE, &fmt, &desc, nullptr, &rc);
  check(rc, "image");
  const size_t iregion[3] = {8, 4, 1};
  check(clEnqueueWriteImage(cl.queue, img, CL_FALSE, origin, iregion, 0, 0, host.data(), 0, nullptr,
                            nullptr),
        "write image");
  check(clFinish(cl.queue), "finish");
  clReleaseMemObject(img);
  return 0;
}

// OpenCL used from an atexit handler registered before the first OpenCL call.
Cl* g_late = nullptr;
int scenario_atexit() {
  std::atexit([] {
    if (!g_late) return;
    g_late->launch_vadd(77);
    clFinish(g_late->queue);
    std::printf("atexit_done 1\n");
  });
  g_late = new Cl();
  check(g_late->launch_vadd(76), "launch");
  check(clFinish(g_late->queue), "finish");
  return 0;
}

// fork() without exec: the child keeps using OpenCL through the inherited shim.
int scenario_fork_no_exec() {
  Cl cl;
  check(cl.launch_vadd(20), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    check(cl.launch_vadd(21), "launch");
    check(cl.launch_vadd(22), "launch");
    check(clFinish(cl.queue), "finish");
    std::exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  check(cl.launch_vadd(23), "launch");
  check(clFinish(cl.queue), "finish");
  say("pid", getpid());
  say("child", child);
  say("child_exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// Forks right after bursts of launches, while the shim's background thread is still busy
// with them: every child must run and write its own trace (clprof parks that thread around
// fork, so no child inherits a lock it held). The app itself holds none at the fork.
int scenario_fork_busy() {
  Cl cl;
  constexpr int kForks = 20, kBurst = 2000;
  int ok = 0;
  for (int f = 0; f < kForks; ++f) {
    for (int i = 0; i < kBurst; ++i) check(cl.launch_vadd(30), "burst");
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      check(cl.launch_vadd(31), "child launch");
      check(clFinish(cl.queue), "child finish");
      std::exit(0);
    }
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0)
      ++ok;
  }
  check(clFinish(cl.queue), "finish");
  say("forks_ok", ok);
  say("burst_launches", kForks * kBurst);
  return 0;
}

// Launches, then replaces itself (same pid) with the "exec_target" scenario through the exec
// function `how` names. The shim must finish this image's trace first.
int scenario_exec_self(const char* argv0, const std::string& how) {
  Cl cl;
  check(cl.launch_vadd(50), "launch");
  check(cl.launch_vadd(50), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const char* self = "/proc/self/exe";  // with a '/': the p forms do not search PATH
  char target[] = "exec_target";
  char* const argv[] = {const_cast<char*>(argv0), target, nullptr};
  if (how == "execl") execl(self, argv0, target, static_cast<char*>(nullptr));
  if (how == "execle") execle(self, argv0, target, static_cast<char*>(nullptr), environ);
  if (how == "execlp") execlp(self, argv0, target, static_cast<char*>(nullptr));
  if (how == "execv") execv(self, argv);
  if (how == "execve") execve(self, argv, environ);
  if (how == "execvp") execvp(self, argv);
  if (how == "execvpe") execvpe(self, argv, environ);
  if (how == "fexecve") {
    const int fd = open(self, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) fexecve(fd, argv, environ);
  }
  say("exec_failed", 1);
  return 1;
}

int scenario_exec_target() {
  Cl cl;
  check(cl.launch_vadd(51), "launch");
  check(clFinish(cl.queue), "finish");
  say("exec_target", 1);
  return 0;
}

// A vfork child runs in its parent's memory until it execs: the shim's exec hook must leave
// the parent's trace alone.
int scenario_vfork_exec() {
  Cl cl;
  check(cl.launch_vadd(60), "launch");
  check(clFinish(cl.queue), "finish");
  std::fflush(stdout);
  const pid_t child = vfork();
  if (child == 0) {
    execl("/bin/true", "true", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (child > 0) waitpid(child, &status, 0);
  check(cl.launch_vadd(61), "launch");
  check(clFinish(cl.queue), "finish");
  say("child_exit", child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}

// Forks while another thread keeps enqueuing into a ring the shim's background thread
// cannot drain (run with FAKE_CL_QUERY_DELAY_US: a slow driver), so the ring never runs
// dry: fork() must still find that thread parked (the shim logs at debug level when it
// gives up waiting). The children exit at once.
int scenario_fork_while_enqueuing() {
  Cl cl;
  std::atomic<bool> stop{false};
  std::atomic<long long> launched{0};
  std::thread enqueuer([&] {
    cl_int rc = 0;
    cl_kernel k = clCreateKernel(cl.program, "vadd", &rc);  // its own: args are per kernel
    if (rc != CL_SUCCESS) return;
    for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof cl.a, &cl.a);
    const size_t gws = 40;
    while (!stop.load()) {
      if (clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
          CL_SUCCESS)
        ++launched;
    }
    clReleaseKernel(k);
  });
  while (launched.load() < 5000) std::this_thread::yield();  // the ring is full by then
  int ok = 0;
  long long slowest_us = 0;
  std::fflush(stdout);
  for (int f = 0; f < 10; ++f) {
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) _exit(0);
    const auto took = std::chrono::steady_clock::now() - t0;
    slowest_us = std::max<long long>(
        slowest_us, std::chrono::duration_cast<std::chrono::microseconds>(took).count());
    int status = 0;
    if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status)) ++ok;
  }
  stop = true;
  enqueuer.join();
  check(clFinish(cl.queue), "finish");
  say("forks_ok", ok);
  say("launches", launched.load());
  say("slowest_fork_us", slowest_us);  // informational only (tests assert no durations)
  return 0;
}

// The fake driver's event counters (tests/fake_icd/README.md): `name` is
// clprof_fake_live_events (event objects alive) or clprof_fake_referenced_events (those
// still referenced by the app or a layer). The app reaches the driver only through the ICD
// loader, so it looks the counter up in the copy the loader loaded: SHIM_TEST_FAKE_ICD is
// its path; RTLD_NOLOAD makes sure no second copy, with counters of its own, is loaded.
using LiveEventsFn = unsigned long long (*)();
LiveEventsFn fake_event_counter(const char* name) {
  const char* path = std::getenv("SHIM_TEST_FAKE_ICD");
  void* lib = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
  void* fn = lib ? dlsym(lib, name) : nullptr;
  if (!fn) {
    std::fprintf(stderr, "shim_test_app: no %s in SHIM_TEST_FAKE_ICD=%s\n", name,
                 path ? path : "(unset)");
    std::exit(91);
  }
  return reinterpret_cast<LiveEventsFn>(fn);  // `lib` stays open: `fn` must stay valid
}
LiveEventsFn fake_live_events() {
  return fake_event_counter("clprof_fake_live_events");
}

constexpr int kTransfersPerBurst = 3;

// `launches` launches of a kernel without arguments, then kTransfersPerBurst transfers, all
// without an event: under the shim each one runs with a private event the app never sees.
void enqueue_without_events(const Cl& cl, int launches) {
  const size_t gws = 64;
  for (int i = 0; i < launches; ++i)
    check(
        clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr),
        "launch");
  // Static: a non-blocking write may read its source after the call returns.
  static const unsigned char bytes[256] = {};
  check(clEnqueueWriteBuffer(cl.queue, cl.a, CL_FALSE, 0, sizeof bytes, bytes, 0, nullptr, nullptr),
        "write");
  check(clEnqueueCopyBuffer(cl.queue, cl.a, cl.b, 0, 0, 256, 0, nullptr, nullptr), "copy");
  const cl_uint pattern = 0x01020304;
  check(clEnqueueFillBuffer(cl.queue, cl.c, &pattern, sizeof pattern, 0, 1024, 0, nullptr, nullptr),
        "fill");
}

// Commands without events, counted by the fake driver (SHIM_TEST_FAKE_ICD): the shim's
// private events must all be released while the app is idle, and none may be left at exit.
int scenario_private_events() {
  Cl cl(0);  // queue WITHOUT profiling: the app asks for no event, so all are the shim's
  constexpr int kBurst1 = 5000, kBurst2 = 2000;
  enqueue_without_events(cl, kBurst1);
  check(clFinish(cl.queue), "finish");
  const LiveEventsFn live = fake_live_events();
  say("live_events_after_finish", static_cast<long long>(live()));
  // The app stops enqueuing: the shim releases what it holds within about two poll
  // intervals. The 10 s bound only keeps a loaded machine from failing the test.
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::seconds(10);
  unsigned long long n = live();
  while (n != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = live();
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  say("live_events_after_idle", static_cast<long long>(n));
  say("idle_reached_zero", n == 0 ? 1 : 0);  // 0: the 10 s ran out
  // Informational only (tests assert no durations).
  say("idle_wait_us", std::chrono::duration_cast<std::chrono::microseconds>(waited).count());

  // Two events the app keeps to the end and never releases: a launch's and a user event.
  // The driver's count at exit is then exactly 2 without the shim, and must be 2 with it:
  // no private event left behind, none of the app's references taken away.
  cl_event kept = nullptr;
  const size_t gws = 64;
  check(clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, &kept),
        "kept launch");
  cl_int rc = 0;
  const cl_event user = clCreateUserEvent(cl.context, &rc);
  check(rc, "clCreateUserEvent");
  say("app_kept_events", (kept ? 1 : 0) + (user ? 1 : 0));
  // A second burst, then exit at once (no clFinish, no pause): these commands are still in
  // the shim's hands when its exit handler runs.
  enqueue_without_events(cl, kBurst2);
  say("launches", kBurst1 + 1 + kBurst2);
  say("transfers", 2 * kTransfersPerBurst);
  return 0;  // ~Cl releases every other object of the app
}

// A driver that lags behind the app (run with FAKE_CL_EVENT_MODE=on_wait: commands
// complete only at clFinish, so most records are drained while their command still runs)
// and an app that never pauses: the number of the shim's private events alive must stay
// bounded however many rounds run (no idle moment lets the shim release its backlog).
int scenario_lagging_driver(int rounds) {
  Cl cl(0);  // no profiling, no app events: every event alive is the shim's
  const LiveEventsFn live = fake_live_events();
  constexpr int kBurst = 300;
  unsigned long long most = 0, most_late = 0;
  for (int r = 0; r < rounds; ++r) {
    enqueue_without_events(cl, kBurst);
    check(clFinish(cl.queue), "finish");
    const unsigned long long n = live();
    most = std::max(most, n);
    if (r >= rounds / 2) most_late = std::max(most_late, n);
  }
  say("most_live_events", static_cast<long long>(most));
  say("most_live_events_second_half", static_cast<long long>(most_late));
  say("launches", static_cast<long long>(rounds) * kBurst);
  return 0;
}

// Launches without a pause or a sync until the end (the shim's harvester, made the slow side
// by the driver, never finds the ring empty), counting the events alive every 500.
int scenario_never_dry(int launches) {
  Cl cl(0);  // no profiling, no app events: every event referenced is the shim's
  // Referenced, not alive: in the driver mode this runs with (polls:K) the queue holds every
  // event until clFinish, whoever else lets go of it.
  const LiveEventsFn live = fake_event_counter("clprof_fake_referenced_events");
  const size_t gws = 64;
  unsigned long long most = 0;
  for (int i = 0; i < launches; ++i) {
    check(
        clEnqueueNDRangeKernel(cl.queue, cl.noargs, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr),
        "launch");
    if (i % 500 == 499) most = std::max(most, live());
  }
  check(clFinish(cl.queue), "finish");
  say("most_referenced_events", static_cast<long long>(most));
  say("launches", launches);
  return 0;
}

// 8-byte scalar arguments whose value is, or later becomes, a buffer's handle: the shim
// caches "not a buffer" answers per thread, and a buffer created at that address must end
// that (docs/trace-format.md: a value equal to a live cl_mem reads as that buffer).
// Like a daemon: after some launches, close every descriptor but stdin/out/err, open a file
// of its own and put it at every other number (so it sits where the trace was), write to it,
// launch again. The file must hold only what the app wrote. SHIM_TEST_APP_FILE: its path.
int scenario_close_fds() {
  Cl cl;
  check(cl.launch_vadd(60), "launch 60");
  check(clFinish(cl.queue), "finish");
  const char* path = std::getenv("SHIM_TEST_APP_FILE");
  if (!path) return 2;
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  const int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (f < 0) return 3;
  for (int fd = 3; fd < 1024; ++fd)
    if (fd != f) dup2(f, fd);
  const char kText[] = "the app's own data\n";
  if (write(f, kText, sizeof kText - 1) != static_cast<ssize_t>(sizeof kText - 1)) return 4;
  for (int i = 0; i < 3000; ++i) check(cl.launch_vadd(61), "launch 61");
  check(clFinish(cl.queue), "finish");
  std::this_thread::sleep_for(std::chrono::milliseconds(250));  // a flush interval or two
  say("after_close", 1);
  return 0;
}

// Extensions the shim wraps: memory imported with cl_arm_import_memory (Arm NN's zero-copy
// tensors), through every lookup, is a buffer of the imported size as a kernel argument;
// a cl_intel_unified_shared_memory pointer argument is a pointer, like an SVM one.
int scenario_import_memory() {
  Cl cl;
  using Import = decltype(&::clImportMemoryARM);
  alignas(64) static float host[1024];
  cl_int rc = 0;
  const auto import_for_platform = reinterpret_cast<Import>(
      clGetExtensionFunctionAddressForPlatform(cl.platform, "clImportMemoryARM"));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const auto import_any =
      reinterpret_cast<Import>(clGetExtensionFunctionAddress("clImportMemoryARM"));
#pragma GCC diagnostic pop
  // As Arm Compute Library gets it: dlsym on the library that exports it (here the fake
  // driver's own library, which the test names in OCL_ICD_FILENAMES).
  const char* lib = std::getenv("OCL_ICD_FILENAMES");
  void* handle = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : nullptr;
  const auto import_dlsym =
      handle ? reinterpret_cast<Import>(dlsym(handle, "clImportMemoryARM")) : nullptr;
  say("dlsym_found", import_dlsym ? 1 : 0);
  // (ocl-icd answers the platform-less lookup only for names that end in the platform's
  // ICD suffix: "ARM" on Mali, not on the fake driver.)
  say("found", (import_for_platform ? 1 : 0) + (import_any ? 2 : 0));
  if (!import_for_platform) return 2;
  const Import import_second = import_any ? import_any : import_for_platform;
  cl_mem m1 = import_for_platform(cl.context, CL_MEM_READ_WRITE, nullptr, host, sizeof host, &rc);
  check(rc, "import 1");
  check(clSetKernelArg(cl.vadd, 0, sizeof m1, &m1), "arg m1");
  check(cl.launch_vadd(70), "launch 70");
  cl_mem m2 = import_second(cl.context, CL_MEM_READ_WRITE, nullptr, host, sizeof host / 2, &rc);
  check(rc, "import 2");
  check(clSetKernelArg(cl.vadd, 0, sizeof m2, &m2), "arg m2");
  check(cl.launch_vadd(71), "launch 71");
  if (import_dlsym) {
    cl_mem m3 = import_dlsym(cl.context, CL_MEM_READ_WRITE, nullptr, host, 1024, &rc);
    check(rc, "import 3");
    check(clSetKernelArg(cl.vadd, 0, sizeof m3, &m3), "arg m3");
    check(cl.launch_vadd(72), "launch 72");
    check(clFinish(cl.queue), "finish");
    clReleaseMemObject(m3);
  }
  // cl_intel_unified_shared_memory: a USM pointer argument, recorded like an SVM pointer.
#if defined(cl_intel_unified_shared_memory)
  using SetArgMemPointer = decltype(&::clSetKernelArgMemPointerINTEL);
#else  // older headers (Debian 11's)
  using SetArgMemPointer = cl_int(CL_API_CALL*)(cl_kernel, cl_uint, const void*);
#endif
  const auto set_arg_mem_pointer = reinterpret_cast<SetArgMemPointer>(
      clGetExtensionFunctionAddressForPlatform(cl.platform, "clSetKernelArgMemPointerINTEL"));
  say("usm_found", set_arg_mem_pointer ? 1 : 0);
  if (set_arg_mem_pointer) {
    check(set_arg_mem_pointer(cl.vadd, 0, reinterpret_cast<void*>(0x7f0012340000)), "usm arg");
    check(cl.launch_vadd(73), "launch 73");
    say("usm_bad_index_rc", set_arg_mem_pointer(cl.vadd, 99, nullptr));
  }
  say("bad_import_rc",
      (import_second(cl.context, CL_MEM_READ_WRITE, nullptr, nullptr, 64, &rc), rc));
  check(clFinish(cl.queue), "finish");
  clReleaseMemObject(m1);
  clReleaseMemObject(m2);
  return 0;
}

int scenario_scalar64() {
  Cl cl;
  cl_int rc = 0;
  const char* src = "__kernel void take64(ulong v) { }\n";
  cl_program p = clCreateProgramWithSource(cl.context, 1, &src, nullptr, &rc);
  check(rc, "program");
  check(clBuildProgram(p, 1, &cl.device, "", nullptr, nullptr), "build");
  cl_kernel k = clCreateKernel(p, "take64", &rc);
  check(rc, "take64");
  cl_mem x = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 256, nullptr, &rc);
  check(rc, "x");
  check(clReleaseMemObject(x), "release x");
  // 1: the released buffer's handle, now just a number.
  check(clSetKernelArg(k, 0, sizeof x, &x), "arg 1");
  check(clEnqueueTask(cl.queue, k, 0, nullptr, nullptr), "task 1");
  cl_mem y = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, 64, nullptr, &rc);
  check(rc, "y");
  say("same_mem_handle", x == y ? 1 : 0);  // the allocator hands the freed block back
  // 2: the same bits again, now the live buffer y.
  check(clSetKernelArg(k, 0, sizeof x, &x), "arg 2");
  check(clEnqueueTask(cl.queue, k, 0, nullptr, nullptr), "task 2");
  // 3: a plain number.
  const cl_ulong plain = 0x1122334455667788ULL;
  check(clSetKernelArg(k, 0, sizeof plain, &plain), "arg 3");
  check(clEnqueueTask(cl.queue, k, 0, nullptr, nullptr), "task 3");
  check(clFinish(cl.queue), "finish");
  clReleaseMemObject(y);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
    return 2;
  }
  const std::string s = argv[1];
  if (std::getenv("SHIM_TEST_EARLY_DLSYM")) std::printf("early_dlsym %d\n", g_early_mmap ? 1 : 0);
  if (s == "basic") return scenario_basic();
  if (s == "lagging_driver") return scenario_lagging_driver(argc > 2 ? std::atoi(argv[2]) : 400);
  if (s == "never_dry") return scenario_never_dry(argc > 2 ? std::atoi(argv[2]) : 30000);
  if (s == "inject") return scenario_inject();
  if (s == "app_view") return scenario_app_view();
  if (s == "threads") return scenario_threads();
  if (s == "lazy_objects") return scenario_lazy_objects();
  if (s == "refcount_race") return scenario_refcount_race();
  if (s == "no_wait") return scenario_no_wait();
  if (s == "late_finish") return scenario_late_finish();
  if (s == "exit_return") return scenario_exit(0);
  if (s == "exit_exit") return scenario_exit(1);
  if (s == "exit_std_exit") return scenario_exit(2);
  if (s == "forever") return scenario_forever();
  if (s == "child") return scenario_child();
  if (s == "spawn") return scenario_spawn(argv[0]);
  if (s == "build_and_wait") return scenario_build_and_wait();
  if (s == "transfers") return scenario_transfers();
  if (s == "ids") return scenario_ids();
  if (s == "atexit") return scenario_atexit();
  if (s == "fork_no_exec") return scenario_fork_no_exec();
  if (s == "fork_busy") return scenario_fork_busy();
  if (s.rfind("exec_self_", 0) == 0) return scenario_exec_self(argv[0], s.substr(10));
  if (s == "exec_target") return scenario_exec_target();
  if (s == "vfork_exec") return scenario_vfork_exec();
  if (s == "fork_while_enqueuing") return scenario_fork_while_enqueuing();
  if (s == "markers") return scenario_markers();
  if (s == "markers_unbalanced") return scenario_markers_unbalanced();
  if (s == "private_events") return scenario_private_events();
  if (s == "scalar64") return scenario_scalar64();
  if (s == "close_fds") return scenario_close_fds();
  if (s == "import_memory") return scenario_import_memory();
  std::fprintf(stderr, "unknown scenario %s\n", s.c_str());
  return 2;
}
