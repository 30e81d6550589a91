// Reading a command's inputs and running its analysis over them: streaming (clprof traces,
// several threads) when nothing needs the whole run first, else loading the run into
// memory and feeding the analysis the selected launches. Prints the readers' warnings.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "analyses/ranges.hpp"
#include "analysis.hpp"
#include "cli/request.hpp"
#include "model.hpp"
#include "readers/reader.hpp"

namespace clprof::cli {

// The result of reading the inputs.
struct Session {
  model::Run run;
  readers::Diagnostics diagnostics;
  std::unique_ptr<Analysis> analysis;
  bool streamed = false;
};

// Makes an Analysis that keeps the launches `keep` accepts (an empty predicate keeps all).
using AnalysisMaker = std::function<std::unique_ptr<Analysis>(analyses::LaunchPredicate keep)>;

struct SessionNeeds {
  bool memory = false;      // the analysis needs the launches in the run
  bool iterations = false;  // the command reads the iteration range (layers --per-iteration)
  // Called with the run's metadata (its ranges, ...) before any launch reaches an analysis,
  // from the main thread: clprof traces are then read in two passes, metadata first (as for a
  // selection). Where the input is read into memory whole, after reading it.
  std::function<void(const model::Run&)> metadata;
  // false: the command reads no more of the ranges than their names, parents and covered
  // host span (RangeIndex, summary's wall): clprof traces are streamed with
  // readers::LoadOptions::fold_ranges, so the metadata stays bounded by the open ranges.
  bool whole_ranges = true;
};
// The needs of the commands that read no more of the ranges than names, parents and span.
inline const SessionNeeds kFoldedRanges{false, false, {}, false};

// Reads the inputs of `request` and runs one Analysis over them. Throws UsageError (a
// selection the run cannot satisfy, an unused --iteration-range) and readers::InputError.
// clprof traces are streamed: in one pass, or, when a selection needs the ranges before the
// launches (--filter, --iteration, --skip-first), in two: the metadata, then the launches.
Session run_session(const Request& request, const AnalysisMaker& make, SessionNeeds needs = {});

// For the views that write as they read (timeline, export): reads the run's metadata
// (everything but launches and transfers), calls `ready` with it, then gives every launch and
// transfer, in file order (in-memory inputs: launches, then transfers) and from one thread,
// to Analysis objects made by `make` (several,
// which must write to one place; the launches of the selection only). clprof traces are read
// twice, metadata then records, so memory stays that of the metadata; other inputs (and
// --layers-from) are read into memory whole, as run_session does. Returns the session (its
// `analysis` is the last one made). The reader may deliver a file's records a second time
// (views/out_file.hpp says why): the analyses must drop the first delivery then.
Session run_ordered_session(const Request& request,
                            const std::function<void(const model::Run&)>& ready,
                            const AnalysisMaker& make);

// The Analysis run_ordered_session's views give it: forwards the launches `keep` accepts
// and every transfer to `writer` (a class with add_launch and add_transfer).
template <typename Writer>
class ForwardTo : public Analysis {
 public:
  ForwardTo(Writer& writer, analyses::LaunchPredicate keep)
      : writer_(writer), keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override {
    if (!keep_ || keep_(l)) writer_.add_launch(l);
  }
  void add_transfer(const model::Transfer& t) override { writer_.add_transfer(t); }
  void merge(Analysis&&) override {}  // one writer for all of them

 private:
  Writer& writer_;
  analyses::LaunchPredicate keep_;
};

// --time-window on the absolute host clock of `run` ([begin, end), saturated), or nullopt.
std::optional<std::pair<int64_t, int64_t>> window_on_host_clock(const Request& request,
                                                                const model::Run& run);

}  // namespace clprof::cli
