// The condition variable of the shim's own threads: std::condition_variable's interface
// (the parts used here), its timed waits measured on CLOCK_MONOTONIC by
// pthread_cond_timedwait on a condition whose clock attribute is CLOCK_MONOTONIC.
//
// Why not std::condition_variable: on glibc 2.30 and later, libstdc++ 10 and later
// implement wait_for with pthread_cond_clockwait, which ThreadSanitizer runtimes before
// GCC 11's (libtsan.so.0: Debian 11, Ubuntu 20.04) do not intercept. In an app built with
// such a runtime, which also sees the shim's mutex calls, the mutex released inside that
// wait looks still held, and the next lock of it is reported as a "double lock" in the
// app's run. Every ThreadSanitizer runtime intercepts pthread_cond_timedwait.
#pragma once

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace clprof::shim {

// Threads: any; the waits take a std::unique_lock the caller holds (as std::condition_variable).
class MonotonicCondition {
 public:
  MonotonicCondition() {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&cond_, &attr);
    pthread_condattr_destroy(&attr);
  }
  ~MonotonicCondition() { pthread_cond_destroy(&cond_); }
  MonotonicCondition(const MonotonicCondition&) = delete;
  MonotonicCondition& operator=(const MonotonicCondition&) = delete;

  void notify_one() { pthread_cond_signal(&cond_); }
  void notify_all() { pthread_cond_broadcast(&cond_); }

  // Until notified, `timeout` passed or a spurious wake-up.
  void wait_for(std::unique_lock<std::mutex>& lock, std::chrono::nanoseconds timeout) {
    wait_until(lock, deadline_after(timeout));
  }
  // Until pred() holds (true) or `timeout` passed (pred() then).
  template <class Predicate>
  bool wait_for(std::unique_lock<std::mutex>& lock, std::chrono::nanoseconds timeout,
                Predicate pred) {
    const timespec deadline = deadline_after(timeout);
    while (!pred()) {
      if (!wait_until(lock, deadline)) return pred();
    }
    return true;
  }
  // Until pred() holds.
  template <class Predicate>
  void wait(std::unique_lock<std::mutex>& lock, Predicate pred) {
    while (!pred()) pthread_cond_wait(&cond_, lock.mutex()->native_handle());
  }

 private:
  static timespec deadline_after(std::chrono::nanoseconds timeout) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const std::int64_t ns =
        static_cast<std::int64_t>(now.tv_nsec) + std::max<std::int64_t>(timeout.count(), 0);
    timespec deadline;
    deadline.tv_sec = now.tv_sec + static_cast<time_t>(ns / 1000000000);
    deadline.tv_nsec = static_cast<long>(ns % 1000000000);
    return deadline;
  }
  // False once the deadline has passed.
  bool wait_until(std::unique_lock<std::mutex>& lock, const timespec& deadline) {
    return pthread_cond_timedwait(&cond_, lock.mutex()->native_handle(), &deadline) != ETIMEDOUT;
  }

  pthread_cond_t cond_;
};

}  // namespace clprof::shim
