// clprof summary: one overview of the run, and the same figures per device.
#include "analyses/run_summary.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/tables/summary.hpp"
#include "output/views/partial.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::cli {

Runner setup_summary(CLI::App& app) {
  struct Options {
    CommonOptions common;
    PartialOptions partials;
  };
  auto o = std::make_shared<Options>();
  // One object: nothing to sort or cut (the options are rejected as unknown).
  add_common_options(app, o->common, Takes{false});
  add_partial_options(app, o->partials);
  app.footer(help_footer(
      "summary",
      "wall: first to last host event of the run; device busy: union of the kernel intervals "
      "per device (summed over devices); utilization = busy / wall in percent."));
  return [o]() -> int {
    Request r = make_request(o->common);
    apply_run_start(o->partials, r);
    check_output_path(r);
    if (o->partials.from_partials) {
      auto inputs = output::partial::read_summary(r.inputs);
      auto summary = analyses::finish_summary(inputs);
      log::warnings(summary.warnings);
      emit(output::tables::summary_result(summary), r);
      return 0;
    }
    auto session = run_session(
        r,
        [](analyses::LaunchPredicate keep) {
          // No GEMM group rows: the summary prints only the GFLOP figures.
          return std::make_unique<analyses::RunSummaryAnalysis>(
              std::move(keep), gemm::shared_builtin_rules(), /*gemm_rows=*/false);
        },
        kFoldedRanges);
    auto& analysis = static_cast<analyses::RunSummaryAnalysis&>(*session.analysis);
    if (o->partials.partial) {
      auto inputs = analyses::summary_inputs(std::move(analysis), session.run,
                                             window_on_host_clock(r, session.run));
      emit_text(output::partial::summary_json(inputs, session.run), r);
      return 0;
    }
    auto summary = analyses::summarize(std::move(analysis), session.run, nullptr, 0,
                                       window_on_host_clock(r, session.run));
    log::warnings(summary.warnings);
    emit(output::tables::summary_result(summary), r);
    return 0;
  };
}

}  // namespace clprof::cli
