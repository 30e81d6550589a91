// Tests of the fake OpenCL driver itself, through the real ICD loader (no shim). Each
// ctest entry runs one group of cases ("default:*", "fail:*", ...) under the FAKE_CL_*
// environment that group needs (see CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <CL/cl.h>
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* kSource = R"CLC(
// a comment with kernel void not_a_kernel(int x)
__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {
  int i = get_global_id(0); c[i] = a[i] + b[i];
}
/* kernel void also_not(int) */
kernel void scale(global float* x, const float f, __local float* tmp, uint n) { }
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void noargs(void) { }
)CLC";

struct Env {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;  // profiling on

  explicit Env(cl_command_queue_properties props = CL_QUEUE_PROFILING_ENABLE) {
    REQUIRE(clGetPlatformIDs(1, &platform, nullptr) == CL_SUCCESS);
    REQUIRE(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS);
    cl_int rc = 0;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
    REQUIRE(rc == CL_SUCCESS);
    queue = clCreateCommandQueue(context, device, props, &rc);
    REQUIRE(rc == CL_SUCCESS);
  }
  ~Env() {
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
  }
  cl_program build(const char* options = "") const {
    cl_int rc = 0;
    cl_program p = clCreateProgramWithSource(context, 1, &kSource, nullptr, &rc);
    REQUIRE(rc == CL_SUCCESS);
    REQUIRE(clBuildProgram(p, 1, &device, options, nullptr, nullptr) == CL_SUCCESS);
    return p;
  }
  // A marker enqueued on the queue: its event (the caller releases it).
  cl_event marker() const {
    cl_event e = nullptr;
    REQUIRE(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e) == CL_SUCCESS);
    return e;
  }
};

std::string device_string(cl_device_id d, cl_device_info what) {
  char buf[256] = {};
  REQUIRE(clGetDeviceInfo(d, what, sizeof buf, buf, nullptr) == CL_SUCCESS);
  return buf;
}

cl_ulong profiling(cl_event e, cl_profiling_info what) {
  cl_ulong v = 0;
  REQUIRE(clGetEventProfilingInfo(e, what, sizeof v, &v, nullptr) == CL_SUCCESS);
  return v;
}

cl_int status_of(cl_event e) {
  cl_int st = 0;
  REQUIRE(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr) ==
          CL_SUCCESS);
  return st;
}

cl_uint refcount_of(cl_event e) {
  cl_uint n = 0;
  REQUIRE(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof n, &n, nullptr) == CL_SUCCESS);
  return n;
}

// The number the next command will get: one marker's queued time tells the current count.
cl_ulong next_command_number(cl_command_queue q) {
  cl_event e = nullptr;
  REQUIRE(clEnqueueMarkerWithWaitList(q, 0, nullptr, &e) == CL_SUCCESS);
  REQUIRE(clFinish(q) == CL_SUCCESS);
  const cl_ulong queued = profiling(e, CL_PROFILING_COMMAND_QUEUED);
  clReleaseEvent(e);
  return queued / 1000 + 1;
}

cl_kernel ready_vadd(const Env& env, cl_program p, cl_mem buf) {
  cl_int rc = 0;
  cl_kernel k = clCreateKernel(p, "vadd", &rc);
  REQUIRE(rc == CL_SUCCESS);
  for (cl_uint i = 0; i < 3; ++i) REQUIRE(clSetKernelArg(k, i, sizeof buf, &buf) == CL_SUCCESS);
  return k;
}

cl_mem make_buffer(const Env& env, size_t bytes) {
  cl_int rc = 0;
  cl_mem m = clCreateBuffer(env.context, CL_MEM_READ_WRITE, bytes, nullptr, &rc);
  REQUIRE(rc == CL_SUCCESS);
  return m;
}

// One of the driver's event counters (README.md, "Live event objects"), from the copy the
// ICD loader loaded (an Env must exist first: the loader loads drivers at the first cl* call).
unsigned long long event_counter(const char* name) {
  void* h = dlopen(FAKE_ICD_PATH, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE_MESSAGE(h != nullptr, "the fake driver is not loaded: ", dlerror());
  auto fn = reinterpret_cast<unsigned long long (*)()>(dlsym(h, name));
  const bool exported = fn != nullptr;  // (doctest cannot print a function pointer)
  REQUIRE_MESSAGE(exported, name, " is not exported");
  const unsigned long long n = fn();
  dlclose(h);  // only drops the reference RTLD_NOLOAD took; the loader keeps the driver
  return n;
}
unsigned long long live_events() {
  return event_counter("clprof_fake_live_events");
}
unsigned long long referenced_events() {
  return event_counter("clprof_fake_referenced_events");
}

}  // namespace

