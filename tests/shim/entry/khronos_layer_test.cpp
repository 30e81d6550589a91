// libclprof.so driven as the Khronos ICD loader drives a layer (Debian 12 does not package
// that loader; ocl-icd's protocol is covered by the `layer:` scenarios): this program is a
// minimal loader. It loads the shim with RTLD_LOCAL, checks clGetLayerInfo, initialises it
// with clInitLayerWithProperties(..., NULL) over the fake driver's own dispatch table,
// fills the slots the layer leaves empty from that table, runs a small workload through
// the resulting table, then calls clDeinitLayer as the loader does at its end, and checks
// that the trace is complete with every launch in it.
// argv: LIBCLPROF FAKE_ICD TRACE_PATH. Exit 0 on success, 1 with a message otherwise.
#include <CL/cl_icd.h>
#include <CL/cl_layer.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

constexpr int kLaunches = 100;
int g_failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what);
    ++g_failures;
  }
}

template <class Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

using InitWithProperties = cl_int(CL_API_CALL*)(cl_uint, const cl_icd_dispatch*, cl_uint*,
                                                const cl_icd_dispatch**, const cl_properties*);
using Deinit = cl_int(CL_API_CALL*)();
using IcdGetPlatformIDs = cl_int(CL_API_CALL*)(cl_uint, cl_platform_id*, cl_uint*);

void check_layer_info(pfn_clGetLayerInfo info) {
  cl_layer_api_version version = 0;
  size_t size = 0;
  expect(info(CL_LAYER_API_VERSION, sizeof version, &version, &size) == CL_SUCCESS,
         "clGetLayerInfo(CL_LAYER_API_VERSION)");
  expect(version == CL_LAYER_API_VERSION_100 && size == sizeof version, "API version 100");
  char name[32] = {};
  expect(info(CL_LAYER_NAME, sizeof name, name, &size) == CL_SUCCESS, "clGetLayerInfo(NAME)");
  expect(std::strcmp(name, "clprof") == 0 && size == 7, "layer name \"clprof\"");
  expect(info(CL_LAYER_NAME, 3, name, nullptr) == CL_INVALID_VALUE, "a short buffer is refused");
  expect(info(0x1234, sizeof name, name, nullptr) == CL_INVALID_VALUE, "an unknown query");
}

// The workload, through the table the loader would use: kLaunches launches and a finish.
void run_workload(const cl_icd_dispatch& d, cl_platform_id platform) {
  cl_device_id device = nullptr;
  expect(d.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS,
         "clGetDeviceIDs");
  cl_int rc = CL_SUCCESS;
  cl_context context = d.clCreateContext(nullptr, 1, &device, nullptr, nullptr, &rc);
  expect(rc == CL_SUCCESS, "clCreateContext");
  cl_command_queue queue = d.clCreateCommandQueueWithProperties(context, device, nullptr, &rc);
  expect(rc == CL_SUCCESS, "clCreateCommandQueueWithProperties");
  const char* source = "__kernel void noargs(void) { }\n";
  cl_program program = d.clCreateProgramWithSource(context, 1, &source, nullptr, &rc);
  expect(rc == CL_SUCCESS, "clCreateProgramWithSource");
  expect(d.clBuildProgram(program, 1, &device, "", nullptr, nullptr) == CL_SUCCESS,
         "clBuildProgram");
  cl_kernel kernel = d.clCreateKernel(program, "noargs", &rc);
  expect(rc == CL_SUCCESS, "clCreateKernel");
  const size_t global = 64;
  for (int i = 0; i < kLaunches; ++i) {
    rc = d.clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
    if (rc != CL_SUCCESS) break;
  }
  expect(rc == CL_SUCCESS, "clEnqueueNDRangeKernel");
  expect(d.clFinish(queue) == CL_SUCCESS, "clFinish");
  d.clReleaseKernel(kernel);
  d.clReleaseProgram(program);
  d.clReleaseCommandQueue(queue);
  d.clReleaseContext(context);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LIBCLPROF FAKE_ICD TRACE_PATH\n", argv[0]);
    return 2;
  }
  const std::string trace_path = argv[3];
  std::remove(trace_path.c_str());
  setenv("CLPROF_OUTPUT", trace_path.c_str(), 1);

  void* driver = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  void* layer = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!driver || !layer) {
    std::fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  const auto get_platforms = symbol<IcdGetPlatformIDs>(driver, "clIcdGetPlatformIDsKHR");
  const auto info = symbol<pfn_clGetLayerInfo>(layer, "clGetLayerInfo");
  const auto init = symbol<InitWithProperties>(layer, "clInitLayerWithProperties");
  const auto deinit = symbol<Deinit>(layer, "clDeinitLayer");
  if (!get_platforms || !info || !init || !deinit) {
    std::fprintf(stderr, "missing entry points (driver or layer)\n");
    return 1;
  }
  check_layer_info(info);

  cl_platform_id platform = nullptr;
  if (get_platforms(1, &platform, nullptr) != CL_SUCCESS || !platform) {
    std::fprintf(stderr, "the fake driver has no platform\n");
    return 1;
  }
  // An ICD object starts with its driver's dispatch table: the loader's target.
  const cl_icd_dispatch* target = *reinterpret_cast<cl_icd_dispatch* const*>(platform);
  const cl_uint entries = sizeof(cl_icd_dispatch) / sizeof(void*);

  cl_uint layer_entries = 0;
  const cl_icd_dispatch* layer_table = nullptr;
  expect(init(entries, nullptr, &layer_entries, &layer_table, nullptr) == CL_INVALID_VALUE,
         "no target table is refused");
  if (init(entries, target, &layer_entries, &layer_table, nullptr) != CL_SUCCESS || !layer_table ||
      layer_entries == 0) {
    std::fprintf(stderr, "clInitLayerWithProperties failed\n");
    return 1;
  }
  expect(layer_table->clEnqueueNDRangeKernel != nullptr &&
             layer_table->clEnqueueNDRangeKernel != target->clEnqueueNDRangeKernel,
         "the layer hooks clEnqueueNDRangeKernel");
  expect(layer_table->clGetDeviceInfo == nullptr, "the layer leaves what it does not hook");
  // Device queries are hooked: a process that only queries them has a trace.
  expect(layer_table->clGetDeviceIDs != nullptr &&
             layer_table->clGetDeviceIDs != target->clGetDeviceIDs,
         "the layer hooks clGetDeviceIDs");
  // What the Khronos loader does with the answer.
  cl_icd_dispatch table{};
  void* const* from_layer = reinterpret_cast<void* const*>(layer_table);
  void* const* from_target = reinterpret_cast<void* const*>(target);
  for (cl_uint i = 0; i < entries; ++i) {
    reinterpret_cast<void**>(&table)[i] =
        i < layer_entries && from_layer[i] ? from_layer[i] : from_target[i];
  }
  run_workload(table, platform);
  expect(deinit() == CL_SUCCESS, "clDeinitLayer");

  std::ifstream f(trace_path);
  std::string line, last;
  int launches = 0;
  while (std::getline(f, line)) {
    launches += line.rfind("{\"type\":\"launch\"", 0) == 0;
    last = line;
  }
  expect(launches == kLaunches, "every launch is in the trace");
  expect(last.rfind("{\"type\":\"end\"", 0) == 0, "clDeinitLayer ended the trace");
  if (g_failures) return 1;
  std::printf("khronos layer protocol ok: %d launches\n", launches);
  return 0;
}
