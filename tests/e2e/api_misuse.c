// An app that misuses the OpenCL API on purpose: NULL objects, missing pointers, bad sizes
// and indices, for every call the shim hooks. Each call's result is printed one per line
// ("<call> <rc>"). The e2e test runs it bare and under libclprof.so and requires the same
// output (the app must never notice the shim, even when it errs) and a trace that loads,
// with one not-enqueued record per failed launch or transfer, its rc the app's.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#define P(x) printf("%s %d\n", #x, (int)(x))
int main(void) {
  cl_platform_id p;
  cl_device_id d;
  cl_int rc = 0;
  P(clGetPlatformIDs(0, NULL, NULL));
  P(clGetPlatformIDs(1, &p, NULL));
  P(clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 0, NULL, NULL));
  P(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
  P(clGetDeviceInfo(NULL, CL_DEVICE_NAME, 0, NULL, NULL));
  P(clGetPlatformInfo(p, 0, 0, NULL, NULL));
  cl_context bad_ctx = clCreateContext(NULL, 0, NULL, NULL, NULL, &rc);
  P(rc);
  P(bad_ctx == NULL);
  cl_context c2 = clCreateContextFromType(NULL, 0, NULL, NULL, &rc);
  P(rc);
  (void)c2;
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &rc);
  P(rc);
  cl_command_queue bq = clCreateCommandQueue(NULL, d, 0, &rc);
  P(rc);
  P(bq == NULL);
  bq = clCreateCommandQueueWithProperties(c, NULL, NULL, &rc);
  P(rc);
  cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &rc);
  P(rc);
  P(clGetCommandQueueInfo(NULL, CL_QUEUE_PROPERTIES, 0, NULL, NULL));
  cl_queue_properties qp;
  P(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
  P((int)qp);
  cl_program bp = clCreateProgramWithSource(c, 0, NULL, NULL, &rc);
  P(rc);
  (void)bp;
  bp = clCreateProgramWithSource(NULL, 1, NULL, NULL, &rc);
  P(rc);
  bp = clCreateProgramWithBinary(c, 0, NULL, NULL, NULL, NULL, &rc);
  P(rc);
  bp = clCreateProgramWithIL(c, NULL, 0, &rc);
  P(rc);
  bp = clCreateProgramWithBuiltInKernels(c, 0, NULL, NULL, &rc);
  P(rc);
  P(clBuildProgram(NULL, 0, NULL, NULL, NULL, NULL));
  P(clCompileProgram(NULL, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL));
  cl_program lp = clLinkProgram(c, 0, NULL, NULL, 0, NULL, NULL, NULL, &rc);
  P(rc);
  (void)lp;
  const char* src = "kernel void k(global int* a, int n) { a[0] = n; }";
  cl_program pr = clCreateProgramWithSource(c, 1, &src, NULL, &rc);
  P(rc);
  P(clBuildProgram(pr, 1, &d, "-DX=1", NULL, NULL));
  cl_kernel bk = clCreateKernel(pr, "nope", &rc);
  P(rc);
  (void)bk;
  bk = clCreateKernel(NULL, "k", &rc);
  P(rc);
  bk = clCreateKernel(pr, NULL, &rc);
  P(rc);
  P(clCreateKernelsInProgram(NULL, 0, NULL, NULL));
  cl_uint nk = 0;
  P(clCreateKernelsInProgram(pr, 0, NULL, &nk));
  bk = clCloneKernel(NULL, &rc);
  P(rc);
  P(clReleaseKernel(NULL));
  cl_kernel k = clCreateKernel(pr, "k", &rc);
  P(rc);
  P(clSetKernelArg(NULL, 0, 4, &rc));
  P(clSetKernelArg(k, 99, 4, &rc));
  P(clSetKernelArg(k, 1, 0, NULL));
  P(clSetKernelArgSVMPointer(k, 0, NULL));
  cl_mem bm = clCreateBuffer(c, 0, 0, NULL, &rc);
  P(rc);
  (void)bm;
  bm = clCreateBuffer(NULL, 0, 16, NULL, &rc);
  P(rc);
  bm = clCreateBufferWithProperties(c, NULL, 0, 0, NULL, &rc);
  P(rc);
  bm = clCreateSubBuffer(NULL, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &rc);
  P(rc);
  bm = clCreateImage(c, 0, NULL, NULL, NULL, &rc);
  P(rc);
  bm = clCreateImageWithProperties(c, NULL, 0, NULL, NULL, NULL, &rc);
  P(rc);
  bm = clCreatePipe(c, 0, 0, 0, NULL, &rc);
  P(rc);
  P(clReleaseMemObject(NULL));
  cl_sampler bs = clCreateSampler(NULL, 0, 0, 0, &rc);
  P(rc);
  (void)bs;
  bs = clCreateSamplerWithProperties(NULL, NULL, &rc);
  P(rc);
  cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &rc);
  P(rc);
  size_t g = 1;
  P(clEnqueueNDRangeKernel(NULL, k, 1, NULL, &g, NULL, 0, NULL, NULL));
  P(clEnqueueNDRangeKernel(q, k, 0, NULL, NULL, NULL, 0, NULL, NULL));
  P(clEnqueueNDRangeKernel(q, k, 7, NULL, NULL, NULL, 0, NULL, NULL));
  P(clEnqueueNDRangeKernel(q, k, 1, NULL, NULL, NULL, 0, NULL, NULL));
  P(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 1, NULL, NULL));
  P(clEnqueueTask(NULL, k, 0, NULL, NULL));
  // (No launch without a kernel: PoCL 3.1 crashes on it, bare. The fake driver test
  // "ids" covers that one.)
  int buf[16];
  P(clEnqueueReadBuffer(q, NULL, CL_TRUE, 0, 4, buf, 0, NULL, NULL));
  P(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4096, buf, 0, NULL, NULL));
  P(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, NULL, 0, NULL, NULL));
  P(clEnqueueCopyBuffer(q, m, NULL, 0, 0, 4, 0, NULL, NULL));
  P(clEnqueueFillBuffer(q, m, NULL, 0, 0, 4, 0, NULL, NULL));
  P(clEnqueueReadBufferRect(q, m, CL_TRUE, NULL, NULL, NULL, 0, 0, 0, 0, buf, 0, NULL, NULL));
  P(clEnqueueWriteBufferRect(q, m, CL_TRUE, NULL, NULL, NULL, 0, 0, 0, 0, buf, 0, NULL, NULL));
  P(clEnqueueCopyBufferRect(q, m, m, NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL, NULL));
  P(clEnqueueReadImage(q, NULL, CL_TRUE, NULL, NULL, 0, 0, buf, 0, NULL, NULL));
  P(clEnqueueWriteImage(q, m, CL_TRUE, NULL, NULL, 0, 0, buf, 0, NULL, NULL));
  P(clEnqueueCopyImage(q, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL));
  P(clEnqueueFillImage(q, NULL, NULL, NULL, NULL, 0, NULL, NULL));
  P(clEnqueueCopyImageToBuffer(q, NULL, m, NULL, NULL, 0, 0, NULL, NULL));
  P(clEnqueueCopyBufferToImage(q, m, NULL, 0, NULL, NULL, 0, NULL, NULL));
  void* mp = clEnqueueMapBuffer(q, NULL, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &rc);
  printf("clEnqueueMapBuffer(q, NULL, ...) %d\n", rc);
  P(mp == NULL);
  mp = clEnqueueMapImage(q, NULL, CL_TRUE, CL_MAP_READ, NULL, NULL, NULL, NULL, 0, NULL, NULL, &rc);
  printf("clEnqueueMapImage(q, NULL, ...) %d\n", rc);
  P(clEnqueueUnmapMemObject(q, m, NULL, 0, NULL, NULL));
  P(clEnqueueSVMMemcpy(q, CL_TRUE, NULL, NULL, 4, 0, NULL, NULL));
  P(clEnqueueSVMMemFill(q, NULL, NULL, 0, 4, 0, NULL, NULL));
  P(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, NULL, 4, 0, NULL, NULL));
  P(clEnqueueSVMUnmap(q, NULL, 0, NULL, NULL));
  P(clFinish(NULL));
  P(clWaitForEvents(0, NULL));
  P(clWaitForEvents(1, NULL));
  P(clGetEventInfo(NULL, CL_EVENT_COMMAND_EXECUTION_STATUS, 0, NULL, NULL));
  P(clGetEventProfilingInfo(NULL, CL_PROFILING_COMMAND_END, 0, NULL, NULL));
  P(clGetExtensionFunctionAddress(NULL) == NULL);
  P(clGetExtensionFunctionAddressForPlatform(p, NULL) == NULL);
  P(clFinish(q));
  return 0;
}