TEST_CASE("default: platform and device answer the documented identity") {
  Env env;
  char name[128] = {};
  REQUIRE(clGetPlatformInfo(env.platform, CL_PLATFORM_NAME, sizeof name, name, nullptr) ==
          CL_SUCCESS);
  CHECK(std::string(name) == "clprof fake platform");
  CHECK(device_string(env.device, CL_DEVICE_NAME) == "clprof fake device");
  CHECK(device_string(env.device, CL_DEVICE_VENDOR) == "clprof");
  CHECK(device_string(env.device, CL_DEVICE_VERSION) == "OpenCL 3.0 clprof-fake");
  CHECK(device_string(env.device, CL_DRIVER_VERSION) == "1.0");
  cl_device_type type = 0;
  REQUIRE(clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof type, &type, nullptr) == CL_SUCCESS);
  CHECK(type == CL_DEVICE_TYPE_GPU);
  cl_uint cu = 0, mhz = 0;
  clGetDeviceInfo(env.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, nullptr);
  clGetDeviceInfo(env.device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, nullptr);
  CHECK(cu == 4);
  CHECK(mhz == 1000);
  cl_ulong global = 0, local = 0;
  clGetDeviceInfo(env.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, nullptr);
  clGetDeviceInfo(env.device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  CHECK(global == (1ull << 30));
  CHECK(local == (64ull << 10));
  size_t res = 0;
  clGetDeviceInfo(env.device, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof res, &res, nullptr);
  CHECK(res == 1);
  cl_ulong dev_ns = 0, host_ns = 0;
  CHECK(clGetDeviceAndHostTimer(env.device, &dev_ns, &host_ns) == CL_SUCCESS);
  CHECK(host_ns > 0);
  CHECK(dev_ns % 1000 == 500);
  cl_device_id cpu = nullptr;
  CHECK(clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_CPU, 1, &cpu, nullptr) == CL_DEVICE_NOT_FOUND);
}

