// Which launches an analysis keeps (--filter, --iteration, --skip-first,
// --iteration-range), checked against the run: a selection that names an iteration or a
// range the run does not have is an error, not an empty result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "analyses/ranges.hpp"
#include "model.hpp"

namespace clprof::analyses {

// A selection the run cannot satisfy, or a malformed one (the CLI's exit status 2).
class SelectionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct Selection {
  std::string filter;  // regex (name_regex.hpp) searched in the kernel name and the layer path
  std::optional<IterationRange> iteration;
  std::string iteration_text;  // as given, for messages
  uint64_t skip_first = 0;
  std::string iteration_range;  // name of the iteration range ("" = the most repeated)

  // Whether the launches must be known before any is kept (the in-memory path).
  bool needs_run() const { return !filter.empty() || iteration || skip_first > 0; }
  bool selects_iterations() const { return iteration || skip_first > 0; }
};

// Throws SelectionError when `filter` is not a valid regex.
void check_filter(const std::string& filter);

// The iterations of `run` for `selection`: throws SelectionError when --iteration-range
// names no top-level range, or (`required`) when the run has no iteration range.
Iterations iterations_for(const model::Run& run, const Selection& selection, bool required);

// The iteration range ids `selection` keeps; throws SelectionError when --iteration or
// --skip-first reach past the run's iterations.
std::unordered_set<uint64_t> selected_iterations(const Iterations& iterations, const Selection& selection);

// The predicate keeping the launches of `selection` ({} when it keeps everything). The
// predicate caches per kernel name and range: use it from one thread. `run` must outlive it.
LaunchPredicate make_predicate(const model::Run& run, const Selection& selection);

}  // namespace clprof::analyses
