// A library preloaded ahead of libclprof.so in one test: pthread_create fails with
// EAGAIN (as it does when a process is out of threads or memory) for calls made from
// libclprof.so, and works for everyone else. Root ignores RLIMIT_NPROC, so this is how
// the test makes the shim's own thread start fail.
#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <cstring>

extern "C" __attribute__((visibility("default"))) int pthread_create(pthread_t* thread,
                                                                     const pthread_attr_t* attr,
                                                                     void* (*start)(void*),
                                                                     void* arg) {
  Dl_info info{};
  if (dladdr(__builtin_return_address(0), &info) != 0 && info.dli_fname != nullptr &&
      std::strstr(info.dli_fname, "libclprof") != nullptr) {
    return EAGAIN;
  }
  using Fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "pthread_create"));
  return real ? real(thread, attr, start, arg) : EAGAIN;
}
