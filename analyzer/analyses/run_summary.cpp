#include "analyses/run_summary.hpp"

namespace clprof::analyses {

RunSummaryAnalysis::RunSummaryAnalysis(LaunchPredicate keep,
                                       std::shared_ptr<const std::vector<gemm::Rule>> gemm_rules,
                                       bool gemm_rows)
    : gemm(std::move(gemm_rules), keep, true, gemm_rows), keep_(std::move(keep)) {}

void RunSummaryAnalysis::add_launch(const model::Launch& l) {
  if (keep_ && !keep_(l)) return;
  summary.add_launch(l);
  gemm.add_launch(l);
}

void RunSummaryAnalysis::add_transfer(const model::Transfer& t) {
  summary.add_transfer(t);
}

void RunSummaryAnalysis::merge(Analysis&& other) {
  auto& o = dynamic_cast<RunSummaryAnalysis&>(other);
  summary.merge(std::move(o.summary));
  gemm.merge(std::move(o.gemm));
}

Summary summarize(RunSummaryAnalysis&& a, const model::Run& run, GemmResult* gemm,
                  double peak_gflops, std::optional<std::pair<int64_t, int64_t>> window_ns) {
  auto g = finish_gemm(std::move(a.gemm), run, peak_gflops, /*gflop_terms=*/false);
  // One term per device, its sum: finish_summary adds a device's terms from 0.0 in order, as
  // finish_gemm added them into gflop_per_device, and 0.0 + sum == sum.
  std::map<uint32_t, std::vector<double>> terms;
  for (const auto& [device, sum] : g.gflop_per_device) terms[device] = {sum};
  auto in = analyses::summary_inputs(a.summary, run, std::move(terms), g.unsized_calls_per_device,
                                     window_ns);
  auto s = finish_summary(in);
  if (gemm) *gemm = std::move(g);
  return s;
}

SummaryInputs summary_inputs(RunSummaryAnalysis&& a, const model::Run& run,
                             std::optional<std::pair<int64_t, int64_t>> window_ns) {
  auto g = finish_gemm(std::move(a.gemm), run, 0);
  return analyses::summary_inputs(a.summary, run, std::move(g.gflop_terms_per_device),
                                  std::move(g.unsized_calls_per_device), window_ns);
}

}  // namespace clprof::analyses
