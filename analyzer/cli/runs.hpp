// Runs on the command line of `compare` and `report`: each positional argument is one run;
// the traces of one run (several processes) are joined by commas. Reading a run applies the
// request's selection (--filter, --iteration, --skip-first, --iteration-range) to it.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "analyses/compare.hpp"
#include "cli/request.hpp"
#include "cli/session.hpp"

namespace clprof::cli {

struct RunSpec {
  std::vector<std::string> files;
  std::string label;  // for headings: the first file's name (+N more), made distinct
};

// An argument naming an existing file is that file (even with a comma in its name), else
// the comma-separated files. Throws UsageError on an empty part ("a.json,").
std::vector<RunSpec> parse_runs(const std::vector<std::string>& args);

// Reads `run` with `request`'s options and selection into one Analysis made by `make`
// (--iteration-range is always used). Throws UsageError naming the run, readers::InputError.
Session read_run(const Request& request, const RunSpec& run, const AnalysisMaker& make);

// The run's iteration range and the iterations the request's selection keeps.
struct SelectedIterations {
  analyses::Iterations iterations;
  std::unordered_set<uint64_t> kept;
  bool all = true;
  const std::unordered_set<uint64_t>* selected() const { return all ? nullptr : &kept; }
};
// Throws UsageError naming the run (`label`) when the selection does not fit it.
// `holding_launches`: as analyses::find_iterations'.
SelectedIterations select_iterations(
    const model::Run& run, const Request& request, const std::string& label,
    const std::unordered_set<uint64_t>* holding_launches = nullptr);

// The figures compare compares, from `profile` fed with `session`'s run (its GEMM launches
// are consumed). Throws UsageError when the selection does not fit the run.
analyses::RunFigures figures_of(const Session& session, analyses::ProfileAnalysis& profile,
                                const Request& request, const std::string& label,
                                analyses::Stat stat);

// Reads `run` and reduces it to its figures (GEMM shapes when `gemm`).
analyses::RunFigures read_run_figures(const Request& request, const RunSpec& run,
                                      analyses::Stat stat, bool gemm);

}  // namespace clprof::cli
