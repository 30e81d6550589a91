// clprof summary: one overview of the run, and the same figures per device.
#include "analyses/run_summary.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/tables/summary.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::cli {

Runner setup_summary(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  // One object: nothing to sort or cut (the options are rejected as unknown).
  add_common_options(app, *o, Takes{false});
  app.footer(help_footer(
      "summary",
      "wall: first to last host event of the run; device busy: union of the kernel intervals "
      "per device (summed over devices); utilization = busy / wall in percent."));
  return [o]() -> int {
    const Request r = make_request(*o);
    check_output_path(r);
    auto session = run_session(
        r,
        [](analyses::LaunchPredicate keep) {
          return std::make_unique<analyses::RunSummaryAnalysis>(std::move(keep),
                                                                gemm::shared_builtin_rules());
        },
        kFoldedRanges);
    auto summary = analyses::summarize(
        std::move(static_cast<analyses::RunSummaryAnalysis&>(*session.analysis)), session.run,
        nullptr, 0, window_on_host_clock(r, session.run));
    log::warnings(summary.warnings);
    emit(output::tables::summary_result(summary), r);
    return 0;
  };
}

}  // namespace clprof::cli