TEST_CASE("default: device timestamps follow the documented formula") {
  Env env;
  cl_program p = env.build();
  cl_mem buf = make_buffer(env, 4096);
  cl_kernel k = ready_vadd(env, p, buf);
  const cl_ulong n = next_command_number(env.queue);
  const size_t gws[2] = {64, 8};
  const size_t lws[2] = {8, 8};
  cl_event launch = nullptr, read = nullptr;
  REQUIRE(clEnqueueNDRangeKernel(env.queue, k, 2, nullptr, gws, lws, 0, nullptr, &launch) ==
          CL_SUCCESS);
  std::vector<char> host(100);
  REQUIRE(clEnqueueReadBuffer(env.queue, buf, CL_TRUE, 0, 100, host.data(), 0, nullptr, &read) ==
          CL_SUCCESS);
  CHECK(profiling(launch, CL_PROFILING_COMMAND_QUEUED) == 1000 * n);
  CHECK(profiling(launch, CL_PROFILING_COMMAND_SUBMIT) == 1000 * n + 10);
  CHECK(profiling(launch, CL_PROFILING_COMMAND_START) == 1000 * n + 100);
  CHECK(profiling(launch, CL_PROFILING_COMMAND_END) == 1000 * n + 100 + 1000 + 64 * 8);
  CHECK(profiling(read, CL_PROFILING_COMMAND_QUEUED) == 1000 * (n + 1));
  CHECK(profiling(read, CL_PROFILING_COMMAND_END) == 1000 * (n + 1) + 100 + 500 + 100);
  // A launch without an event still consumes a command number.
  REQUIRE(clEnqueueTask(env.queue, k, 0, nullptr, nullptr) == CL_SUCCESS);
  cl_event task = nullptr;
  REQUIRE(clEnqueueTask(env.queue, k, 0, nullptr, &task) == CL_SUCCESS);
  CHECK(profiling(task, CL_PROFILING_COMMAND_QUEUED) == 1000 * (n + 3));
  CHECK(profiling(task, CL_PROFILING_COMMAND_END) == 1000 * (n + 3) + 100 + 1001);
  cl_command_type type = 0;
  clGetEventInfo(task, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
  CHECK(type == CL_COMMAND_TASK);
  for (cl_event e : {launch, read, task}) clReleaseEvent(e);
  clReleaseKernel(k);
  clReleaseMemObject(buf);
  clReleaseProgram(p);
}

TEST_CASE("default: buffers hold real bytes") {
  Env env;
  cl_mem a = make_buffer(env, 64);
  cl_mem b = make_buffer(env, 64);
  std::vector<unsigned char> in(64), out(64, 0);
  for (int i = 0; i < 64; ++i) in[i] = static_cast<unsigned char>(i);
  REQUIRE(clEnqueueWriteBuffer(env.queue, a, CL_TRUE, 0, 64, in.data(), 0, nullptr, nullptr) ==
          CL_SUCCESS);
  REQUIRE(clEnqueueCopyBuffer(env.queue, a, b, 8, 0, 16, 0, nullptr, nullptr) == CL_SUCCESS);
  REQUIRE(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, 16, out.data(), 0, nullptr, nullptr) ==
          CL_SUCCESS);
  for (int i = 0; i < 16; ++i) CHECK(out[i] == i + 8);
  const cl_uint pattern = 0xA1B2C3D4u;
  REQUIRE(clEnqueueFillBuffer(env.queue, b, &pattern, 4, 16, 8, 0, nullptr, nullptr) == CL_SUCCESS);
  cl_uint words[6] = {};
  REQUIRE(clEnqueueReadBuffer(env.queue, b, CL_TRUE, 0, 24, words, 0, nullptr, nullptr) ==
          CL_SUCCESS);
  CHECK(words[4] == pattern);
  CHECK(words[5] == pattern);
  cl_buffer_region region{32, 16};
  cl_int rc = 0;
  cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &rc);
  REQUIRE(rc == CL_SUCCESS);
  unsigned char first = 0;
  REQUIRE(clEnqueueReadBuffer(env.queue, sub, CL_TRUE, 0, 1, &first, 0, nullptr, nullptr) ==
          CL_SUCCESS);
  CHECK(first == 32);
  size_t sub_size = 0;
  clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof sub_size, &sub_size, nullptr);
  CHECK(sub_size == 16);
  auto* mapped = static_cast<unsigned char*>(
      clEnqueueMapBuffer(env.queue, a, CL_TRUE, CL_MAP_READ, 4, 4, 0, nullptr, nullptr, &rc));
  REQUIRE(rc == CL_SUCCESS);
  CHECK(mapped[0] == 4);
  CHECK(clEnqueueUnmapMemObject(env.queue, a, mapped, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(clEnqueueReadBuffer(env.queue, a, CL_TRUE, 60, 8, out.data(), 0, nullptr, nullptr) ==
        CL_INVALID_VALUE);
  clReleaseMemObject(sub);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
}

TEST_CASE("default: kernels are found in the source with their arguments") {
  Env env;
  cl_program p = env.build("-DM=64 -DN=32 -DK=16");
  char names[256] = {};
  REQUIRE(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, nullptr) == CL_SUCCESS);
  CHECK(std::string(names) == "vadd;scale;noargs");
  char opts[64] = {};
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_OPTIONS, sizeof opts, opts, nullptr);
  CHECK(std::string(opts) == "-DM=64 -DN=32 -DK=16");
  cl_int rc = 0;
  cl_kernel scale = clCreateKernel(p, "scale", &rc);
  REQUIRE(rc == CL_SUCCESS);
  cl_uint nargs = 0;
  clGetKernelInfo(scale, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  CHECK(nargs == 4);
  cl_kernel_arg_address_qualifier aq = 0;
  clGetKernelArgInfo(scale, 2, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr);
  CHECK(aq == CL_KERNEL_ARG_ADDRESS_LOCAL);
  char tname[32] = {};
  clGetKernelArgInfo(scale, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof tname, tname, nullptr);
  CHECK(std::string(tname) == "float");
  const float f = 2.0f;
  const cl_uint n = 7;
  cl_mem buf = make_buffer(env, 64);
  CHECK(clSetKernelArg(scale, 4, sizeof n, &n) == CL_INVALID_ARG_INDEX);
  CHECK(clSetKernelArg(scale, 2, 16, &f) == CL_INVALID_ARG_VALUE);  // __local with a value
  CHECK(clSetKernelArg(scale, 0, sizeof buf, &buf) == CL_SUCCESS);
  CHECK(clSetKernelArg(scale, 1, sizeof f, &f) == CL_SUCCESS);
  CHECK(clSetKernelArg(scale, 2, 256, nullptr) == CL_SUCCESS);
  const size_t gws = 16;
  CHECK(clEnqueueNDRangeKernel(env.queue, scale, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
        CL_INVALID_KERNEL_ARGS);
  CHECK(clSetKernelArg(scale, 3, sizeof n, &n) == CL_SUCCESS);
  CHECK(clEnqueueNDRangeKernel(env.queue, scale, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
        CL_SUCCESS);
  cl_kernel noargs = clCreateKernel(p, "noargs", &rc);
  REQUIRE(rc == CL_SUCCESS);
  clGetKernelInfo(noargs, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr);
  CHECK(nargs == 0);
  CHECK(clCreateKernel(p, "not_a_kernel", &rc) == nullptr);
  CHECK(rc == CL_INVALID_KERNEL_NAME);
  clReleaseKernel(noargs);
  clReleaseKernel(scale);
  clReleaseMemObject(buf);
  clReleaseProgram(p);
}

TEST_CASE("default: a build option token makes the build fail") {
  Env env;
  cl_int rc = 0;
  cl_program p = clCreateProgramWithSource(env.context, 1, &kSource, nullptr, &rc);
  REQUIRE(rc == CL_SUCCESS);
  CHECK(clBuildProgram(p, 1, &env.device, "-O2 -DFAKE_CL_BUILD_FAIL", nullptr, nullptr) ==
        CL_BUILD_PROGRAM_FAILURE);
  cl_build_status st = 0;
  clGetProgramBuildInfo(p, env.device, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, nullptr);
  CHECK(st == CL_BUILD_ERROR);
  CHECK(clCreateKernel(p, "vadd", &rc) == nullptr);
  CHECK(rc == CL_INVALID_PROGRAM_EXECUTABLE);
  clReleaseProgram(p);
}

TEST_CASE("default: profiling info needs a profiling queue") {
  Env env(0);
  cl_event e = env.marker();
  cl_ulong v = 0;
  CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof v, &v, nullptr) ==
        CL_PROFILING_INFO_NOT_AVAILABLE);
  cl_command_queue_properties props = 99;
  clGetCommandQueueInfo(env.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, nullptr);
  CHECK(props == 0);
  clReleaseEvent(e);
}

