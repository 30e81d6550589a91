// The one list of OpenCL entry points clprof intercepts, and the table of the real
// functions they forward to. Types come from CL/cl.h through decltype(&::clX): no
// prototype is copied by hand. Another library's entry points (BLAS, issue 18) would get a
// list of their own beside this one, hooks of the same shape in entry/, and their names in
// exports.map.
#pragma once

#include <CL/cl.h>

// Entry points exported by libclprof.so (each has a hook in one hooks_*.cpp file).
#define CLPROF_HOOKED_FUNCTIONS(X)      \
  /* platform and device queries */     \
  X(clGetPlatformIDs)                   \
  X(clGetDeviceIDs)                     \
  /* contexts, queues, devices */       \
  X(clCreateContext)                    \
  X(clCreateContextFromType)            \
  X(clCreateCommandQueue)               \
  X(clCreateCommandQueueWithProperties) \
  X(clGetCommandQueueInfo)              \
  X(clRetainContext)                    \
  X(clReleaseContext)                   \
  X(clRetainCommandQueue)               \
  X(clReleaseCommandQueue)              \
  /* programs and kernels */            \
  X(clCreateProgramWithSource)          \
  X(clCreateProgramWithBinary)          \
  X(clCreateProgramWithIL)              \
  X(clCreateProgramWithBuiltInKernels)  \
  X(clBuildProgram)                     \
  X(clCompileProgram)                   \
  X(clLinkProgram)                      \
  X(clCreateKernel)                     \
  X(clCreateKernelsInProgram)           \
  X(clCloneKernel)                      \
  X(clReleaseKernel)                    \
  X(clRetainKernel)                     \
  X(clRetainProgram)                    \
  X(clReleaseProgram)                   \
  X(clSetKernelArg)                     \
  X(clSetKernelArgSVMPointer)           \
  /* memory objects and samplers */     \
  X(clCreateBuffer)                     \
  X(clCreateBufferWithProperties)       \
  X(clCreateSubBuffer)                  \
  X(clCreateImage)                      \
  X(clCreateImageWithProperties)        \
  X(clCreateImage2D)                    \
  X(clCreateImage3D)                    \
  X(clCreatePipe)                       \
  X(clReleaseMemObject)                 \
  X(clRetainMemObject)                  \
  X(clCreateSampler)                    \
  X(clCreateSamplerWithProperties)      \
  X(clRetainSampler)                    \
  X(clReleaseSampler)                   \
  /* launches */                        \
  X(clEnqueueNDRangeKernel)             \
  X(clEnqueueTask)                      \
  /* transfers */                       \
  X(clEnqueueReadBuffer)                \
  X(clEnqueueWriteBuffer)               \
  X(clEnqueueCopyBuffer)                \
  X(clEnqueueFillBuffer)                \
  X(clEnqueueReadBufferRect)            \
  X(clEnqueueWriteBufferRect)           \
  X(clEnqueueCopyBufferRect)            \
  X(clEnqueueReadImage)                 \
  X(clEnqueueWriteImage)                \
  X(clEnqueueCopyImage)                 \
  X(clEnqueueFillImage)                 \
  X(clEnqueueCopyImageToBuffer)         \
  X(clEnqueueCopyBufferToImage)         \
  X(clEnqueueMapBuffer)                 \
  X(clEnqueueMapImage)                  \
  X(clEnqueueUnmapMemObject)            \
  X(clEnqueueSVMMemcpy)                 \
  X(clEnqueueSVMMemFill)                \
  X(clEnqueueSVMMap)                    \
  X(clEnqueueSVMUnmap)                  \
  /* synchronisation and events */      \
  X(clFinish)                           \
  X(clWaitForEvents)                    \
  X(clGetEventInfo)                     \
  X(clGetEventProfilingInfo)            \
  X(clCreateUserEvent)                  \
  X(clRetainEvent)                      \
  X(clReleaseEvent)                     \
  /* extension lookup */                \
  X(clGetExtensionFunctionAddress)      \
  X(clGetExtensionFunctionAddressForPlatform)

// Real entry points the shim calls itself but does not intercept.
#define CLPROF_FORWARDED_FUNCTIONS(X) \
  X(clGetPlatformInfo)                \
  X(clGetDeviceInfo)                  \
  X(clGetDeviceAndHostTimer)          \
  X(clGetContextInfo)                 \
  X(clGetProgramInfo)                 \
  X(clGetProgramBuildInfo)            \
  X(clGetKernelInfo)                  \
  X(clGetKernelArgInfo)               \
  X(clGetMemObjectInfo)               \
  X(clGetImageInfo)                   \
  X(clGetSamplerInfo)                 \
  X(clGetKernelWorkGroupInfo)

namespace clprof::shim {

// Pointers to the real OpenCL functions, one member per entry point, named like it.
// Filled once by resolve_real_opencl(); a function the library lacks points to a stub
// that returns CL_INVALID_PLATFORM (or NULL, setting errcode_ret), never nullptr.
// Threads: read-only after resolution.
struct RealTable {
#define CLPROF_REAL_MEMBER(name) decltype(&::name) name = nullptr;
  CLPROF_HOOKED_FUNCTIONS(CLPROF_REAL_MEMBER)
  CLPROF_FORWARDED_FUNCTIONS(CLPROF_REAL_MEMBER)
#undef CLPROF_REAL_MEMBER
};

}  // namespace clprof::shim

// Marks a definition as part of libclprof.so's exported ABI (the rest is hidden).
#define CLPROF_EXPORT extern "C" __attribute__((visibility("default")))
