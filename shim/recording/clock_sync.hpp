// Estimating a device clock's offset from the host clock without any device timer
// API ("enqueue_bracket"): a command's device `queued` time is taken inside the host
// interval of the enqueue call that created it. Plain arithmetic, unit-tested.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace clprof::shim {

// Intersection of the offset intervals [host_begin - queued, host_end - queued] over
// the commands seen (host = device + offset). Not thread-safe: one owner (harvester).
class BracketEstimator {
 public:
  // Adds one command. host_*_ns: host clock (relative), queued_device_ns: device clock.
  // An interval disjoint from the running intersection means the clocks drifted (or
  // the device stamps `queued` outside the call): the estimate restarts from it.
  void add(std::int64_t host_begin_ns, std::int64_t host_end_ns, std::uint64_t queued_device_ns) {
    const std::int64_t queued = static_cast<std::int64_t>(queued_device_ns);
    const std::int64_t lo = host_begin_ns - queued;
    const std::int64_t hi = host_end_ns - queued;
    if (samples_ == 0 || std::max(lo, lo_) > std::min(hi, hi_)) {
      lo_ = lo;
      hi_ = hi;
      if (samples_ != 0) ++restarts_;
    } else {
      lo_ = std::max(lo, lo_);
      hi_ = std::min(hi, hi_);
    }
    ++samples_;
  }
  bool valid() const { return samples_ > 0; }
  // Midpoint of the intersection: host_ns = device_ns + offset_ns().
  std::int64_t offset_ns() const { return lo_ + (hi_ - lo_) / 2; }
  // Half-width of the intersection.
  std::int64_t uncertainty_ns() const { return (hi_ - lo_ + 1) / 2; }
  std::uint64_t samples() const { return samples_; }
  std::uint64_t restarts() const { return restarts_; }

 private:
  std::int64_t lo_ = 0;
  std::int64_t hi_ = 0;
  std::uint64_t samples_ = 0;
  std::uint64_t restarts_ = 0;
};

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