TEST_CASE("default: queue with properties keeps the array the app gave") {
  Env env;
  const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int rc = 0;
  cl_command_queue q = clCreateCommandQueueWithProperties(env.context, env.device, props, &rc);
  REQUIRE(rc == CL_SUCCESS);
  cl_queue_properties back[3] = {};
  size_t size = 0;
  REQUIRE(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof back, back, &size) ==
          CL_SUCCESS);
  CHECK(size == sizeof props);
  CHECK(back[1] == CL_QUEUE_PROFILING_ENABLE);
  cl_uint refs = 0;
  clRetainCommandQueue(q);
  clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs, nullptr);
  CHECK(refs == 2);
  clReleaseCommandQueue(q);
  clReleaseCommandQueue(q);
}

TEST_CASE("default: event reference counts are the app's own") {
  Env env;
  cl_event e = env.marker();
  CHECK(refcount_of(e) == 1);
  clRetainEvent(e);
  CHECK(refcount_of(e) == 2);
  CHECK(clReleaseEvent(e) == CL_SUCCESS);
  CHECK(refcount_of(e) == 1);
  CHECK(status_of(e) == CL_COMPLETE);
  int fired = 0;
  CHECK(clSetEventCallback(
            e, CL_COMPLETE, [](cl_event, cl_int, void* p) { ++*static_cast<int*>(p); }, &fired) ==
        CL_SUCCESS);
  CHECK(fired == 1);
  CHECK(clReleaseEvent(e) == CL_SUCCESS);
}

