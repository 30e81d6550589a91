/* A program that loads libclprof.so with dlopen (as Python's ctypes or a plugin host does:
   the one way the shim reaches a setuid program, whose dynamic loader ignores LD_PRELOAD
   paths) and leaves one mark, which makes the shim read its settings and open its trace.
   settings_test.cpp runs a setuid copy of it. argv[1]: the library. Prints its effective
   uid; exit 0, or 1 when the library cannot be loaded, 2 on bad usage. */
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

typedef void (*MarkFn)(const char*);

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s LIBCLPROF\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  MarkFn mark = lib ? (MarkFn)dlsym(lib, "clprof_shim_mark_v1") : NULL;
  if (!mark) {
    fprintf(stderr, "cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  mark("secure_app");
  printf("euid %u\n", (unsigned)geteuid());
  return 0;
}
