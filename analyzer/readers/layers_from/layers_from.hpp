// --layers-from: attribute the launches of one run (usually a clprof trace) to the ranges of
// another tool's profile (Chrome/Perfetto trace, Arm NN profile, ...) by host time.
//
// Clocks: a time on a run's host timeline is absolute = Process::host_start_ns + host_*_ns.
// clprof traces use CLOCK_MONOTONIC; Chrome/Perfetto traces written on Linux use
// CLOCK_MONOTONIC microseconds; Arm NN's "Wall clock time (Start)" uses std::chrono::
// steady_clock (CLOCK_MONOTONIC on Linux). So by default the two runs share one clock and
// no shift is needed. See docs/importers.md ("--layers-from") for the alignment rules.
#pragma once

#include <cstdint>
#include <string>

#include "model.hpp"

namespace clprof {

struct LayersFromOptions {
  // Which instant of a launch (or transfer) is looked up in the source's ranges.
  enum class By : uint8_t {
    // When it ran: its device start on the host clock (clock_alignment.hpp); a
    // command without one (no clock_sync for its device, no device times) falls back to
    // its enqueue time, counted in LayersFromResult::by_enqueue.
    Execution,
    // When the app enqueued it: the host begin of the enqueue call.
    Enqueue,
  };
  By by = By::Execution;
  enum class Align : uint8_t {
    // Absolute when the source's time span overlaps the target's launches, otherwise
    // FirstEvent (then LayersFromResult::note says so).
    Auto,
    // Both runs are on the same clock: source_abs + offset_ns is a target absolute time.
    Absolute,
    // Shift the source so that its earliest range begins at the target's earliest launch
    // enqueue, then add offset_ns.
    FirstEvent,
  };
  Align align = Align::Auto;
  // Added to every source time after alignment (ns; positive = source happened later).
  int64_t offset_ns = 0;
  // Only source ranges whose tid equals the launch's tid (off: any thread of the source).
  bool match_tid = false;
  // Also use the source's imported leaf intervals (launches with duration_override_ns and
  // host times, e.g. Chrome leaf events) as the innermost ranges.
  bool use_source_leaf_events = true;
  // true: keep the target's own ranges (clprof markers) inside the source ranges;
  // false: replace them.
  bool keep_existing_ranges = false;
};

struct LayersFromResult {
  uint64_t launches_attributed = 0;    // launches now inside at least one source range
  uint64_t launches_unattributed = 0;  // no containing source range, or no host time
  uint64_t transfers_attributed = 0;
  uint64_t by_enqueue = 0;       // with By::Execution: commands looked up by enqueue time
  int64_t applied_shift_ns = 0;  // source_abs + applied_shift_ns = target_abs
  LayersFromOptions::Align used_align = LayersFromOptions::Align::Absolute;
  std::string note;  // one line for the CLI ("" = nothing to say)
};

// Replaces (or, with keep_existing_ranges, wraps) Launch::ranges and Transfer::ranges of
// every launch/transfer in `target` by the chain (outermost first) of the innermost range
// of `ranges_source` containing its host time (LayersFromOptions::By; begin <= t < end).
// The used source ranges are copied into target.ranges with fresh ids (one copy per target
// process). When a source process has the same pid as the launch's process, only that
// process's ranges are used. Launches without a host time are left unattributed.
LayersFromResult attribute_by_host_time(model::Run& target, const model::Run& ranges_source,
                                        const LayersFromOptions& options = {});

}  // namespace clprof