TEST_CASE("default: the live-event count follows event creation and destruction") {
  Env env;
  cl_program p = env.build();
  cl_mem buf = make_buffer(env, 64);
  cl_kernel k = ready_vadd(env, p, buf);
  // Other cases run in this process may have left events alive: count from here.
  const unsigned long long base = live_events();
  const size_t gws = 8;
  // Without an event the driver makes none.
  REQUIRE(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
          CL_SUCCESS);
  REQUIRE(clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, nullptr) == CL_SUCCESS);
  CHECK(live_events() == base);
  cl_event e[4] = {};
  REQUIRE(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, &e[0]) ==
          CL_SUCCESS);
  const cl_uint pattern = 7;
  REQUIRE(clEnqueueFillBuffer(env.queue, buf, &pattern, sizeof pattern, 0, 64, 0, nullptr, &e[1]) ==
          CL_SUCCESS);
  REQUIRE(clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, &e[2]) == CL_SUCCESS);
  cl_int rc = 0;
  e[3] = clCreateUserEvent(env.context, &rc);
  REQUIRE(rc == CL_SUCCESS);
  CHECK(live_events() == base + 4);
  // A failed enqueue makes none.
  CHECK(clEnqueueMarkerWithWaitList(env.queue, 1, nullptr, &e[0]) == CL_INVALID_EVENT_WAIT_LIST);
  CHECK(live_events() == base + 4);
  // Alive while any reference is left.
  REQUIRE(clRetainEvent(e[0]) == CL_SUCCESS);
  REQUIRE(clReleaseEvent(e[0]) == CL_SUCCESS);
  CHECK(live_events() == base + 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    REQUIRE(clReleaseEvent(e[i]) == CL_SUCCESS);
    CHECK(live_events() == base + 3 - i);
  }
  clReleaseKernel(k);
  clReleaseMemObject(buf);
  clReleaseProgram(p);
}

TEST_CASE("default: many threads get unique command numbers") {
  Env env;
  cl_program p = env.build();
  cl_mem buf = make_buffer(env, 64);
  constexpr int kThreads = 8, kPerThread = 500;
  std::vector<std::vector<cl_ulong>> queued(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cl_kernel k = clCreateKernel(p, "vadd", nullptr);
      for (cl_uint i = 0; i < 3; ++i) clSetKernelArg(k, i, sizeof buf, &buf);
      const size_t gws = 32;
      for (int i = 0; i < kPerThread; ++i) {
        cl_event e = nullptr;
        if (clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, &e) !=
            CL_SUCCESS)
          continue;
        cl_ulong q = 0;
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, sizeof q, &q, nullptr);
        queued[t].push_back(q);
        clReleaseEvent(e);
      }
      clReleaseKernel(k);
    });
  }
  for (auto& th : threads) th.join();
  std::set<cl_ulong> all;
  for (auto& v : queued)
    for (cl_ulong q : v) all.insert(q);
  CHECK(all.size() == kThreads * kPerThread);
  clReleaseMemObject(buf);
  clReleaseProgram(p);
}

