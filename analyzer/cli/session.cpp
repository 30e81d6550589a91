#include "cli/session.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "analyses/selection.hpp"
#include "output/log.hpp"
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

}  // namespace

Session run_session(const Request& r, const AnalysisMaker& make, SessionNeeds needs) {
  const auto& sel = r.selection;
  if (!sel.iteration_range.empty() && !sel.selects_iterations() && !needs.iterations)
    throw UsageError("--iteration-range " + sel.iteration_range +
                     ": it names the iteration range of --iteration, --skip-first or --per-iteration, "
                     "and none is given");
  check_readable(r.inputs);
  if (!r.layers_from.empty()) check_readable({r.layers_from});
  Session s;
  // --merge (Request::merge): traces of unrelated runs are read together too
  // (readers::LoadOptions::allow_unrelated); without it they are an error.
  const bool memory = needs.memory || sel.needs_run() || !r.layers_from.empty() || !all_clprof(r);
  try {
    if (!memory) {
      readers::StreamOptions so;
      so.threads = r.threads;
      so.allow_unrelated = r.merge;
      s.analysis = readers::stream_clprof_traces(r.inputs, s.run, [&] { return make({}); }, s.diagnostics, so);
      s.streamed = true;
      log::debug("streamed " + std::to_string(r.inputs.size()) + " trace(s)");
    } else {
      readers::LoadOptions lo;
      lo.forced_format = r.input_format;
      lo.allow_unrelated = r.merge;
      readers::load_run(r.inputs, lo, s.run, s.diagnostics);
      if (!r.layers_from.empty()) {
        model::Run source;
        readers::load_run({r.layers_from}, "", source, s.diagnostics);
        LayersFromOptions lo;
        lo.by = r.layers_by_enqueue ? LayersFromOptions::By::Enqueue : LayersFromOptions::By::Execution;
        auto result = attribute_by_host_time(s.run, source, lo);
        if (!result.note.empty())
          s.diagnostics.warnings.push_back(result.note.rfind("--layers-from", 0) == 0 ? result.note
                                                                                     : "--layers-from: " + result.note);
        if (result.by_enqueue > 0)
          s.diagnostics.warnings.push_back(
              "--layers-from: " + std::to_string(result.by_enqueue) +
              " launch(es) and transfer(s) have no device start on the host clock (no clock_sync for their "
              "device, or no device times): looked up by their enqueue time instead");
        if (result.launches_attributed == 0 && !s.run.launches.empty())
          s.diagnostics.warnings.push_back("--layers-from: no launch falls inside a range of " + r.layers_from);
      }
      s.analysis = make(analyses::make_predicate(s.run, sel));
      feed(s.run, *s.analysis);
      log::debug("loaded " + std::to_string(s.run.launches.size()) + " launch(es) into memory");
    }
    if (!sel.iteration_range.empty()) analyses::iterations_for(s.run, sel, false);
  } catch (const analyses::SelectionError& e) {
    throw UsageError(e.what());
  }
  log::warnings(s.diagnostics.warnings);
  return s;
}

}  // namespace clprof::cli
