// Per-kernel statistics (clprof kernels), also the building block of per-layer listings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyses/ranges.hpp"
#include "analyses/speedup.hpp"
#include "analyses/stats.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// A launch's position for "first seen" ordering across processes: (process, seq).
inline uint64_t launch_order(const model::Launch& l) {
  return (static_cast<uint64_t>(l.process) << 40) | (l.seq & ((uint64_t{1} << 40) - 1));
}

// Everything kept per kernel name: 8 bytes per timed launch plus fixed sums.
struct KernelAccumulator {
  std::vector<int64_t> durations_ns;  // device time of each timed launch
  uint64_t untimed = 0;               // launches without a device time (failed, incomplete)
  int64_t queued_to_submit_ns = 0;    // sum of submit - queued where both are known
  int64_t submit_to_start_ns = 0;     // sum of start - submit where both are known
  int64_t enqueue_ns = 0;             // sum of host time inside the enqueue call
  // Launches whose phase was known (importers mostly know none: the sum is then unknown).
  uint64_t queued_to_submit_known = 0, submit_to_start_known = 0, enqueue_known = 0;
  uint64_t first_order = UINT64_MAX;  // launch_order of the earliest launch seen
  std::optional<int64_t> first_ns;    // its kernel time (on PoCL: with the just-in-time compile)

  // Adds one launch.
  void add(const model::Launch& launch);
  // Absorbs `other`.
  void merge(KernelAccumulator&& other);
};

// One output row of `clprof kernels` (and of each layer's kernel list).
struct KernelRow {
  std::string group;  // --by: the group's label (grouping.hpp), else ""
  std::string name;
  DurationStats stats;
  std::optional<double> percent;  // share of the total kernel time, 0..100 (none when it is 0)
  uint64_t untimed = 0;
  // Sums over the launches where the phase is known; nullopt when none is.
  std::optional<int64_t> queued_to_submit_ns;
  std::optional<int64_t> submit_to_start_ns;
  std::optional<int64_t> enqueue_ns;
  uint64_t first_order = UINT64_MAX;
  std::optional<int64_t>
      first_ns;  // kernel time of the first launch counted (the earliest process's)
  std::optional<int64_t> est_total_ns;  // with --speedup: estimated total after speedup
};

// Kernels whose first launch dominates: with 2 launches or more, the first took over 10
// times the median of the others and more than 10% of `total_ns` (the selection's kernel
// time). On PoCL a kernel's first launch includes its just-in-time compile.
std::vector<const KernelRow*> first_launch_dominates(const std::vector<KernelRow>& rows,
                                                     int64_t total_ns);

// Rows for `accumulators`, ordered by total time (descending, then name); `percent_base_ns`
// is the denominator of `percent` (the total kernel time of the whole selection).
std::vector<KernelRow> make_kernel_rows(
    const std::map<std::string, KernelAccumulator>& accumulators, int64_t percent_base_ns,
    const Speedup* speedup);

// Sum of all timed launch durations in `accumulators`.
int64_t total_kernel_ns(const std::map<std::string, KernelAccumulator>& accumulators);

// Streams launches into per-kernel accumulators.
class KernelsAnalysis : public Analysis {
 public:
  explicit KernelsAnalysis(LaunchPredicate keep = {}) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;
  const std::map<std::string, KernelAccumulator>& accumulators() const { return kernels_; }
  // The rows, percent over this analysis's total kernel time.
  std::vector<KernelRow> rows(const Speedup* speedup = nullptr) const;

 private:
  LaunchPredicate keep_;
  std::map<std::string, KernelAccumulator> kernels_;
};

// Sorts rows by a field name (name, count, total, mean, median, min, max, stddev, percent;
// a trailing "_ns" is accepted). Numbers sort descending, names ascending. Returns false
// for an unknown field.
bool sort_kernel_rows(std::vector<KernelRow>& rows, const std::string& field);

}  // namespace clprof::analyses