TEST_CASE("fail: the N-th call of an entry point fails with the given code") {
  // FAKE_CL_FAIL=clEnqueueNDRangeKernel:2:-54,clCreateBuffer:*:-61
  Env env;
  cl_program p = env.build();
  cl_int rc = 0;
  CHECK(clCreateBuffer(env.context, 0, 64, nullptr, &rc) == nullptr);
  CHECK(rc == CL_INVALID_BUFFER_SIZE);
  cl_kernel k = ready_vadd(env, p, nullptr);  // arguments a null buffer: never read
  const size_t gws = 8;
  CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
        CL_SUCCESS);
  CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
        CL_INVALID_WORK_GROUP_SIZE);
  CHECK(clEnqueueNDRangeKernel(env.queue, k, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr) ==
        CL_SUCCESS);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST_CASE("fail: every K-th call of an entry point fails with the given code") {
  // FAKE_CL_FAIL=...,clEnqueueTask:%3:-5
  Env env;
  cl_program p = env.build();
  cl_kernel k = ready_vadd(env, p, nullptr);
  std::vector<cl_int> codes;
  for (int i = 0; i < 7; ++i) codes.push_back(clEnqueueTask(env.queue, k, 0, nullptr, nullptr));
  CHECK(codes == std::vector<cl_int>{CL_SUCCESS, CL_SUCCESS, CL_OUT_OF_RESOURCES, CL_SUCCESS,
                                     CL_SUCCESS, CL_OUT_OF_RESOURCES, CL_SUCCESS});
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST_CASE("polls: events complete after K status polls") {
  // FAKE_CL_EVENT_MODE=polls:3
  Env env;
  cl_event e = env.marker();
  cl_ulong v = 0;
  CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof v, &v, nullptr) ==
        CL_PROFILING_INFO_NOT_AVAILABLE);
  CHECK(status_of(e) == CL_SUBMITTED);
  CHECK(status_of(e) == CL_SUBMITTED);
  CHECK(status_of(e) == CL_SUBMITTED);
  CHECK(status_of(e) == CL_COMPLETE);
  CHECK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof v, &v, nullptr) == CL_SUCCESS);
  cl_event f = env.marker();
  CHECK(clWaitForEvents(1, &f) == CL_SUCCESS);
  CHECK(status_of(f) == CL_COMPLETE);
  clReleaseEvent(e);
  clReleaseEvent(f);
}

TEST_CASE("on_wait: events complete at clFinish, callbacks fire then") {
  // FAKE_CL_EVENT_MODE=on_wait
  Env env;
  cl_event e = env.marker();
  int fired = 0;
  REQUIRE(clSetEventCallback(
              e, CL_COMPLETE, [](cl_event, cl_int, void* p) { ++*static_cast<int*>(p); }, &fired) ==
          CL_SUCCESS);
  for (int i = 0; i < 10; ++i) CHECK(status_of(e) == CL_SUBMITTED);
  CHECK(fired == 0);
  CHECK(refcount_of(e) == 1);  // the driver's own hold is not visible
  REQUIRE(clFinish(env.queue) == CL_SUCCESS);
  CHECK(status_of(e) == CL_COMPLETE);
  CHECK(fired == 1);
  // An event the app released before completion still completes and is freed later.
  cl_event g = env.marker();
  clReleaseEvent(g);
  CHECK(clFinish(env.queue) == CL_SUCCESS);
  clReleaseEvent(e);
}

TEST_CASE("on_wait: an event the app released stays live until its command completes") {
  Env env;
  const unsigned long long base = live_events();
  const unsigned long long referenced = referenced_events();
  cl_event e = env.marker();
  REQUIRE(clRetainEvent(e) == CL_SUCCESS);
  CHECK(referenced_events() == referenced + 1);  // one event, however many references
  REQUIRE(clReleaseEvent(e) == CL_SUCCESS);
  CHECK(referenced_events() == referenced + 1);
  REQUIRE(clReleaseEvent(e) == CL_SUCCESS);
  CHECK(live_events() == base + 1);          // the queue's pending list still holds it...
  CHECK(referenced_events() == referenced);  // ...and nobody else
  REQUIRE(clFinish(env.queue) == CL_SUCCESS);
  CHECK(live_events() == base);
}

TEST_CASE("on_wait: concurrent enqueue, finish, status polls and releases") {
  Env env;
  constexpr int kThreads = 4, kPerThread = 300;
  std::atomic<int> completed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      std::vector<cl_event> mine;
      for (int i = 0; i < kPerThread; ++i) {
        cl_event e = nullptr;
        if (clEnqueueMarkerWithWaitList(env.queue, 0, nullptr, &e) != CL_SUCCESS) continue;
        clSetEventCallback(
            e, CL_COMPLETE,
            [](cl_event, cl_int, void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); },
            &completed);
        mine.push_back(e);
        if (i % 10 == 9) clFinish(env.queue);
        if (i % 3 == 0) {
          cl_int st = 0;
          clGetEventInfo(mine.front(), CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
        }
      }
      for (cl_event e : mine) clReleaseEvent(e);
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(clFinish(env.queue) == CL_SUCCESS);
  CHECK(completed.load() == kThreads * kPerThread);
}

