// The "enqueue_bracket" estimate of a device clock's offset from the host clock, SHARED by
// the shim (its end-of-trace clock_sync when the device has no timer API,
// shim/recording/clock_sync.hpp) and the analyzer (a trace cut short before its clock_sync:
// analyzer/clock_alignment.hpp). A command's device `queued` time is taken inside the host
// interval of the enqueue call that created it, so with host = device + offset the offset lies
// in [host_begin - queued, host_end - queued]; the estimate is the intersection of those
// intervals over the commands seen. Units: ns. Header-only plain arithmetic; not thread-safe
// (one owner per instance).
#pragma once

#include <algorithm>
#include <cstdint>

namespace clprof {

class BracketEstimator {
 public:
  // Adds one command. host_*_ns: host clock (relative), queued_device_ns: device clock.
  // An interval disjoint from the running intersection means the clocks drifted (or
  // the device stamps `queued` outside the call): the estimate restarts from it. A command
  // whose interval does not fit in int64 (garbage times) is ignored.
  void add(std::int64_t host_begin_ns, std::int64_t host_end_ns, std::uint64_t queued_device_ns) {
    if (queued_device_ns > static_cast<std::uint64_t>(INT64_MAX) || host_end_ns < host_begin_ns)
      return;
    const std::int64_t queued = static_cast<std::int64_t>(queued_device_ns);
    std::int64_t lo = 0, hi = 0;
    if (__builtin_sub_overflow(host_begin_ns, queued, &lo) ||
        __builtin_sub_overflow(host_end_ns, queued, &hi))
      return;
    take(lo, hi, 1);
  }
  // Adds what `later` saw (commands after this one's, in time order), as if added here.
  void merge(const BracketEstimator& later) {
    if (later.samples_ == 0) return;
    const std::uint64_t restarts = later.restarts_;
    take(later.lo_, later.hi_, later.samples_);
    restarts_ += restarts;
  }
  bool valid() const { return samples_ > 0; }
  // Midpoint of the intersection: host_ns = device_ns + offset_ns().
  std::int64_t offset_ns() const { return lo_ + (hi_ - lo_) / 2; }
  // Half-width of the intersection.
  std::int64_t uncertainty_ns() const { return (hi_ - lo_ + 1) / 2; }
  std::uint64_t samples() const { return samples_; }
  std::uint64_t restarts() const { return restarts_; }

 private:
  void take(std::int64_t lo, std::int64_t hi, std::uint64_t samples) {
    if (samples_ == 0 || std::max(lo, lo_) > std::min(hi, hi_)) {
      lo_ = lo;
      hi_ = hi;
      if (samples_ != 0) ++restarts_;
    } else {
      lo_ = std::max(lo, lo_);
      hi_ = std::min(hi, hi_);
    }
    samples_ += samples;
  }
  std::int64_t lo_ = 0;
  std::int64_t hi_ = 0;
  std::uint64_t samples_ = 0;
  std::uint64_t restarts_ = 0;
};

}  // namespace clprof
