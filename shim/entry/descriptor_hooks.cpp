// The calls that close or replace descriptors (close, dup2, dup3, close_range, closefrom),
// interposed so that an app closing the trace's descriptor waits for a write in progress
// and the trace writes nothing more to that number (output/descriptor_guard.hpp). Every
// other descriptor goes straight to the next definition (libc's, or a sanitizer
// runtime's interceptor), at the cost of one atomic load.
//
// These may run in a signal handler or a vfork child: nothing here allocates or locks.
// The next definitions are looked up once, at load; a call before that (another
// library's constructor) makes the system call itself.
//
// No <unistd.h>: its prototypes carry exception specifications these definitions need not
// repeat; the C ABI is all that matters here.
#include <asm/unistd.h>  // __NR_*: glibc before 2.34 (Debian 11) has no __NR_close_range
#include <dlfcn.h>
#include <fcntl.h>

#include <climits>

#include "output/descriptor_guard.hpp"

extern "C" {
long syscall(long number, ...) noexcept;
int close(int fd);
int dup2(int oldfd, int newfd);
int dup3(int oldfd, int newfd, int flags);
int close_range(unsigned first, unsigned last, int flags);
void closefrom(int lowfd);
}

#ifndef __NR_close_range
#define __NR_close_range 436  // one number on every architecture (Linux 5.9)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)  // <linux/close_range.h>, Linux 5.11
#endif

namespace {

using CloseFn = int (*)(int);
using Dup2Fn = int (*)(int, int);
using Dup3Fn = int (*)(int, int, int);
using CloseRangeFn = int (*)(unsigned, unsigned, int);
using CloseFromFn = void (*)(int);

CloseFn g_close = nullptr;
Dup2Fn g_dup2 = nullptr;
Dup3Fn g_dup3 = nullptr;
CloseRangeFn g_close_range = nullptr;
CloseFromFn g_closefrom = nullptr;

// Never the shim's own definition (a layer's lookup could in principle come back to it):
// that would recurse.
template <typename Fn>
void find_next(Fn& fn, const char* name, Fn own) {
  fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (fn == own) fn = nullptr;
}

__attribute__((constructor)) void find_next_descriptor_calls() {
  find_next(g_close, "close", &close);
  find_next(g_dup2, "dup2", &dup2);
  find_next(g_dup3, "dup3", &dup3);
  find_next(g_close_range, "close_range", &close_range);
  find_next(g_closefrom, "closefrom", &closefrom);
}

bool is_open(int fd) {
  return fcntl(fd, F_GETFD) != -1;
}

// dup2 and dup3 replace `newfd` only when `oldfd` is open (else EBADF, nothing closed). The
// fcntl that tells is made only when `newfd` is the trace's: an app's dup2 costs one
// atomic load more, not a system call.
void before_app_replaces(int oldfd, int newfd) {
  if (oldfd != newfd && clprof::shim::is_trace_descriptor(newfd) && is_open(oldfd))
    clprof::shim::before_app_closes(static_cast<unsigned>(newfd), static_cast<unsigned>(newfd));
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int close(int fd) {
  if (fd >= 0)
    clprof::shim::before_app_closes(static_cast<unsigned>(fd), static_cast<unsigned>(fd));
  if (g_close) return g_close(fd);
  return static_cast<int>(syscall(__NR_close, fd));
}

__attribute__((visibility("default"))) int dup2(int oldfd, int newfd) {
  before_app_replaces(oldfd, newfd);
  if (g_dup2) return g_dup2(oldfd, newfd);
  if (oldfd == newfd) return is_open(oldfd) ? newfd : -1;  // what dup2 does (dup3 fails)
  return static_cast<int>(syscall(__NR_dup3, oldfd, newfd, 0));
}

__attribute__((visibility("default"))) int dup3(int oldfd, int newfd, int flags) {
  before_app_replaces(oldfd, newfd);
  if (g_dup3) return g_dup3(oldfd, newfd, flags);
  return static_cast<int>(syscall(__NR_dup3, oldfd, newfd, flags));
}

__attribute__((visibility("default"))) int close_range(unsigned first, unsigned last, int flags) {
  // CLOSE_RANGE_CLOEXEC only marks them; an invalid range closes nothing.
  if (!(flags & CLOSE_RANGE_CLOEXEC) && first <= last) clprof::shim::before_app_closes(first, last);
  if (g_close_range) return g_close_range(first, last, flags);
  return static_cast<int>(syscall(__NR_close_range, first, last, flags));
}

__attribute__((visibility("default"))) void closefrom(int lowfd) {
  if (lowfd >= 0) clprof::shim::before_app_closes(static_cast<unsigned>(lowfd), UINT_MAX);
  if (g_closefrom) return g_closefrom(lowfd);
  syscall(__NR_close_range, lowfd < 0 ? 0U : static_cast<unsigned>(lowfd), UINT_MAX, 0);
}

}  // extern "C"
