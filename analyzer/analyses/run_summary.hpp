// `clprof summary`'s analysis: the summary figures and the GEMM work (GFLOP, which needs
// the GEMM rules) fed together in one pass. One instance per reading thread, merged in file
// order (analysis.hpp); summarize / summary_inputs on one thread.
// Memory: the summary's (summary.hpp) plus the GEMM analysis' in grouped mode (gemm.hpp):
// with gemm_rows = false (`clprof summary`) nothing per standalone GEMM launch but a count
// per shape, and at finish 8 bytes per GEMM call for ordering the GFLOP terms.
#pragma once

#include "analyses/gemm/gemm.hpp"
#include "analyses/summary.hpp"

namespace clprof::analyses {

class RunSummaryAnalysis : public Analysis {
 public:
  // `gemm_rules`: what decodes the GEMM launches (readers/gemm_rules: the built-in table).
  // `gemm_rows`: summarize's `gemm` result gets its group rows (GemmResult::groups, the
  // report's); false keeps no per-launch durations (the GFLOP figures need none).
  RunSummaryAnalysis(LaunchPredicate keep,
                     std::shared_ptr<const std::vector<gemm::Rule>> gemm_rules,
                     bool gemm_rows = true);
  void add_launch(const model::Launch& l) override;
  void add_transfer(const model::Transfer& t) override;
  void merge(Analysis&& other) override;

  SummaryAnalysis summary;
  GemmAnalysis gemm;

 private:
  LaunchPredicate keep_;
};

// The summary of `analysis` over `run` (consumes the analysis). `gemm`: also receives the
// finished GEMM groups (percent of `peak_gflops` when > 0; none if the analysis was made
// with gemm_rows = false), for the report; its gflop_terms_per_device stay empty (the sums
// are in gflop_per_device).
Summary summarize(RunSummaryAnalysis&& analysis, const model::Run& run, GemmResult* gemm = nullptr,
                  double peak_gflops = 0,
                  std::optional<std::pair<int64_t, int64_t>> window_ns = std::nullopt);

// The mergeable inputs of the same summary (clprof summary --partial; consumes the analysis):
// finish_summary(inputs) is summarize's result.
SummaryInputs summary_inputs(RunSummaryAnalysis&& analysis, const model::Run& run,
                             std::optional<std::pair<int64_t, int64_t>> window_ns = std::nullopt);

}  // namespace clprof::analyses
