// clprof api: host time per OpenCL function (per thread or process with --by).
#include "analyses/api.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/api.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::cli {

Runner setup_api(CLI::App& app) {
  static const auto& groupings = analyses::api_groupings();
  auto o = table_options(app, groupings, "api",
                         "Host time from the call's entry to its return. The trace records the "
                         "enqueues of kernels and transfers, "
                         "clFinish, clWaitForEvents and the program builds; other functions are "
                         "not recorded (docs/cli.md).");
  return [o]() -> int {
    const TableRun t = start_table_run(*o, groupings, output::tables::api_schema());
    const analyses::GroupBy by = t.by;
    auto session = run_session(t.request, [by](analyses::LaunchPredicate keep) {
      return std::make_unique<analyses::ApiAnalysis>(by, std::move(keep));
    });
    auto& a = static_cast<analyses::ApiAnalysis&>(*session.analysis);
    a.add_run_calls(session.run);
    const analyses::GroupLabels labels(session.run, by);
    auto result = output::tables::api_result(analyses::api_rows(a), by, &labels);
    return finish_table_run(result, t);
  };
}

}  // namespace clprof::cli
