#include "cli/session.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "analyses/duration_sample.hpp"
#include "analyses/selection.hpp"
#include "memory_limit.hpp"
#include "output/log.hpp"
#include "output/progress.hpp"
#include "readers/layers_from/layers_from.hpp"
#include "readers/load.hpp"

namespace clprof::cli {

namespace {

bool all_clprof(const Request& r) {
  if (!r.input_format.empty()) return r.input_format == "clprof";
  for (const auto& p : r.inputs)
    if (readers::detect_reader(p, "").name() != "clprof") return false;
  return true;
}

// "cannot open 'x.json': No such file or directory" before any reader says it its way.
void check_readable(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw UsageError("cannot open '" + p + "': " + std::strerror(errno));
    ::close(fd);
  }
}

// What reading the inputs `passes` times amounts to, for the progress line.
uint64_t bytes_to_read(const Request& r, unsigned passes) {
  uint64_t total = 0;
  struct stat st;
  for (const auto& p : r.inputs)
    if (::stat(p.c_str(), &st) == 0) total += static_cast<uint64_t>(st.st_size) * passes;
  if (!r.layers_from.empty() && ::stat(r.layers_from.c_str(), &st) == 0)
    total += static_cast<uint64_t>(st.st_size);
  return total;
}

// The whole run in memory (other input formats, --layers-from).
void load_in_memory(const Request& r, Session& s, std::atomic<uint64_t>* read) {
  readers::LoadOptions options;
  options.forced_format = r.input_format;
  options.allow_unrelated = r.merge;
  options.bytes_read = read;
  readers::load_run(r.inputs, options, s.run, s.diagnostics);
  if (r.layers_from.empty()) return;
  model::Run source;
  readers::LoadOptions source_options;
  source_options.bytes_read = read;
  readers::load_run({r.layers_from}, source_options, source, s.diagnostics);
  LayersFromOptions lo;
  lo.by = r.layers_by_enqueue ? LayersFromOptions::By::Enqueue : LayersFromOptions::By::Execution;
  auto result = attribute_by_host_time(s.run, source, lo);
  if (!result.note.empty())
    s.diagnostics.warnings.push_back(
        result.note.rfind("--layers-from", 0) == 0 ? result.note : "--layers-from: " + result.note);
  if (result.by_enqueue > 0)
    s.diagnostics.warnings.push_back(
        "--layers-from: " + std::to_string(result.by_enqueue) +
        " launch(es) and transfer(s) have no device start on the host clock (no clock_sync for "
        "their "
        "device, or no device times): looked up by their enqueue time instead");
  if (result.launches_attributed == 0 && !s.run.launches.empty())
    s.diagnostics.warnings.push_back("--layers-from: no launch falls inside a range of " +
                                     r.layers_from);
}

// The first of two passes over clprof traces: everything but the launches and transfers.
void stream_metadata(const Request& r, Session& s, std::atomic<uint64_t>* read,
                     const readers::StreamOptions& folding = {}) {
  class Nothing : public Analysis {
   public:
    void add_launch(const model::Launch&) override {}
    void merge(Analysis&&) override {}
  };
  readers::StreamOptions so = folding;
  so.threads = r.threads;
  so.allow_unrelated = r.merge;
  so.bytes_read = read;
  readers::stream_clprof_traces(
      r.inputs, s.run, [] { return std::make_unique<Nothing>(); }, s.diagnostics, so);
}

// The second pass: the launches and transfers, into a scratch run whose metadata is
// dropped (it repeats the first pass's, with the same process and range ids).
std::unique_ptr<Analysis> stream_records(const Request& r, const AnalysisFactory& factory,
                                         unsigned threads, std::atomic<uint64_t>* read,
                                         const readers::StreamOptions& folding = {}) {
  model::Run scratch;
  readers::Diagnostics again;  // the first pass said it all
  readers::StreamOptions so = folding;
  so.threads = threads;
  so.allow_unrelated = r.merge;
  so.bytes_read = read;
  return readers::stream_clprof_traces(r.inputs, scratch, factory, again, so);
}

void check_iteration_range_use(const Request& r, bool iterations) {
  const auto& sel = r.selection;
  if (!sel.iteration_range.empty() && !sel.selects_iterations() && !iterations)
    throw UsageError(
        "--iteration-range " + sel.iteration_range +
        ": it names the iteration range of --iteration, --skip-first or --per-iteration, "
        "and none is given");
}

// Before reading: a hostile or huge input meets the ceiling before it can drive the
// machine into swap (an allocation past it fails; main() reports it, exit 1).
void apply_max_memory(const Request& r) {
  // The exact durations spill to disk past an eighth of the ceiling (64 MiB at most).
  analyses::set_duration_memory_budget(
      r.max_memory == 0 ? analyses::kDefaultDurationBudget
                        : std::min(analyses::kDefaultDurationBudget, r.max_memory / 8));
  std::string why;
  if (!apply_memory_limit(r.max_memory, &why) && r.max_memory_given && r.max_memory != 0)
    log::warning("--max-memory " + why);
}

}  // namespace

