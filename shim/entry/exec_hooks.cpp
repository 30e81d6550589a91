// The exec*() family, interposed so that a program image that used OpenCL finishes its
// trace before exec replaces it (else the file ends like a killed process's and the next
// image, same pid, would pick the same name). glibc's exec functions call the system call
// directly, not each other through the PLT, so each one is hooked; posix_spawn, system and
// popen start a new process and need nothing.
//
// No <unistd.h>: its prototypes carry exception specifications and attributes these
// definitions need not repeat; the C ABI is all that matters here.
#include <dlfcn.h>
#include <errno.h>

#include <cstdarg>

#include "runtime/lifecycle.hpp"

namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvFn = int (*)(const char*, char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);

// The next definition of `name` (libc's). Looked up on every call: exec is rare, and a
// vfork child must not write to memory it shares with its parent (no caching statics).
template <typename Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

int missing() {
  errno = ENOSYS;
  return -1;
}

// Counts the arguments of an execl-style call: `first` and those after it in `ap`, up to
// the terminating NULL (`ap` itself is not advanced).
std::size_t count_args(const char* first, va_list ap) {
  if (!first) return 0;
  std::size_t n = 1;
  va_list copy;
  va_copy(copy, ap);
  while (va_arg(copy, const char*)) ++n;
  va_end(copy);
  return n;
}

// Fills argv (n + 1 entries) from `first` and the variadic list; leaves `ap` after the NULL.
void fill_args(char** argv, std::size_t n, const char* first, va_list& ap) {
  if (n == 0) {
    argv[0] = nullptr;
    return;
  }
  argv[0] = const_cast<char*>(first);
  for (std::size_t i = 1; i < n; ++i) argv[i] = va_arg(ap, char*);
  argv[n] = nullptr;
  static_cast<void>(va_arg(ap, char*));  // the terminating NULL
}

// Calls `exec(argv)` with the argv of an execl-style call (`first`, then `ap` up to its
// NULL) built in this frame (alloca), leaving `ap` just after the NULL.
template <typename Exec>
int with_list_argv(const char* first, va_list& ap, Exec exec) {
  const std::size_t n = count_args(first, ap);
  char** argv = static_cast<char**>(__builtin_alloca((n + 1) * sizeof(char*)));
  fill_args(argv, n, first, ap);
  return exec(argv);
}

// Ends the trace, then calls libc's `name`. The list forms call this, not the exported
// vector forms: from the shim loaded as a layer (after libc in the lookup), a call to its
// own exported execv binds to libc's and would skip the trace's end.
template <typename Fn, typename... Args>
int finish_then(const char* name, Args... args) {
  clprof::shim::finish_before_exec();
  const auto real = next<Fn>(name);
  return real ? real(args...) : missing();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                  char* const envp[]) {
  return finish_then<ExecveFn>("execve", path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) {
  return finish_then<ExecvFn>("execv", path, argv);
}

__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) {
  return finish_then<ExecvFn>("execvp", file, argv);
}

__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                   char* const envp[]) {
  return finish_then<ExecveFn>("execvpe", file, argv, envp);
}

__attribute__((visibility("default"))) int fexecve(int fd, char* const argv[], char* const envp[]) {
  return finish_then<FexecveFn>("fexecve", fd, argv, envp);
}

// The list forms build their argv on the stack (no allocation: a vfork child may call
// them) and go on as the vector forms.
__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  const int rc = with_list_argv(
      arg, ap, [&](char** argv) { return finish_then<ExecvFn>("execv", path, argv); });
  va_end(ap);
  return rc;
}

__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  const int rc = with_list_argv(
      arg, ap, [&](char** argv) { return finish_then<ExecvFn>("execvp", file, argv); });
  va_end(ap);
  return rc;
}

__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  const int rc = with_list_argv(arg, ap, [&](char** argv) {
    char* const* envp = va_arg(ap, char* const*);  // after the list's NULL
    return finish_then<ExecveFn>("execve", path, argv, envp);
  });
  va_end(ap);
  return rc;
}

}  // extern "C"
