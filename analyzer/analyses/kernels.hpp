// Per-kernel statistics (clprof kernels), also the building block of per-layer listings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyses/duration_sample.hpp"
#include "analyses/kernel_variants.hpp"
#include "analyses/ranges.hpp"
#include "analyses/speedup.hpp"
#include "analyses/stats.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// A launch's position for "first seen" ordering across processes: (process, seq).
inline uint64_t launch_order(const model::Launch& l) {
  return (static_cast<uint64_t>(l.process) << 40) | (l.seq & ((uint64_t{1} << 40) - 1));
}

// Everything kept per kernel (name, or variant, or program kernel): its exact durations (1-2
// bytes a timed launch in memory, bounded by the spill budget: duration_sample.hpp) plus fixed
// sums.
struct KernelAccumulator {
  DurationSample durations_ns;      // device time of each timed launch
  uint64_t untimed = 0;             // launches without a device time (failed, incomplete)
  int64_t queued_to_submit_ns = 0;  // sum of submit - queued where both are known
  int64_t submit_to_start_ns = 0;   // sum of start - submit where both are known
  int64_t enqueue_ns = 0;           // sum of host time inside the enqueue call
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

// Accumulators per row name (`kernels`), per variant and per program kernel (while
// streaming: kernel_variants.hpp).
using NamedKernels = std::map<std::string, KernelAccumulator>;
using VariantKernels = std::map<KernelVariant, KernelAccumulator>;
using ProgramKernels = std::map<ProgramKernel, KernelAccumulator>;

// Rows for `accumulators` (keyed by row name), ordered by total time (descending, then name);
// `percent_base_ns` is the denominator of `percent` (the total kernel time of the whole
// selection). Taken by value: a caller done with them moves them in (no copy of the durations).
std::vector<KernelRow> make_kernel_rows(NamedKernels accumulators, int64_t percent_base_ns,
                                        const Speedup* speedup);

// Sum of all timed launch durations in `accumulators` (any of the maps above).
template <class Map>
int64_t total_kernel_ns(const Map& accumulators) {
  int64_t total = 0;
  for (const auto& [key, acc] : accumulators) add_to(total, acc.durations_ns.total_ns());
  return total;
}

// Adds copies of `kernels` into `into`, merged per variant.
void add_variants(const ProgramKernels& kernels, const ProgramVariants& variants,
                  VariantKernels& into);
// The row names of the variants in `kernels` (variant_labels).
std::map<KernelVariant, std::string> labels_of(const VariantKernels& kernels);
// `kernels` (moved from) keyed by their row names in `labels` (which holds each of them).
NamedKernels by_row_name(VariantKernels&& kernels,
                         const std::map<KernelVariant, std::string>& labels);

// Streams launches into per-program-kernel accumulators; rows are per variant, resolved
// against the run's programs (kernel_variants.hpp).
class KernelsAnalysis : public Analysis {
 public:
  explicit KernelsAnalysis(LaunchPredicate keep = {}) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;
  const ProgramKernels& accumulators() const { return kernels_; }
  // The accumulators merged per variant of `run`'s programs.
  VariantKernels variants(const model::Run& run) const;
  // Per row name (labels_of the variants).
  NamedKernels named(const model::Run& run) const;
  // The rows, percent over this analysis's total kernel time.
  std::vector<KernelRow> rows(const model::Run& run, const Speedup* speedup = nullptr) const;

 private:
  LaunchPredicate keep_;
  ProgramKernels kernels_;
};

// Sorts rows by a field name (name, count, total, mean, median, min, max, stddev, percent;
// a trailing "_ns" is accepted). Numbers sort descending, names ascending. Returns false
// for an unknown field.
bool sort_kernel_rows(std::vector<KernelRow>& rows, const std::string& field);

}  // namespace clprof::analyses
