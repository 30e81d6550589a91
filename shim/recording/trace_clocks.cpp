#include "recording/trace_clocks.hpp"

#include <climits>

namespace clprof::shim {

// A rough first slope from a short wait on the starting thread (the app's, in its first
// OpenCL call): good for times close to it. The harvester waits until kFirstBaselineNs
// have passed (asleep, on its own thread) and adds a point before it converts a record.
void TraceClocks::start() {
  calibrate(true);
  start_ns_ = monotonic_now_ns();
  const std::int64_t until_ns = start_ns_ + kRoughBaselineNs;
  while (monotonic_now_ns() < until_ns) {
  }
  calibrate(false);
}

void TraceClocks::calibrate(bool first) {
  // The pair read closest together brackets the ticks best.
  std::int64_t best_gap = INT64_MAX, mid_ns = 0;
  std::uint64_t ticks = 0;
  for (int i = 0; i < 5; ++i) {
    const std::int64_t a = monotonic_now_ns();
    const std::uint64_t t = host_ticks_now();
    const std::int64_t b = monotonic_now_ns();
    if (b - a < best_gap) {
      best_gap = b - a;
      mid_ns = a + (b - a) / 2;
      ticks = t;
    }
  }
  if (first) {
    ticks_.reset(!g_ticks_are_tsc.load(), ticks, mid_ns);
  } else {
    ticks_.add_point(ticks, mid_ns);
  }
}

}  // namespace clprof::shim
