#include "recording/trace_clocks.hpp"

#include <climits>

namespace clprof::shim {

void TraceClocks::start() {
  calibrate(true);
  const std::int64_t until_ns = monotonic_now_ns() + 2000000;
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
