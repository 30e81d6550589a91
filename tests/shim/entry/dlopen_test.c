/* libclprof.so loaded with dlopen, as the OpenCL loader loads a layer (OPENCL_LAYERS) and
   Python's ctypes.CDLL loads a library: glibc refuses a library whose static TLS does not
   fit its small reserve ("cannot allocate memory in static TLS block"). The library must
   load, show its marker ABI and unload. argv[1]: the library. Exit 0 on success. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s LIBCLPROF\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen failed: %s\n", dlerror());
    return 1;
  }
  if (!dlsym(lib, "clprof_shim_range_push_v1") || !dlsym(lib, "clEnqueueNDRangeKernel")) {
    fprintf(stderr, "libclprof.so loaded without its entry points\n");
    return 1;
  }
  if (dlclose(lib) != 0) {
    fprintf(stderr, "dlclose failed: %s\n", dlerror());
    return 1;
  }
  printf("dlopen ok\n");
  return 0;
}
