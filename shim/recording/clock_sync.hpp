// Estimating a device clock's offset from the host clock: the enqueue_bracket estimate
// (clprof/clock_bracket.hpp) and one device-timer reading bracketed by host readings.
// Plain arithmetic, unit-tested.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "clprof/clock_bracket.hpp"

namespace clprof::shim {

// The enqueue_bracket estimate (shared with the analyzer: include/clprof/clock_bracket.hpp).
using clprof::BracketEstimator;

// The offset from one device-timer reading bracketed by two host readings:
// host_ns = device_ns + offset. Uncertainty is half the bracket.
struct TimerSample {
  std::int64_t offset_ns;
  std::int64_t uncertainty_ns;
};
inline TimerSample offset_from_bracket(std::int64_t host_before_ns, std::int64_t host_after_ns,
                                       std::uint64_t device_ns) {
  const std::int64_t mid = host_before_ns + (host_after_ns - host_before_ns) / 2;
  return {mid - static_cast<std::int64_t>(device_ns), (host_after_ns - host_before_ns + 1) / 2};
}

}  // namespace clprof::shim
