// Reading a command's inputs and running its analysis over them: streaming (clprof traces,
// several threads) when nothing needs the whole run first, else loading the run into
// memory and feeding the analysis the selected launches. Prints the readers' warnings.
#pragma once

#include <functional>
#include <memory>

#include "analysis.hpp"
#include "analyses/ranges.hpp"
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
  bool memory = false;      // the analysis needs the launches in the run (launches)
  bool iterations = false;  // the command reads the iteration range (layers --per-iteration)
};

// Reads the inputs of `request` and runs one Analysis over them. Throws UsageError (a
// selection the run cannot satisfy, an unused --iteration-range) and readers::InputError.
Session run_session(const Request& request, const AnalysisMaker& make, SessionNeeds needs = {});

}  // namespace clprof::cli
