// --time-window START:END: the commands of a run that fall in a window of the run's host
// clock, relative to the run's start (the earliest process's trace start, or the absolute
// time --run-start gives: scripts/clprof-dask's tasks each read a shard of the run, whose
// earliest process is not the run's).
//
// A command's time is one instant: a launch's or transfer's device start on the host clock
// where its device has a clock offset (model::Device::has_clock_offset), else the host time
// its enqueue call began; a sync's, build's or API call's host begin; a mark's host time.
// It is in the window when START <= time < END. A command with no time at all is never in a
// window. Ranges are not commands: they stay whole (they name layers and iterations).
//
// Units: ns. Threads: a RunClock is immutable once built; read it from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace clprof::analyses {

struct TimeWindow {
  int64_t begin_ns = INT64_MIN;  // inclusive; INT64_MIN = open
  int64_t end_ns = INT64_MAX;    // exclusive; INT64_MAX = open
  std::string text;              // as given, for messages
  // The absolute host time (ns) the window is measured from (--run-start); nullopt: the
  // run's start (RunClock::origin_ns).
  std::optional<int64_t> origin_ns;

  bool contains(int64_t t) const { return t >= begin_ns && t < end_ns; }
};

// Parses "START:END": each side a decimal number (at most 9 fractional digits) followed by
// a unit, ns, us, ms or s ("1.5ms", "200us", "2s"); either side may be empty (open), not
// both. Throws std::invalid_argument with the reason (no unit, START not before END, ...).
TimeWindow parse_time_window(std::string_view text);

// Places a run's commands on the run's clock: ns since the run's start.
class RunClock {
 public:
  // `origin_ns`: the absolute host time of the run's start; nullopt: the earliest process's
  // start (0 when no process knows its start).
  explicit RunClock(const model::Run& run, std::optional<int64_t> origin_ns = std::nullopt);

  // The absolute host time (CLOCK_MONOTONIC of clprof traces) of the run's start; 0 when no
  // process knows its start and none was given.
  int64_t origin_ns() const { return origin_ns_; }
  // `host_ns` (relative to `process`'s trace start) on the run's clock; nullopt for kNoTime.
  std::optional<int64_t> at(uint32_t process, int64_t host_ns) const;
  std::optional<int64_t> time_of(const model::Launch& launch) const;
  std::optional<int64_t> time_of(const model::Transfer& transfer) const;

 private:
  std::optional<int64_t> command_time(uint32_t process, uint32_t device, int64_t device_start_ns,
                                      int64_t host_begin_ns) const;
  int64_t origin_ns_ = 0;
  std::vector<int64_t> base_ns_;                   // per process: its start - the run's start
  std::vector<std::optional<int64_t>> offset_ns_;  // per Device::id - 1: device -> host
};

// Removes from `run` the transfers, syncs, builds, API calls and marks outside `window`
// (measured from window.origin_ns when given)
// (launches are selected by the launch predicate, selection.hpp). Returns how many commands
// without any time were left out.
uint64_t keep_window(model::Run& run, const TimeWindow& window);

}  // namespace clprof::analyses
