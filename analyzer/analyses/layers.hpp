// Per-layer breakdown (clprof layers). A launch belongs to its innermost range; a layer is
// the '/'-joined path of range names (e.g. "inference/conv1"), so one layer aggregates
// every instance of that path: one instance per iteration when an outer range repeats.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "analyses/kernels.hpp"
#include "analyses/ranges.hpp"
#include "analysis.hpp"

namespace clprof::analyses {

// The most buckets (layer rows, or --per-iteration's layer rows of every iteration) one
// LayersAnalysis keeps: what bounds its memory when range names differ per instance
// (numbered iterations: one path per instance). A launch that would need a bucket past it
// throws LayerCeilingError (from a reading thread: the readers stop and rethrow it), so the
// command stops with that error (docs/performance.md, "Memory ceilings", says what a
// bucket costs).
inline constexpr size_t kMaxLayerBuckets = size_t{1} << 16;

class LayerCeilingError : public std::runtime_error {
 public:
  LayerCeilingError();
};

// Which bucket a launch's innermost range belongs to, resolved once from the run's ranges
// (after the metadata pass, before the launches) and then read by every reading thread
// (immutable, so shared without locks). Memory: ~100 bytes per range plus each distinct
// path once.
class LayerKeys {
 public:
  // One key per distinct range path (the layer rows); range id 0 is kNoLayer's key. Every
  // range is also an instance (its launches' kernel time: Iter, Median/Min/Max).
  explicit LayerKeys(const model::Run& run);
  // One key per (iteration, path below the iteration range) (--per-iteration); ranges
  // outside every iteration of `iterations`, and launches outside ranges, have none.
  LayerKeys(const model::Run& run, const Iterations& iterations);
  struct Slot {
    uint32_t key = 0;
    uint32_t instance = 0;  // 0..instances()-1
  };
  // The slot of innermost range `range_id`, or nullptr when it has none.
  const Slot* find(uint64_t range_id) const;
  bool by_iteration() const { return by_iteration_; }
  // The key's path: the full path, or (by_iteration) the path below its iteration range.
  const std::string& path(uint32_t key) const { return *paths_[key]; }
  size_t iteration(uint32_t key) const { return iterations_[key]; }  // by_iteration: index
  size_t instances() const { return instance_keys_.size(); }
  uint32_t instance_key(uint32_t instance) const { return instance_keys_[instance]; }

 private:
  uint32_t intern(std::string path, size_t iteration);
  bool by_iteration_ = false;
  std::unordered_map<uint64_t, Slot> slots_;
  std::vector<const std::string*> paths_;  // per key, into interned_
  std::vector<uint32_t> iterations_;       // per key
  std::vector<uint32_t> instance_keys_;    // per instance
  std::map<std::pair<size_t, std::string>, uint32_t> interned_;
};

// Streams launches into per-bucket, per-kernel accumulators. With LayerKeys a bucket is a
// key (a layer path, or an iteration's layer) and each range instance's kernel time is
// summed on the side (8 bytes per range): memory grows with the distinct paths, not the
// instances. Without (compare, report), or for a range the keys do not know, a bucket is an
// innermost range id, resolved against the Run's ranges afterwards.
class LayersAnalysis : public Analysis {
 public:
  struct Bucket {
    ProgramKernels kernels;  // resolved to variants against the run's programs
    uint64_t first_order = UINT64_MAX;
  };
  explicit LayersAnalysis(LaunchPredicate keep = {},
                          std::shared_ptr<const LayerKeys> keys = nullptr)
      : keep_(std::move(keep)), keys_(std::move(keys)) {}
  void add_launch(const model::Launch& launch) override;
  void merge(Analysis&& other) override;
  // Key: innermost range id (0 = no range): every bucket without LayerKeys, else those of
  // ranges the keys lack (by path only).
  const std::unordered_map<uint64_t, Bucket>& buckets() const { return buckets_; }
  // Key: a LayerKeys key.
  const std::unordered_map<uint32_t, Bucket>& key_buckets() const { return key_buckets_; }
  const LayerKeys* keys() const { return keys_.get(); }
  // Per LayerKeys instance (by path): its kernel time, and whether it holds a launch.
  const std::vector<int64_t>& instance_ns() const { return instance_ns_; }
  const std::vector<uint8_t>& instance_seen() const { return instance_seen_; }

 private:
  template <typename Map, typename K>
  Bucket* bucket(Map& map, const K& key);
  LaunchPredicate keep_;
  std::shared_ptr<const LayerKeys> keys_;
  std::unordered_map<uint64_t, Bucket> buckets_;
  std::unordered_map<uint32_t, Bucket> key_buckets_;
  std::vector<int64_t> instance_ns_;
  std::vector<uint8_t> instance_seen_;
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

// What the layer rows are made of, per layer path, before the variants are named: what
// `clprof layers --partial` writes and --from-partials reads back (docs/scale.md).
struct LayerGroup {
  VariantKernels kernels;
  std::vector<int64_t> instance_totals;  // kernel time of each range instance (ns)
  uint64_t first_order = UINT64_MAX;     // launch_order of its earliest launch
};
using LayerGroups = std::map<std::string, LayerGroup>;
LayerGroups layer_groups(const LayersAnalysis& analysis, const model::Run& run);
// The rows of `groups` (moved from), as below.
std::vector<LayerRow> layer_rows(LayerGroups groups, const Speedup* speedup);

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
