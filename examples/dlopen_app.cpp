// dlopen_app: an OpenCL program that does not link libOpenCL.
//
// Like Arm Compute Library and Arm NN, it opens the OpenCL library at run time with
// dlopen(RTLD_NOW | RTLD_LOCAL) and calls every entry point through a pointer from
// dlsym(handle, "clX"). A profiler that only interposes symbols at link level sees nothing
// here; clprof also answers those dlsym lookups, so the launches still land in the trace.
//
// The function pointer types come from CL/cl.h via decltype, so no prototype is copied by
// hand (the header is only used for declarations; nothing is linked against it).
//
//   build/bin/dlopen_app

#include <CL/cl.h>
#include <dlfcn.h>

#include <clprof/clprof.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

const char* kSource = R"CLC(
kernel void square_bias(global const float* in, global float* out, float bias) {
  size_t i = get_global_id(0);
  out[i] = in[i] * in[i] + bias;
}
)CLC";

constexpr size_t kElements = 1024;

// The OpenCL entry points this program uses, resolved from the dlopen'ed library.
struct OpenCl {
#define CLPROF_EXAMPLE_ENTRY(name) decltype(&::name) name = nullptr;
// clang-format off
#define CLPROF_EXAMPLE_ENTRIES(X) \
  X(clGetPlatformIDs) \
  X(clGetDeviceIDs) \
  X(clCreateContext) \
  X(clReleaseContext) \
  X(clCreateCommandQueueWithProperties) \
  X(clReleaseCommandQueue) \
  X(clCreateProgramWithSource) \
  X(clBuildProgram) \
  X(clGetProgramBuildInfo) \
  X(clReleaseProgram) \
  X(clCreateKernel) \
  X(clSetKernelArg) \
  X(clReleaseKernel) \
  X(clCreateBuffer) \
  X(clReleaseMemObject) \
  X(clEnqueueNDRangeKernel) \
  X(clEnqueueReadBuffer) \
  X(clFinish)
  // clang-format on
  CLPROF_EXAMPLE_ENTRIES(CLPROF_EXAMPLE_ENTRY)
#undef CLPROF_EXAMPLE_ENTRY
};

// Fills every pointer; returns false (after saying which) if the library lacks one.
bool resolve(void* handle, OpenCl& cl) {
  bool ok = true;
#define CLPROF_EXAMPLE_RESOLVE(name)                                              \
  cl.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));            \
  if (cl.name == nullptr) {                                                       \
    std::fprintf(stderr, "dlopen_app: dlsym(%s) failed: %s\n", #name, dlerror()); \
    ok = false;                                                                   \
  }
  CLPROF_EXAMPLE_ENTRIES(CLPROF_EXAMPLE_RESOLVE)
#undef CLPROF_EXAMPLE_RESOLVE
  return ok;
}

void check(cl_int rc, const char* what) {
  if (rc != CL_SUCCESS) {
    std::fprintf(stderr, "dlopen_app: %s failed: %d\n", what, rc);
    std::exit(2);
  }
}

}  // namespace

int main() {
  // The versioned soname is what the ICD loader package installs at run time; the
  // unversioned name only exists with the -dev package, so it is the fallback.
  const char* const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
  void* handle = nullptr;
  for (const char* name : names) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
  }
  if (handle == nullptr) {
    std::fprintf(stderr, "dlopen_app: cannot open the OpenCL library: %s\n", dlerror());
    return 2;
  }
  OpenCl cl;
  if (!resolve(handle, cl)) return 2;

  cl_platform_id platform = nullptr;
  check(cl.clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs");
  cl_device_id device = nullptr;
  check(cl.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr), "clGetDeviceIDs");
  cl_int rc = CL_SUCCESS;
  cl_context context = cl.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  check(rc, "clCreateContext");
  cl_command_queue queue = cl.clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  check(rc, "clCreateCommandQueueWithProperties");
  cl_program program = cl.clCreateProgramWithSource(context, 1, &kSource, nullptr, &rc);
  check(rc, "clCreateProgramWithSource");
  rc = cl.clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (rc != CL_SUCCESS) {
    char log[4096] = {};
    cl.clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, nullptr);
    std::fprintf(stderr, "dlopen_app: build failed:\n%s\n", log);
    return 2;
  }
  cl_kernel kernel = cl.clCreateKernel(program, "square_bias", &rc);
  check(rc, "clCreateKernel");

  std::vector<float> in(kElements);
  for (size_t i = 0; i < kElements; ++i) in[i] = static_cast<float>(i % 31) - 15.0f;
  const size_t bytes = kElements * sizeof(float);
  cl_mem in_buf =
      cl.clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, in.data(), &rc);
  check(rc, "clCreateBuffer(in)");
  cl_mem out_buf = cl.clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, nullptr, &rc);
  check(rc, "clCreateBuffer(out)");

  // Two launches with different biases and local sizes; the second one's result is
  // what is read back and checked.
  const float biases[] = {1.0f, 0.25f};
  const size_t locals[] = {64, 16};
  std::vector<float> out(kElements);
  {
    clprof::ScopedRange range{"dlopen_compute"};
    for (int l = 0; l < 2; ++l) {
      check(cl.clSetKernelArg(kernel, 0, sizeof(cl_mem), &in_buf), "clSetKernelArg(in)");
      check(cl.clSetKernelArg(kernel, 1, sizeof(cl_mem), &out_buf), "clSetKernelArg(out)");
      check(cl.clSetKernelArg(kernel, 2, sizeof(float), &biases[l]), "clSetKernelArg(bias)");
      check(cl.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &kElements, &locals[l], 0, nullptr,
                                      nullptr),
            "clEnqueueNDRangeKernel");
      std::printf("launch square_bias gws=%zu lws=%zu bias=%g\n", kElements, locals[l],
                  static_cast<double>(biases[l]));
    }
    check(
        cl.clEnqueueReadBuffer(queue, out_buf, CL_TRUE, 0, bytes, out.data(), 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
  }
  check(cl.clFinish(queue), "clFinish");

  int bad = 0;
  for (size_t i = 0; i < kElements; ++i) {
    const float want = in[i] * in[i] + biases[1];
    if (std::fabs(out[i] - want) > 1e-5f * std::fmax(1.0f, std::fabs(want))) ++bad;
  }

  cl.clReleaseMemObject(out_buf);
  cl.clReleaseMemObject(in_buf);
  cl.clReleaseKernel(kernel);
  cl.clReleaseProgram(program);
  cl.clReleaseCommandQueue(queue);
  cl.clReleaseContext(context);
  // The library stays loaded: unloading an ICD loader while its drivers' threads may
  // still run is a classic source of exit-time crashes, and the process ends anyway.

  if (bad != 0) {
    std::printf("dlopen_app: FAILED (%d mismatches)\n", bad);
    return 1;
  }
  std::printf("dlopen_app: OK (%zu elements)\n", kElements);
  return 0;
}
