// clprof api: host time per OpenCL function (per thread or process with --by).
#include "analyses/api.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/api.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::cli {

Runner setup_api(CLI::App& app) {
  return table_command(
      app, analyses::api_groupings(), "api",
      "Host time from the call's entry to its return. The trace records the enqueues of kernels "
      "and transfers, clFinish, clWaitForEvents and the program builds; other functions are not "
      "recorded (docs/cli.md).",
      output::tables::api_schema(), [](const TableRun& t) {
        const analyses::GroupBy by = t.by;
        auto session = run_session(
            t.request,
            [by](analyses::LaunchPredicate keep) {
              return std::make_unique<analyses::ApiAnalysis>(by, std::move(keep));
            },
            kFoldedRanges);
        auto& a = static_cast<analyses::ApiAnalysis&>(*session.analysis);
        a.add_run_calls(session.run);
        const analyses::GroupLabels labels(session.run, by);
        return output::tables::api_result(analyses::api_rows(a), by, &labels);
      });
}

}  // namespace clprof::cli
