// The host clock of the trace: CLOCK_MONOTONIC in ns (vDSO, no syscall), relative to the
// trace's origin in records; and the cheap ticks the enqueue path reads instead.
#pragma once

#include <time.h>

#include <cstdint>

namespace clprof::shim {

// Absolute CLOCK_MONOTONIC now, ns. Threads: any; allocation- and syscall-free.
inline std::int64_t monotonic_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// CLOCK_REALTIME now, ns since the epoch.
inline std::int64_t unix_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// The trace's origin: CLOCK_MONOTONIC ns when this process's trace started
// (header.host_start_ns). Set once by the start-up (runtime/lifecycle.cpp) before any
// record is taken, read after recording_active() said so (which orders the two).
inline std::int64_t g_trace_origin_ns = 0;

// A CLOCK_MONOTONIC time on the trace's host clock (relative to the origin), ns.
inline std::int64_t to_trace_ns(std::int64_t monotonic_ns) {
  return monotonic_ns - g_trace_origin_ns;
}

}  // namespace clprof::shim

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <atomic>

namespace clprof::shim {

// Cheap host timestamps for the enqueue path. clock_gettime costs ~80 ns on some VMs;
// where the kernel itself uses the TSC as clocksource (constant, nonstop), reading
// the TSC (~10-30 ns) and converting later on the harvester is equivalent. Elsewhere
// ticks are CLOCK_MONOTONIC ns and the conversion is the identity.
inline std::atomic<bool> g_ticks_are_tsc{false};

// Host ticks now. Threads: any; allocation- and syscall-free.
inline std::uint64_t host_ticks_now() {
#if defined(__x86_64__) || defined(__i386__)
  if (g_ticks_are_tsc.load(std::memory_order_relaxed)) return __rdtsc();
#endif
  return static_cast<std::uint64_t>(monotonic_now_ns());
}

// Linear ticks -> CLOCK_MONOTONIC ns map: slope from the longest baseline seen
// (first point to latest), anchored at the latest point so the slope's error only
// scales with the distance to it. Not thread-safe: one owner (the harvester).
class TickConverter {
 public:
  // identity: ticks already are ns.
  void reset(bool identity, std::uint64_t ticks, std::int64_t mono_ns) {
    identity_ = identity;
    first_ticks_ = last_ticks_ = ticks;
    first_ns_ = last_ns_ = mono_ns;
    ns_per_tick_ = 1.0;
  }
  // Adds a calibration point (ticks and CLOCK_MONOTONIC read together).
  void add_point(std::uint64_t ticks, std::int64_t mono_ns) {
    if (identity_ || ticks <= first_ticks_) return;
    ns_per_tick_ =
        static_cast<double>(mono_ns - first_ns_) / static_cast<double>(ticks - first_ticks_);
    last_ticks_ = ticks;
    last_ns_ = mono_ns;
  }
  // Sets the slope directly (initial calibration).
  void set_slope(double ns_per_tick) { ns_per_tick_ = ns_per_tick; }
  std::int64_t to_monotonic_ns(std::uint64_t ticks) const {
    if (identity_) return static_cast<std::int64_t>(ticks);
    const double delta = ticks >= last_ticks_ ? static_cast<double>(ticks - last_ticks_)
                                              : -static_cast<double>(last_ticks_ - ticks);
    return last_ns_ + static_cast<std::int64_t>(delta * ns_per_tick_);
  }
  double ns_per_tick() const { return ns_per_tick_; }

 private:
  bool identity_ = true;
  std::uint64_t first_ticks_ = 0, last_ticks_ = 0;
  std::int64_t first_ns_ = 0, last_ns_ = 0;
  double ns_per_tick_ = 1.0;
};

}  // namespace clprof::shim
