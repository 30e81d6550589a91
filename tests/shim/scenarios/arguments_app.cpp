// Scenarios of the test app. Scenarios of the test app. Object ids and kernel arguments: handle
// reuse, sub-buffers, NULL and unset arguments, 8-byte scalars that are buffer handles, wrapped
// extensions (arguments_test.cpp).
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <dlfcn.h>

#include <cstdlib>

#include "app_support.hpp"

namespace shim_test {
namespace {

// Object ids: a handle the driver reuses after a release must get a new id; sub-buffers,
// NULL buffers and never-set arguments are recorded as such.
int scenario_ids(const ScenarioArgs&) {
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
  cl_mem sub =
      clCreateSubBuffer(cl.a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &rc);
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
  say("unset_rc",
      clEnqueueNDRangeKernel(cl.queue, k3, 1, nullptr, &gws, nullptr, 0, nullptr, nullptr));
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

// 8-byte scalar arguments whose value is, or later becomes, a buffer's handle: the shim
// caches "not a buffer" answers per thread, and a buffer created at that address must end
// that (docs/trace-format.md: a value equal to a live cl_mem reads as that buffer).
int scenario_scalar64(const ScenarioArgs&) {
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

// Extensions the shim wraps: memory imported with cl_arm_import_memory (Arm NN's zero-copy
// tensors), through every lookup, is a buffer of the imported size as a kernel argument;
// a cl_intel_unified_shared_memory pointer argument is a pointer, like an SVM one.
int scenario_import_memory(const ScenarioArgs&) {
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

}  // namespace

const ScenarioList kArgumentsScenarios = {
    {"ids", scenario_ids},
    {"scalar64", scenario_scalar64},
    {"import_memory", scenario_import_memory},
};

}  // namespace shim_test
