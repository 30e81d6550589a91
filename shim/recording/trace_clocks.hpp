// The clocks of the records the harvester completes: the host ticks a record carries
// (host_ticks_now, taken on the enqueue path) become the trace's host clock, and each
// device's clock is tied to the host's by the enqueue brackets of its commands.
//
// Threads: one owner (the harvester, then the finaliser); start() runs at start-up,
// before the harvester exists. Clocks: in, host ticks (TSC or CLOCK_MONOTONIC ns, see
// host_clock.hpp) and device ns as the driver reports them; out, trace ns
// (CLOCK_MONOTONIC relative to the trace's origin). No OpenCL, no allocation but the
// map's one node per device: unit-tested.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "base/host_clock.hpp"
#include "recording/clock_sync.hpp"

namespace clprof::shim {

class TraceClocks {
 public:
  // The harvester converts no record before the baseline is this long (CLOCK_MONOTONIC ns
  // since start()); the slope error then stays below ~1e-5 (a calibration pair is read
  // within ~20 ns).
  static constexpr std::int64_t kFirstBaselineNs = 2000000;
  // A first calibration point, then a busy kRoughBaselineNs for a rough first slope (ticks
  // per ns); the harvester lengthens the baseline as the run goes (recalibrate).
  void start();
  // When start() ran, CLOCK_MONOTONIC ns.
  std::int64_t start_ns() const { return start_ns_; }
  // Adds a calibration point (the harvester once per poll interval, the finaliser once).
  void recalibrate() { calibrate(false); }

  // About how many host ticks make `ns` (from the current slope).
  std::uint64_t ticks_in(std::int64_t ns) const {
    return static_cast<std::uint64_t>(static_cast<double>(ns) / ticks_.ns_per_tick());
  }

  // A record's host ticks on the trace's host clock.
  std::int64_t trace_ns_of_ticks(std::uint64_t ticks) const {
    return to_trace_ns(ticks_.to_monotonic_ns(ticks));
  }

  // A command that completed on `device_id`: its enqueue call's host interval (trace ns)
  // brackets its device `queued` time. Runs per completed command: one device per run is
  // the usual case, so the last device's estimator is kept at hand.
  void add_bracket(std::uint64_t device_id, std::int64_t host_begin_ns, std::int64_t host_end_ns,
                   std::uint64_t queued_device_ns) {
    if (device_id != bracket_device_) {
      bracket_ = &brackets_[device_id];  // nodes are stable across rehashes
      bracket_device_ = device_id;
    }
    bracket_->add(host_begin_ns, host_end_ns, queued_device_ns);
  }
  // Device id -> its estimator (the clock_sync records at the end of the trace).
  const std::unordered_map<std::uint64_t, BracketEstimator>& brackets() const { return brackets_; }

 private:
  // Host ticks against CLOCK_MONOTONIC: paired reads, the best of a few.
  void calibrate(bool first);

  static constexpr std::int64_t kRoughBaselineNs = 20000;
  TickConverter ticks_;
  std::int64_t start_ns_ = 0;
  std::unordered_map<std::uint64_t, BracketEstimator> brackets_;
  std::uint64_t bracket_device_ = 0;  // device of bracket_ (0: none yet)
  BracketEstimator* bracket_ = nullptr;
};

}  // namespace clprof::shim
