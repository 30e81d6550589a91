// The app of the capture and replay tests (replay_tests.cpp, docs/replay.md): kernels
// whose outputs depend on their inputs, with exact values (small integers in float).
//
//   replay_app            saxpy (1-D, y = a*x + y, x a sub-buffer at 4096 bytes of a
//                         2048-float buffer, n = 1000 of 1024 work-items, local size 64),
//                         twice; then stencil2d (2-D, 64x32 in groups of 8x4, __local
//                         tile): out = 3*in[y][x] + in[(y+1)%32][x] + x/2. Prints the
//                         outputs' sums and the reference counts and event states it saw.
//   replay_app threads N  N threads, each its own queue and buffers, 3 saxpy launches
//                         each (a = thread + 1), waits on its events; prints each sum.
//   replay_app image      shift_image (2-D, 37x19, local size NULL): out(x, y) =
//                         2 * in(x + 1, y) + 1 through a sampler of unnormalized
//                         coordinates, CLAMP_TO_EDGE, NEAREST (so column 36 reads column
//                         36); both images CL_RGBA / CL_FLOAT with in(x, y) channel c =
//                         x + 100y + c/4, made from a host array of padded rows (row
//                         pitch 640 bytes, not 37 * 16 = 592; padding -7). Prints the
//                         output's sum, out(36, 0), the images' and sampler's reference
//                         counts before and after and the event's state.
// Exit 0, or the failing call and 1. The program's source builds with -DBROKEN to an error
// (the replay test of a device that cannot build it).
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

const char* kSource =
    "#ifdef BROKEN\n"
    "#error built with BROKEN\n"
    "#endif\n"
    "__kernel void saxpy(__global float* y, __global const float* x, const float a,\n"
    "                    const int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void stencil2d(__global const float* in, __global float* out,\n"
    "                        __local float* tile, const int w, const int h) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
    "  tile[l] = in[y * w + x];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[y * w + x] = tile[l] * 3.0f + in[((y + 1) % h) * w + x] + (float)x * 0.5f;\n"
    "}\n";

// Only built by `replay_app image` (a device without images still runs the rest).
const char* kImageSource =
    "__kernel void shift_image(__read_only image2d_t in, __write_only image2d_t out,\n"
    "                          sampler_t s) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 v = read_imagef(in, s, (int2)(x + 1, y));\n"
    "  write_imagef(out, (int2)(x, y), v * 2.0f + 1.0f);\n"
    "}\n";

std::mutex g_print;

bool check(cl_int rc, const char* what) {
  if (rc == CL_SUCCESS) return true;
  std::lock_guard<std::mutex> lock(g_print);
  std::printf("%s failed: %d\n", what, rc);
  return false;
}

cl_uint refs(cl_mem m) {
  cl_uint n = 0;
  clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, nullptr);
  return n;
}

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

struct Cl {
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_program program = nullptr;
};

bool setup(Cl& cl) {
  cl_platform_id platform;
  cl_int rc = clGetPlatformIDs(1, &platform, nullptr);
  if (!check(rc, "clGetPlatformIDs")) return false;
  rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &cl.device, nullptr);
  if (!check(rc, "clGetDeviceIDs")) return false;
  cl.context = clCreateContext(nullptr, 1, &cl.device, nullptr, nullptr, &rc);
  if (!check(rc, "clCreateContext")) return false;
  cl.program = clCreateProgramWithSource(cl.context, 1, &kSource, nullptr, &rc);
  if (!check(rc, "clCreateProgramWithSource")) return false;
  return check(clBuildProgram(cl.program, 1, &cl.device, "-cl-kernel-arg-info", nullptr, nullptr),
               "clBuildProgram");
}

// One thread's saxpy launches on its own queue; its output's sum, or -1.
double saxpy_thread(const Cl& cl, int t, int launches) {
  const int n = 1000, g = 1024;
  cl_int rc;
  cl_command_queue q = clCreateCommandQueue(cl.context, cl.device, 0, &rc);
  if (!check(rc, "clCreateCommandQueue")) return -1;
  cl_kernel k = clCreateKernel(cl.program, "saxpy", &rc);
  if (!check(rc, "clCreateKernel")) return -1;
  std::vector<float> x(g), y(g);
  for (int i = 0; i < g; ++i) {
    x[i] = static_cast<float>(i + t);
    y[i] = static_cast<float>(2 * i);
  }
  cl_mem bx =
      clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, g * 4, x.data(), &rc);
  cl_mem by =
      clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, g * 4, y.data(), &rc);
  const float a = static_cast<float>(t + 1);
  clSetKernelArg(k, 0, sizeof by, &by);
  clSetKernelArg(k, 1, sizeof bx, &bx);
  clSetKernelArg(k, 2, sizeof a, &a);
  clSetKernelArg(k, 3, sizeof n, &n);
  const size_t gws = g, lws = 64;
  for (int l = 0; l < launches; ++l) {
    cl_event e = nullptr;
    if (!check(clEnqueueNDRangeKernel(q, k, 1, nullptr, &gws, &lws, 0, nullptr, &e), "saxpy"))
      return -1;
    if (!check(clWaitForEvents(1, &e), "clWaitForEvents")) return -1;
    clReleaseEvent(e);
  }
  if (!check(clEnqueueReadBuffer(q, by, CL_TRUE, 0, g * 4, y.data(), 0, nullptr, nullptr), "read"))
    return -1;
  clReleaseMemObject(bx);
  clReleaseMemObject(by);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  return sum(y);
}

