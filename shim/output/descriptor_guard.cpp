#include "output/descriptor_guard.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace clprof::shim {
namespace {

// Every access below is sequentially consistent (the default): the handshake needs the
// store-then-load order on both sides, which acquire/release alone does not give.
std::atomic<int> g_fd{-1};              // the guarded descriptor, or -1
std::atomic<pid_t> g_owner{0};          // the process that guarded it
std::atomic<bool> g_taken{false};       // the app closed or replaced it
std::atomic<int> g_in_use{0};           // a use is announced (0 or 1: one writer)
std::atomic<std::uintptr_t> g_user{0};  // the thread of the announced use

std::uintptr_t this_thread() {
  return static_cast<std::uintptr_t>(pthread_self());
}

}  // namespace

void guard_descriptor(int fd) {
  g_fd.store(-1);
  g_taken.store(false);
  g_in_use.store(0);
  g_owner.store(getpid());
  g_fd.store(fd);
}

void unguard_descriptor(int fd) {
  int expected = fd;
  g_fd.compare_exchange_strong(expected, -1);
}

DescriptorUse::DescriptorUse(int fd) {
  if (fd < 0 || g_fd.load() != fd) return;  // not the guarded one: the fstat check only
  g_user.store(this_thread());
  g_in_use.store(1);
  announced_ = true;
  if (g_taken.load()) allowed_ = false;
}

DescriptorUse::~DescriptorUse() {
  if (announced_) g_in_use.store(0);
}

bool is_trace_descriptor(int fd) {
  return fd >= 0 && g_fd.load() == fd;
}

void before_app_closes(unsigned first, unsigned last) {
  const int fd = g_fd.load();
  if (fd < 0 || static_cast<unsigned>(fd) < first || static_cast<unsigned>(fd) > last) return;
  if (getpid() != g_owner.load()) return;  // a child's copy of the descriptor table
  g_taken.store(true);
  // The writer's own thread, in a signal handler that interrupted its use: waiting would
  // never end, and the interrupted system call has already returned or will fail.
  if (g_in_use.load() == 0 || g_user.load() == this_thread()) return;
  for (long waited_us = 0; g_in_use.load() != 0 && waited_us < kMaxWaitMs * 1000;) {
    const long step_us = waited_us < 1000 ? 20 : 1000;  // a write usually ends in microseconds
    const timespec pause{0, step_us * 1000};
    nanosleep(&pause, nullptr);
    waited_us += step_us;
  }
}

}  // namespace clprof::shim
