// `clprof summary`'s analysis: the summary figures and the GEMM work (GFLOP, which needs
// the GEMM rules) fed together in one pass.
#pragma once

#include "analyses/gemm/gemm.hpp"
#include "analyses/summary.hpp"

namespace clprof::analyses {

class RunSummaryAnalysis : public Analysis {
 public:
  explicit RunSummaryAnalysis(LaunchPredicate keep);
  void add_launch(const model::Launch& l) override;
  void add_transfer(const model::Transfer& t) override;
  void merge(Analysis&& other) override;

  SummaryAnalysis summary;
  GemmAnalysis gemm;

 private:
  LaunchPredicate keep_;
};

// The summary of `analysis` over `run` (consumes the analysis).
Summary summarize(RunSummaryAnalysis&& analysis, const model::Run& run);

}  // namespace clprof::analyses