cl_uint sampler_refs(cl_sampler s) {
  cl_uint n = 0;
  clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof n, &n, nullptr);
  return n;
}

// `replay_app image` (the header comment); 0, or 1 after printing the failing call.
int image_main(const Cl& cl) {
  cl_int rc;
  cl_program program = clCreateProgramWithSource(cl.context, 1, &kImageSource, nullptr, &rc);
  if (!check(rc, "clCreateProgramWithSource")) return 1;
  if (!check(clBuildProgram(program, 1, &cl.device, "", nullptr, nullptr), "clBuildProgram"))
    return 1;
  cl_command_queue q = clCreateCommandQueue(cl.context, cl.device, 0, &rc);
  if (!check(rc, "clCreateCommandQueue")) return 1;
  const size_t w = 37, h = 19, pitch = 640;  // bytes per host row: 592 used, 48 padding
  std::vector<float> host(pitch / 4 * h, -7.0f);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t c = 0; c < 4; ++c)
        host[y * (pitch / 4) + x * 4 + c] = static_cast<float>(x + 100 * y) + 0.25f * c;
  const cl_image_format format{CL_RGBA, CL_FLOAT};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  desc.image_row_pitch = pitch;
  cl_mem in = clCreateImage(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                            host.data(), &rc);
  if (!check(rc, "clCreateImage(in)")) return 1;
  std::vector<float> out(w * h * 4, -1.0f);
  desc.image_row_pitch = 0;
  cl_mem out_img = clCreateImage(cl.context, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, &format,
                                 &desc, out.data(), &rc);
  if (!check(rc, "clCreateImage(out)")) return 1;
  cl_sampler sampler =
      clCreateSampler(cl.context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &rc);
  if (!check(rc, "clCreateSampler")) return 1;
  cl_kernel k = clCreateKernel(program, "shift_image", &rc);
  if (!check(rc, "clCreateKernel")) return 1;
  clSetKernelArg(k, 0, sizeof in, &in);
  clSetKernelArg(k, 1, sizeof out_img, &out_img);
  clSetKernelArg(k, 2, sizeof sampler, &sampler);
  const cl_uint refs_before = refs(in) + refs(out_img) + sampler_refs(sampler);
  const size_t gws[2] = {w, h};
  cl_event e = nullptr;
  if (!check(clEnqueueNDRangeKernel(q, k, 2, nullptr, gws, nullptr, 0, nullptr, &e), "shift_image"))
    return 1;
  if (!check(clFinish(q), "clFinish")) return 1;
  cl_int st = 0;
  clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
  clReleaseEvent(e);
  const size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  if (!check(clEnqueueReadImage(q, out_img, CL_TRUE, origin, region, 0, 0, out.data(), 0, nullptr,
                                nullptr),
             "clEnqueueReadImage"))
    return 1;
  std::printf("shift_image sum %.2f out(36,0) %.2f refs %u->%u event status %d\n", sum(out),
              out[36 * 4], refs_before, refs(in) + refs(out_img) + sampler_refs(sampler), st);
  clReleaseKernel(k);
  clReleaseSampler(sampler);
  clReleaseMemObject(out_img);
  clReleaseMemObject(in);
  clReleaseCommandQueue(q);
  clReleaseProgram(program);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Cl cl;
  if (!setup(cl)) return 1;
  if (argc == 3 && std::strcmp(argv[1], "threads") == 0) {
    const int threads = std::atoi(argv[2]);
    std::vector<double> sums(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { sums[t] = saxpy_thread(cl, t, 3); });
    for (auto& th : pool) th.join();
    for (int t = 0; t < threads; ++t) std::printf("thread %d sum %.1f\n", t, sums[t]);
    for (double s : sums)
      if (s < 0) return 1;
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "image") == 0) {
    const int status = image_main(cl);
    clReleaseProgram(cl.program);
    clReleaseContext(cl.context);
    return status;
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: replay_app [threads N | image]\n");
    return 2;
  }
  cl_int rc;
  cl_command_queue q = clCreateCommandQueue(cl.context, cl.device, 0, &rc);
  if (!check(rc, "clCreateCommandQueue")) return 1;

  // saxpy over a sub-buffer: x = xs[1024..2047].
  const int g = 1024, n = 1000;
  std::vector<float> xs(2 * g), y(g);
  for (int i = 0; i < 2 * g; ++i) xs[i] = static_cast<float>(i - g);  // x[i] = i
  for (int i = 0; i < g; ++i) y[i] = static_cast<float>(2 * i);
  cl_mem bxs = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 2 * g * 4,
                              xs.data(), &rc);
  if (!check(rc, "clCreateBuffer")) return 1;
  cl_buffer_region region{static_cast<size_t>(g) * 4, static_cast<size_t>(g) * 4};
  cl_mem bx = clCreateSubBuffer(bxs, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &rc);
  if (!check(rc, "clCreateSubBuffer")) return 1;
  cl_mem by =
      clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, g * 4, y.data(), &rc);
  if (!check(rc, "clCreateBuffer")) return 1;
  cl_kernel saxpy = clCreateKernel(cl.program, "saxpy", &rc);
  if (!check(rc, "clCreateKernel")) return 1;
  const float a = 2.5f;
  clSetKernelArg(saxpy, 0, sizeof by, &by);
  clSetKernelArg(saxpy, 1, sizeof bx, &bx);
  clSetKernelArg(saxpy, 2, sizeof a, &a);
  clSetKernelArg(saxpy, 3, sizeof n, &n);
  const size_t gws = g, lws = 64;
  const cl_uint refs_before = refs(by) + refs(bx) + refs(bxs);
  cl_event e1 = nullptr;
  if (!check(clEnqueueNDRangeKernel(q, saxpy, 1, nullptr, &gws, &lws, 0, nullptr, &e1), "saxpy"))
    return 1;
  // The second launch waits on the first's event and gives no event back.
  if (!check(clEnqueueNDRangeKernel(q, saxpy, 1, nullptr, &gws, &lws, 1, &e1, nullptr), "saxpy 2"))
    return 1;
  if (!check(clFinish(q), "clFinish")) return 1;
  cl_int st = 0;
  clGetEventInfo(e1, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, nullptr);
  clReleaseEvent(e1);
  if (!check(clEnqueueReadBuffer(q, by, CL_TRUE, 0, g * 4, y.data(), 0, nullptr, nullptr), "read"))
    return 1;
  std::printf("saxpy sum %.1f y[999] %.1f y[1000] %.1f refs %u->%u event status %d\n", sum(y),
              y[999], y[1000], refs_before, refs(by) + refs(bx) + refs(bxs), st);

  // stencil2d, 2-D.
  const int w = 64, h = 32;
  std::vector<float> in(w * h), out(w * h, -1.0f);
  for (int i = 0; i < w * h; ++i) in[i] = static_cast<float>(i % 97);
  cl_mem bin = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, w * h * 4,
                              in.data(), &rc);
  cl_mem bout = clCreateBuffer(cl.context, CL_MEM_WRITE_ONLY | CL_MEM_COPY_HOST_PTR, w * h * 4,
                               out.data(), &rc);
  if (!check(rc, "clCreateBuffer")) return 1;
  cl_kernel stencil = clCreateKernel(cl.program, "stencil2d", &rc);
  if (!check(rc, "clCreateKernel")) return 1;
  const size_t g2[2] = {static_cast<size_t>(w), static_cast<size_t>(h)}, l2[2] = {8, 4};
  clSetKernelArg(stencil, 0, sizeof bin, &bin);
  clSetKernelArg(stencil, 1, sizeof bout, &bout);
  clSetKernelArg(stencil, 2, l2[0] * l2[1] * sizeof(float), nullptr);
  clSetKernelArg(stencil, 3, sizeof w, &w);
  clSetKernelArg(stencil, 4, sizeof h, &h);
  if (!check(clEnqueueNDRangeKernel(q, stencil, 2, nullptr, g2, l2, 0, nullptr, nullptr),
             "stencil2d"))
    return 1;
  if (!check(clEnqueueReadBuffer(q, bout, CL_TRUE, 0, w * h * 4, out.data(), 0, nullptr, nullptr),
             "read"))
    return 1;
  std::printf("stencil2d sum %.1f out[65] %.1f\n", sum(out), out[65]);
  // Not printed: CL_CONTEXT_REFERENCE_COUNT. PoCL keeps the last command on a buffer (and
  // so its queue and that queue's context) until the buffer's next command: after a capture
  // it may read one higher until then (docs/replay.md).
  clReleaseKernel(stencil);
  clReleaseKernel(saxpy);
  clReleaseMemObject(bout);
  clReleaseMemObject(bin);
  clReleaseMemObject(by);
  clReleaseMemObject(bx);
  clReleaseMemObject(bxs);
  clReleaseCommandQueue(q);
  clReleaseProgram(cl.program);
  clReleaseContext(cl.context);
  return 0;
}
