#include "base/log.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>

namespace clprof::shim {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::Warn)};
std::atomic<bool> g_warned_once{false};

void vlog(const char* fmt, va_list ap) {
  char buf[1024];
  int n = std::snprintf(buf, sizeof buf, "clprof: ");
  const int m = std::vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
  n += m < 0
           ? 0
           : (m > static_cast<int>(sizeof buf) - n - 2 ? static_cast<int>(sizeof buf) - n - 2 : m);
  buf[n++] = '\n';
  // Best effort: stderr may be closed; the app must not notice either way.
  ssize_t w = ::write(2, buf, static_cast<size_t>(n));
  (void)w;
}
}  // namespace

void set_log_level(LogLevel level) {
  g_level.store(static_cast<int>(level));
}

void log_message(LogLevel level, const char* fmt, ...) {
  if (level == LogLevel::Off || static_cast<int>(level) < g_level.load(std::memory_order_relaxed))
    return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void log_once_warn(const char* fmt, ...) {
  if (static_cast<int>(LogLevel::Warn) < g_level.load(std::memory_order_relaxed)) return;
  if (g_warned_once.exchange(true)) return;
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

}  // namespace clprof::shim
