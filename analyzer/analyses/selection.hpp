// Which launches an analysis keeps (--filter, --iteration, --skip-first,
// --iteration-range, --time-window, --skip-first-launch), checked against the run: a selection that
// names an iteration or a range the run does not have is an error, not an empty result.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "analyses/ranges.hpp"
#include "analyses/time_window.hpp"
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
  std::string iteration_range;       // name of the iteration range ("" = the most repeated)
  std::optional<TimeWindow> window;  // time_window.hpp
  // Leave out each kernel's first launch enqueued, per process and kernel name (on PoCL it
  // includes the kernel's just-in-time compile): the first of the whole run, so a launch
  // the rest of the selection leaves out already is not replaced by the next one.
  bool skip_first_launch = false;

  // Whether the launches must be known before any is kept (the in-memory path).
  bool needs_run() const {
    return !filter.empty() || iteration || skip_first > 0 || window || skip_first_launch;
  }
  bool selects_iterations() const { return iteration || skip_first > 0; }
};

// Throws SelectionError when `filter` is not a valid regex.
void check_filter(const std::string& filter);

// The iterations of `run` for `selection`: throws SelectionError when --iteration-range
// names no top-level range, or (`required`) when the run has no iteration range.
// `holding_launches`: as find_iterations'.
Iterations iterations_for(const model::Run& run, const Selection& selection, bool required,
                          const std::unordered_set<uint64_t>* holding_launches = nullptr);

// The iteration range ids `selection` keeps; throws SelectionError when --iteration or
// --skip-first reach past the run's iterations.
std::unordered_set<uint64_t> selected_iterations(const Iterations& iterations,
                                                 const Selection& selection);

// The predicate keeping the launches of `selection` ({} when it keeps everything). The
// predicate caches per kernel name and range: use it from one thread. `run` must outlive it;
// --skip-first-launch knows the launches of `run.launches` (the in-memory path).
LaunchPredicate make_predicate(const model::Run& run, const Selection& selection);

// Which transfers an analysis keeps: --filter on the layer path, --iteration and
// --skip-first by the transfer's ranges (the time window is applied to the run, see
// time_window.hpp keep_window). {} keeps everything; one thread; `run` must outlive it.
using TransferPredicate = std::function<bool(const model::Transfer&)>;
TransferPredicate make_transfer_predicate(const model::Run& run, const Selection& selection);

// The indexes in `run.launches` of each kernel's first launch enqueued (status other than
// not_enqueued), per process and kernel name: what --skip-first-launch leaves out.
std::vector<size_t> first_launches(const model::Run& run);

}  // namespace clprof::analyses