TEST_CASE("never: events never complete, clFinish returns anyway") {
  // FAKE_CL_EVENT_MODE=never
  Env env;
  cl_event e = env.marker();
  CHECK(clFinish(env.queue) == CL_SUCCESS);
  CHECK(clWaitForEvents(1, &e) == CL_SUCCESS);
  CHECK(status_of(e) == CL_SUBMITTED);
  // Blocking commands still complete (their own event).
  cl_int rc = 0;
  cl_mem m = clCreateBuffer(env.context, 0, 16, nullptr, &rc);
  char host[16];
  cl_event r = nullptr;
  CHECK(clEnqueueReadBuffer(env.queue, m, CL_TRUE, 0, 16, host, 0, nullptr, &r) == CL_SUCCESS);
  CHECK(status_of(r) == CL_COMPLETE);
  clReleaseEvent(r);
  clReleaseMemObject(m);
  clReleaseEvent(e);
}

// A launch of vadd, then one of scale, on one buffer, each with its event: the two kernels
// the per-kernel knobs (FAKE_CL_EVENT_MODE_KERNEL, FAKE_CL_EXEC_ERROR) tell apart.
struct VaddThenScale {
  cl_program program;
  cl_mem buf;
  cl_kernel vadd, scale;
  cl_event vadd_event = nullptr, scale_event = nullptr;

  explicit VaddThenScale(Env& env)
      : program(env.build()), buf(make_buffer(env, 64)), vadd(ready_vadd(env, program, buf)) {
    scale = clCreateKernel(program, "scale", nullptr);
    const float f = 1.0f;
    const cl_uint n = 1;
    clSetKernelArg(scale, 0, sizeof buf, &buf);
    clSetKernelArg(scale, 1, sizeof f, &f);
    clSetKernelArg(scale, 2, 64, nullptr);
    clSetKernelArg(scale, 3, sizeof n, &n);
    const size_t gws = 4;
    REQUIRE(clEnqueueNDRangeKernel(env.queue, vadd, 1, nullptr, &gws, nullptr, 0, nullptr,
                                   &vadd_event) == CL_SUCCESS);
    REQUIRE(clEnqueueNDRangeKernel(env.queue, scale, 1, nullptr, &gws, nullptr, 0, nullptr,
                                   &scale_event) == CL_SUCCESS);
  }
  ~VaddThenScale() {
    clReleaseEvent(vadd_event);
    clReleaseEvent(scale_event);
    clReleaseKernel(vadd);
    clReleaseKernel(scale);
    clReleaseMemObject(buf);
    clReleaseProgram(program);
  }
};

TEST_CASE("kernelmode: only the named kernel's launches stay pending") {
  // FAKE_CL_EVENT_MODE=on_wait FAKE_CL_EVENT_MODE_KERNEL=scale
  Env env;
  VaddThenScale l(env);
  CHECK(status_of(l.vadd_event) == CL_COMPLETE);
  CHECK(status_of(l.scale_event) == CL_SUBMITTED);
  clFinish(env.queue);
  CHECK(status_of(l.scale_event) == CL_COMPLETE);
}

TEST_CASE("execerror: the named kernel's launches fail on the device, with no profiling info") {
  // FAKE_CL_EXEC_ERROR=scale:-5
  Env env;
  VaddThenScale l(env);
  CHECK(status_of(l.vadd_event) == CL_COMPLETE);
  CHECK(status_of(l.scale_event) == -5);
  cl_ulong t = 0;
  CHECK(clGetEventProfilingInfo(l.vadd_event, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr) ==
        CL_SUCCESS);
  CHECK(clGetEventProfilingInfo(l.scale_event, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr) ==
        CL_PROFILING_INFO_NOT_AVAILABLE);
}

TEST_CASE("notimer: clGetDeviceAndHostTimer can be switched off") {
  // FAKE_CL_HOST_TIMER=0
  Env env;
  cl_ulong d = 0, h = 0;
  CHECK(clGetDeviceAndHostTimer(env.device, &d, &h) == CL_INVALID_OPERATION);
  cl_ulong res = 99;
  REQUIRE(clGetPlatformInfo(env.platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof res, &res,
                            nullptr) == CL_SUCCESS);
  CHECK(res == 0);
}
