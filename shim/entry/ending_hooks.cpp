// The endings that run no exit handler, interposed so that the trace is written first
// (runtime/lifecycle.hpp, end_abruptly): _exit and _Exit. quick_exit needs no interposer:
// the lifecycle's at_quick_exit handler runs after the app's own. And the calls that set
// a signal's disposition (sigaction, signal, bsd_signal, sysv_signal): for the signals the
// shim catches, the app's disposition is kept beside the shim's handler and read back
// unchanged (runtime/fatal_signals.hpp); every other signal goes straight to libc.
//
// Every one of these may run in a signal handler or in a vfork child: nothing here
// allocates, locks or writes memory the parent could see (the lifecycle checks the pid).
#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/fatal_signals.hpp"
#include "runtime/lifecycle.hpp"

namespace {

// Sanitizer runtimes resolve and call sigaction while they set themselves up, before
// their shadow memory exists (matters for sanitizer builds of the shim only).
#define CLPROF_NO_SANITIZE __attribute__((no_sanitize("address", "undefined", "thread")))

using ExitFn = void (*)(int);
using SignalFn = sighandler_t (*)(int, sighandler_t);

// libc's _exit, found at load: _exit may be called in a signal handler, where dlsym may
// not. libc's own, not the next definition after the shim's: from the shim loaded as a
// layer, that is a sanitizer runtime's interceptor in a sanitizer build (its dependency),
// which runs exit-time checks the app's own _exit would not have run. (Null only if libc
// lacked it: the system call is the fallback.)
ExitFn g_real_exit = nullptr;
__attribute__((constructor)) void find_real_exit() {
  if (void* libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD)) {
    g_real_exit = reinterpret_cast<ExitFn>(dlsym(libc, "_exit"));
  }
  if (!g_real_exit) g_real_exit = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, "_exit"));
}

[[noreturn]] void exit_now(int status) {
  if (g_real_exit) g_real_exit(status);
  for (;;) syscall(SYS_exit_group, status);
}

// libc's definition of a signal() flavour, looked up on each call (rare; a vfork child
// may call it).
CLPROF_NO_SANITIZE SignalFn next_signal_fn(const char* name) {
  return reinterpret_cast<SignalFn>(dlsym(RTLD_NEXT, name));
}

// signal()'s flavours for a caught signal, as glibc builds them: BSD semantics (the
// handler stays, the signal is blocked while it runs, system calls restart) or System V
// (the handler is reset to SIG_DFL when it runs, the signal is not blocked). Returns
// false when `sig` is not caught (the caller forwards the call).
CLPROF_NO_SANITIZE bool app_signal(int sig, sighandler_t handler, bool bsd, sighandler_t& old) {
  struct sigaction act;
  std::memset(static_cast<void*>(&act), 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (bsd) {
    sigaddset(&act.sa_mask, sig);
    act.sa_flags = SA_RESTART;
  } else {
    act.sa_flags = SA_RESETHAND | SA_NODEFER;
  }
  struct sigaction previous;
  std::memset(static_cast<void*>(&previous), 0, sizeof previous);
  int rc = 0;
  if (!clprof::shim::app_sigaction(sig, &act, &previous, &rc)) return false;
  old = rc == 0 ? previous.sa_handler : SIG_ERR;
  return true;
}

CLPROF_NO_SANITIZE sighandler_t signal_flavour(const char* name, int sig, sighandler_t handler,
                                               bool bsd) {
  sighandler_t old = SIG_ERR;
  if (app_signal(sig, handler, bsd, old)) return old;
  const SignalFn next = next_signal_fn(name);
  if (!next) {
    errno = ENOSYS;
    return SIG_ERR;
  }
  return next(sig, handler);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void _exit(int status) {
  clprof::shim::end_abruptly(0);
  exit_now(status);
}

__attribute__((visibility("default"))) void _Exit(int status) {
  clprof::shim::end_abruptly(0);
  exit_now(status);
}

__attribute__((visibility("default"))) CLPROF_NO_SANITIZE int sigaction(
    int sig, const struct sigaction* act, struct sigaction* old) noexcept {
  int rc = 0;
  if (clprof::shim::app_sigaction(sig, act, old, &rc)) return rc;
  return clprof::shim::real_sigaction(sig, act, old);
}

__attribute__((visibility("default"))) CLPROF_NO_SANITIZE sighandler_t
signal(int sig, sighandler_t handler) noexcept {
  return signal_flavour("signal", sig, handler, /*bsd=*/true);
}

__attribute__((visibility("default"))) CLPROF_NO_SANITIZE sighandler_t
bsd_signal(int sig, sighandler_t handler) noexcept {
  return signal_flavour("bsd_signal", sig, handler, /*bsd=*/true);
}

__attribute__((visibility("default"))) CLPROF_NO_SANITIZE sighandler_t
sysv_signal(int sig, sighandler_t handler) noexcept {
  return signal_flavour("sysv_signal", sig, handler, /*bsd=*/false);
}

}  // extern "C"
