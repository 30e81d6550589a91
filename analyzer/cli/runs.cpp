#include "cli/runs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <memory>

#include "analyses/gemm/gemm.hpp"
#include "analyses/selection.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::cli {

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string label_of(const std::vector<std::string>& files, bool whole_path) {
  std::string l = whole_path ? files.front() : base_name(files.front());
  if (files.size() > 1) l += " +" + std::to_string(files.size() - 1);
  return l;
}

// compare's analysis: the profile, and the selection's launches and transfers kept for
// clprof advise's rules (as cmd_advise.cpp's Collect).
class ProfileAndCommands : public analyses::ProfileAnalysis {
 public:
  ProfileAndCommands(analyses::LaunchPredicate keep,
                     std::shared_ptr<const std::vector<gemm::Rule>> rules)
      : ProfileAnalysis(keep, std::move(rules)), keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override {
    ProfileAnalysis::add_launch(l);
    if (!keep_ || keep_(l)) launches.push_back(l);
  }
  void add_transfer(const model::Transfer& t) override { transfers.push_back(t); }
  void merge(Analysis&& other) override {
    auto& o = dynamic_cast<ProfileAndCommands&>(other);
    ProfileAnalysis::merge(std::move(o));
    launches.insert(launches.end(), o.launches.begin(), o.launches.end());
    transfers.insert(transfers.end(), o.transfers.begin(), o.transfers.end());
  }
  std::vector<model::Launch> launches;
  std::vector<model::Transfer> transfers;

 private:
  analyses::LaunchPredicate keep_;
};

}  // namespace

std::vector<RunSpec> parse_runs(const std::vector<std::string>& args) {
  std::vector<RunSpec> runs;
  for (const auto& a : args) {
    RunSpec run;
    struct stat st;
    if (a.find(',') == std::string::npos || ::stat(a.c_str(), &st) == 0) {
      run.files.push_back(a);
    } else {
      size_t begin = 0;
      while (true) {
        const size_t comma = a.find(',', begin);
        const std::string part =
            a.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
        if (part.empty())
          throw UsageError("'" + a + "': an empty trace name in a comma-separated run");
        run.files.push_back(part);
        if (comma == std::string::npos) break;
        begin = comma + 1;
      }
    }
    runs.push_back(std::move(run));
  }
  // File names, unless two runs would then read alike; then the paths as given; numbered
  // file names if even those repeat (the same trace compared with itself).
  const auto distinct = [&runs] {
    for (size_t i = 0; i < runs.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (runs[i].label == runs[j].label) return false;
    return true;
  };
  for (bool whole : {false, true}) {
    for (auto& r : runs) r.label = label_of(r.files, whole);
    if (distinct()) return runs;
  }
  for (size_t i = 0; i < runs.size(); ++i)
    runs[i].label = label_of(runs[i].files, false) + " (" + std::to_string(i + 1) + ")";
  return runs;
}

Session read_run(const Request& request, const RunSpec& run, const AnalysisMaker& make) {
  Request r = request;
  r.inputs = run.files;
  try {
    return run_session(r, make, SessionNeeds{false, true, {}, true});
  } catch (const UsageError& e) {
    // Which run a selection does not fit; a file that cannot be opened names itself.
    const std::string what = e.what();
    if (what.rfind("cannot open", 0) == 0) throw;
    throw UsageError(run.label + ": " + what);
  }
}

SelectedIterations select_iterations(const model::Run& run, const Request& request,
                                     const std::string& label,
                                     const std::unordered_set<uint64_t>* holding_launches) {
  const auto& sel = request.selection;
  try {
    SelectedIterations s;
    s.iterations = analyses::iterations_for(run, sel, false, holding_launches);
    if (sel.selects_iterations()) {
      s.kept = analyses::selected_iterations(s.iterations, sel);
      s.all = false;
    }
    return s;
  } catch (const analyses::SelectionError& e) {
    throw UsageError(label + ": " + e.what());
  }
}

analyses::RunFigures figures_of(const Session& session, analyses::ProfileAnalysis& profile,
                                const Request& request, const std::string& label,
                                analyses::Stat stat) {
  const auto holding = analyses::ranges_holding_launches(profile.layers, session.run);
  const SelectedIterations its = select_iterations(session.run, request, label, &holding);
  std::optional<analyses::GemmResult> gemm;
  if (profile.gemm) gemm = analyses::finish_gemm(std::move(*profile.gemm), session.run, 0);
  return analyses::run_figures(label, profile, session.run, its.iterations, its.selected(), stat,
                               gemm ? &*gemm : nullptr);
}

analyses::RunFigures read_run_figures(const Request& request, const RunSpec& run,
                                      analyses::Stat stat, bool gemm) {
  std::shared_ptr<const std::vector<gemm::Rule>> rules;
  if (gemm) rules = gemm::shared_builtin_rules();
  auto session = read_run(request, run, [rules](analyses::LaunchPredicate keep) {
    return std::make_unique<ProfileAndCommands>(std::move(keep), rules);
  });
  auto& profile = static_cast<ProfileAndCommands&>(*session.analysis);
  auto figures = figures_of(session, profile, request, run.label, stat);
  // The rules read the run with its commands (the session streams them past the model).
  session.run.launches = std::move(profile.launches);
  session.run.transfers = std::move(profile.transfers);
  figures.advice = analyses::advice::advise(session.run);
  return figures;
}

}  // namespace clprof::cli
