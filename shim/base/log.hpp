// The shim's own stderr messages ("clprof: ..."), filtered by CLPROF_LOG_LEVEL.
// No spdlog: nothing here can collide with an app's logging set-up.
#pragma once

#include "base/settings.hpp"

namespace clprof::shim {

// Sets the threshold; messages below it are dropped. Threads: any.
void set_log_level(LogLevel level);

// printf-style message at `level`, written with one write(2). Threads: any;
// allocation-free (formats into a stack buffer, truncating at 1 KiB).
void log_message(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// A warning printed at most once per process (for "running untouched" notices).
void log_once_warn(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace clprof::shim
