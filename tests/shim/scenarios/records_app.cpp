// Scenarios of the test app. Scenarios of the test app. The reference run ("basic": every kind of
// record, exact values known to the test) and the transfer kinds (records_test.cpp).
#include <CL/cl.h>
#include <unistd.h>

#include <vector>

#include "app_support.hpp"

namespace shim_test {
namespace {

// The reference run of tests/shim: every kind of record, exact values known to the test.
int scenario_basic(const ScenarioArgs&) {
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

// Map/unmap, rect and image transfers (bytes per docs/trace-format.md's table).
int scenario_transfers(const ScenarioArgs&) {
  Cl cl;
  cl_int rc = 0;
  void* p =
      clEnqueueMapBuffer(cl.queue, cl.a, CL_TRUE, CL_MAP_READ, 0, 256, 0, nullptr, nullptr, &rc);
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

}  // namespace

// A program that probes OpenCL and uses none of it (darktable at start-up): platforms,
// devices and one device fact, nothing else. Prints the counts it found.
int scenario_query_only(const ScenarioArgs&) {
  cl_uint platforms = 0;
  check(clGetPlatformIDs(0, nullptr, &platforms), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(platforms);
  check(clGetPlatformIDs(platforms, ids.data(), nullptr), "clGetPlatformIDs");
  long long devices = 0;
  for (cl_platform_id p : ids) {
    cl_uint n = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) continue;
    std::vector<cl_device_id> d(n);
    // Without num_devices: the shim must not read past what the driver wrote.
    check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, d.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id dev : d) {
      cl_uint units = 0;
      check(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr),
            "clGetDeviceInfo");
    }
    devices += n;
  }
  say("platforms", platforms);
  say("devices", devices);
  return 0;
}

const ScenarioList kRecordsScenarios = {
    {"query_only", scenario_query_only},
    {"basic", scenario_basic},
    {"transfers", scenario_transfers},
};

}  // namespace shim_test
