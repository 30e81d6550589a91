// Range markers as layers and iterations: the path of a launch's innermost range, the
// repeated "iteration" range, and the --iteration / --skip-first selection.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model.hpp"

namespace clprof::analyses {

// The layer name of launches recorded outside any range.
inline constexpr std::string_view kNoLayer = "(no layer)";

// Range lookup by id over a Run's ranges, whole (Run::ranges) or folded to their name and
// parent (Run::folded_ranges); the Run must outlive the index.
class RangeIndex {
 public:
  explicit RangeIndex(const model::Run& run);
  // The whole range with this id, or nullptr (also for a folded one).
  const model::Range* find(uint64_t id) const;
  // The name of range `id`, whole or folded; nullptr when the run has none of that id.
  const std::string* name(uint64_t id) const;
  // The parent of range `id` (0 = top level), whole or folded; nullopt when unknown.
  std::optional<uint64_t> parent(uint64_t id) const;
  // Names from the outermost ancestor down to `id`, joined by '/'; an unknown range is
  // named "range#<id>". kNoLayer for id 0.
  std::string path(uint64_t id) const;
  // The path of `id` below its ancestor `ancestor` ("" if id == ancestor); nullopt if
  // `ancestor` is not an ancestor of (or equal to) `id`.
  std::optional<std::string> path_below(uint64_t id, uint64_t ancestor) const;
  // True if `ancestor` is `id` or one of its ancestors.
  bool within(uint64_t id, uint64_t ancestor) const;

 private:
  std::unordered_map<uint64_t, const model::Range*> by_id_;
  const model::FoldedRanges* folded_ = nullptr;
};

// The innermost range id of a launch (0 = none).
inline uint64_t innermost_range(const model::Launch& l) {
  return l.ranges.empty() ? 0 : l.ranges.back();
}

// Iterations: the instances of one top-level range name, in time order.
struct Iterations {
  std::string range_name;           // "" when the run has none
  std::vector<uint64_t> range_ids;  // instance k (1-based) is range_ids[k - 1]
};

// The iteration range of `run`: `name` if given, else the top-level range name with the
// most instances among those that repeat or have child ranges (ties: first seen).
// Instances are ordered by (process, host begin, id). `holding_launches` (range ids that
// hold a launch, themselves or below; see ranges_holding_launches): when given, a range
// picked by itself must have an instance among them.
Iterations find_iterations(const model::Run& run, std::string_view name = "",
                           const std::unordered_set<uint64_t>* holding_launches = nullptr);

// An --iteration selection: 1-based inclusive bounds. Parses "N", "A:B", "A:", ":B".
struct IterationRange {
  uint64_t first = 1;
  uint64_t last = UINT64_MAX;
};
// Throws std::invalid_argument with a message on a malformed selection.
IterationRange parse_iteration_range(std::string_view text);

// The range ids of the selected iterations (after skipping `skip_first`).
std::unordered_set<uint64_t> select_iterations(const Iterations& iterations,
                                               std::optional<IterationRange> range,
                                               uint64_t skip_first);

// Which launches an analysis keeps. An empty predicate keeps everything.
using LaunchPredicate = std::function<bool(const model::Launch&)>;

}  // namespace clprof::analyses
