// Per-layer breakdown (clprof layers). A launch belongs to its innermost range; a layer is
// the '/'-joined path of range names (e.g. "inference/conv1"), so one layer aggregates
// every instance of that path: one instance per iteration when an outer range repeats.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyses/kernels.hpp"
#include "analyses/ranges.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// Streams launches into per-range-instance, per-kernel accumulators; everything else is
// resolved against the Run's ranges afterwards, so it works on the streaming path too.
class LayersAnalysis : public Analysis {
 public:
  struct Bucket {
    ProgramKernels kernels;  // resolved to variants against the run's programs
    uint64_t first_order = UINT64_MAX;
  };
  explicit LayersAnalysis(LaunchPredicate keep = {}) : keep_(std::move(keep)) {}
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;
  // Key: innermost range id (0 = no range).
  const std::unordered_map<uint64_t, Bucket>& buckets() const { return buckets_; }

 private:
  LaunchPredicate keep_;
  std::unordered_map<uint64_t, Bucket> buckets_;
};

struct LayerRow {
  std::string group;               // --by: the group's label (grouping.hpp), else ""
  std::string layer;               // range path, or kNoLayer
  uint64_t count = 0;              // timed launches
  int64_t total_ns = 0;            // kernel time over all instances
  std::optional<double> percent;   // share of total kernel time, 0..100 (none when it is 0)
  uint64_t instances = 0;          // range instances with launches (iterations of this layer)
  int64_t instance_median_ns = 0;  // per-instance kernel time: median, min, max
  int64_t instance_min_ns = 0;
  int64_t instance_max_ns = 0;
  uint64_t first_order = UINT64_MAX;
  std::vector<KernelRow> kernels;       // percent over the whole total, like KernelRow
  std::optional<int64_t> est_total_ns;  // with --speedup
  // An imported layer time without kernels (Caffe per_layer_info): count is 0, instances
  // are the measurements and percent is over the imported layer times.
  bool timing_only = false;
  std::string direction;  // timing_only: "forward", "backward" or ""
};

// Rows in execution order (first launch first). Each layer's kernels are rows per variant,
// named over every layer (a variant has one name in all of them).
std::vector<LayerRow> layer_rows(const LayersAnalysis& analysis, const model::Run& run,
                                 const Speedup* speedup);
// Sorts by "order" (default), "layer"/"name", "count", "total", "percent", "instances",
// "median", "min", "max", "est_total". Returns false for an unknown field.
bool sort_layer_rows(std::vector<LayerRow>& rows, const std::string& field);

// One iteration in detail: what vison prints for one Arm NN inference.
struct IterationDetail {
  uint64_t index = 0;  // 1-based
  uint64_t range_id = 0;
  uint32_t process = 0;
  std::optional<int64_t> wall_ns;  // importer's wall time, else the range's host duration
  int64_t kernel_ns = 0;
  struct Kernel {
    std::string name;       // the row name of its variant, named over the whole analysis
    KernelVariant variant;  // what compare matches it by
    uint64_t count = 0;
    int64_t total_ns = 0;
    std::optional<double> percent;  // of this iteration's kernel time
  };
  struct Layer {
    std::string layer;   // path below the iteration range; "" for launches directly in it
    uint64_t count = 0;  // launches with a kernel time
    int64_t total_ns = 0;
    std::optional<double> percent;  // of this iteration's kernel time (none: no kernel time)
    std::vector<Kernel> kernels;    // in execution order
  };
  std::vector<Layer> layers;    // in execution order
  std::vector<Kernel> kernels;  // per-kernel totals, descending
};

// The ranges that hold a launch of `analysis`: each launch's innermost range and its
// ancestors (for find_iterations' holding_launches).
std::unordered_set<uint64_t> ranges_holding_launches(const LayersAnalysis& analysis,
                                                     const model::Run& run);

// The detail of every iteration in `iterations`, in order.
std::vector<IterationDetail> iteration_details(const LayersAnalysis& analysis,
                                               const model::Run& run, const Iterations& iterations);

// Run::layer_timings (layer times without kernels) aggregated per (layer, direction).
struct LayerTimingRow {
  std::string layer;
  std::string direction;
  DurationStats stats;
};
std::vector<LayerTimingRow> layer_timing_rows(const model::Run& run);
// The same as layer rows (timing_only), in the order the input gives them.
std::vector<LayerRow> timing_layer_rows(const model::Run& run);

// The detail of the iterations `selection` keeps, for
// --per-iteration after --iteration / --skip-first (nullptr: all).
std::vector<IterationDetail> select_details(std::vector<IterationDetail> details,
                                            const std::unordered_set<uint64_t>* selection);

}  // namespace clprof::analyses