Session run_session(const Request& r, const AnalysisMaker& make, SessionNeeds needs) {
  const auto& sel = r.selection;
  check_iteration_range_use(r, needs.iterations);
  check_readable(r.inputs);
  if (!r.layers_from.empty()) check_readable({r.layers_from});
  apply_max_memory(r);
  Session s;
  // --merge (Request::merge): traces of unrelated runs are read together too
  // (readers::LoadOptions::allow_unrelated); without it they are an error.
  // --time-window and --skip-first-launch select from the whole run (its clock, each kernel's
  // first launch), so they read it into memory. The two-pass stream selects launches only:
  // there a --filter, --iteration or --skip-first leaves the transfers whole.
  const bool memory = needs.memory || !r.layers_from.empty() || !all_clprof(r) || sel.window ||
                      sel.skip_first_launch;
  const bool two_passes = sel.needs_run() || needs.metadata;
  output::ReadProgress progress(bytes_to_read(r, !memory && two_passes ? 2 : 1));
  // What of the ranges the command reads: their names, parents and span only (folded), with
  // the top-level ones whole where a selection may pick iterations among them.
  readers::StreamOptions folding;
  folding.fold_ranges = !needs.whole_ranges;
  folding.keep_top_level_ranges = two_passes;
  try {
    if (!memory && !two_passes) {
      readers::StreamOptions so = folding;
      so.threads = r.threads;
      so.allow_unrelated = r.merge;
      so.bytes_read = progress.counter();
      s.analysis = readers::stream_clprof_traces(
          r.inputs, s.run, [&] { return make({}); }, s.diagnostics, so);
      s.streamed = true;
      log::debug("streamed " + std::to_string(r.inputs.size()) + " trace(s)");
    } else if (!memory) {
      // The selection needs the ranges before the launches: metadata first, then the launches
      // through the selection (each reading thread with its own predicate: they cache).
      stream_metadata(r, s, progress.counter(), folding);
      const model::Run& run = s.run;
      analyses::make_predicate(run, sel);  // a selection the run cannot satisfy fails here, once
      if (needs.metadata) needs.metadata(run);
      s.analysis = stream_records(
          r, [&] { return make(analyses::make_predicate(run, sel)); }, r.threads,
          progress.counter(), folding);
      s.streamed = true;
      log::debug("streamed " + std::to_string(r.inputs.size()) +
                 " trace(s) twice (metadata, then launches)");
    } else {
      load_in_memory(r, s, progress.counter());
      if (sel.window) {
        // Launches are selected by the predicate; the other commands leave the run here.
        uint64_t timeless = analyses::keep_window(s.run, *sel.window);
        const analyses::RunClock clock(s.run, sel.window->origin_ns);
        for (const auto& l : s.run.launches) timeless += clock.time_of(l) ? 0 : 1;
        if (timeless)
          s.diagnostics.warnings.push_back(
              "--time-window: " + std::to_string(timeless) +
              " command(s) without a host or device time were left out");
      }
      if (needs.metadata) needs.metadata(s.run);
      s.analysis = make(analyses::make_predicate(s.run, sel));
      // Transfers are selected here, for every analysis alike (--filter by layer path,
      // --iteration and --skip-first by their ranges).
      const auto keep_transfer = analyses::make_transfer_predicate(s.run, sel);
      for (const auto& l : s.run.launches) s.analysis->add_launch(l);
      for (const auto& t : s.run.transfers)
        if (!keep_transfer || keep_transfer(t)) s.analysis->add_transfer(t);
      log::debug("loaded " + std::to_string(s.run.launches.size()) + " launch(es) into memory");
    }
    if (!sel.iteration_range.empty()) analyses::iterations_for(s.run, sel, false);
  } catch (const analyses::SelectionError& e) {
    throw UsageError(e.what());
  }
  log::warnings(s.diagnostics.warnings);
  return s;
}

Session run_ordered_session(const Request& r, const std::function<void(const model::Run&)>& ready,
                            const AnalysisMaker& make) {
  const auto& sel = r.selection;
  check_iteration_range_use(r, false);
  check_readable(r.inputs);
  if (!r.layers_from.empty()) check_readable({r.layers_from});
  apply_max_memory(r);
  Session s;
  const bool memory = !r.layers_from.empty() || !all_clprof(r);
  output::ReadProgress progress(bytes_to_read(r, memory ? 1 : 2));
  try {
    if (memory)
      load_in_memory(r, s, progress.counter());
    else
      stream_metadata(r, s, progress.counter());
    const model::Run& run = s.run;
    analyses::make_predicate(run,
                             sel);  // a selection the run cannot satisfy fails before any output
    if (!sel.iteration_range.empty()) analyses::iterations_for(run, sel, false);
    log::warnings(s.diagnostics.warnings);
    ready(run);
    if (memory) {
      s.analysis = make(analyses::make_predicate(run, sel));
      feed(run, *s.analysis);
    } else {
      s.analysis = stream_records(
          r, [&] { return make(analyses::make_predicate(run, sel)); }, 1, progress.counter());
      s.streamed = true;
    }
  } catch (const analyses::SelectionError& e) {
    throw UsageError(e.what());
  }
  return s;
}

std::optional<std::pair<int64_t, int64_t>> window_on_host_clock(const Request& r,
                                                                const model::Run& run) {
  const auto& w = r.selection.window;
  if (!w) return std::nullopt;
  const int64_t origin = analyses::RunClock(run, w->origin_ns).origin_ns();
  auto shifted = [origin](int64_t t, int64_t saturated) {
    int64_t v;
    return __builtin_add_overflow(t, origin, &v) ? saturated : v;
  };
  return std::make_pair(w->begin_ns == INT64_MIN ? INT64_MIN : shifted(w->begin_ns, INT64_MIN),
                        w->end_ns == INT64_MAX ? INT64_MAX : shifted(w->end_ns, INT64_MAX));
}

}  // namespace clprof::cli
