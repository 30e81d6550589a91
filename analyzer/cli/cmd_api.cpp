// clprof api: host time per OpenCL function (per thread or process with --by).
#include "analyses/api.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/api.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::cli {

Runner setup_api(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string by;
  };
  using analyses::GroupBy;
  static const auto& groupings = analyses::api_groupings();
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  add_by_option(app, o->by, groupings);
  app.footer(help_footer("api",
                         "Host time from the call's entry to its return. The trace records the "
                         "enqueues of kernels and transfers, "
                         "clFinish, clWaitForEvents and the program builds; other functions are "
                         "not recorded (docs/cli.md)."));
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    const GroupBy by = parse_by(o->by, groupings);
    std::string extra;
    const size_t sort =
        sort_column(output::tables::api_schema(), {output::tables::by_option(by)}, r, extra);
    auto session = run_session(r, [by](analyses::LaunchPredicate keep) {
      return std::make_unique<analyses::ApiAnalysis>(by, std::move(keep));
    });
    auto& a = static_cast<analyses::ApiAnalysis&>(*session.analysis);
    a.add_run_calls(session.run);
    const analyses::GroupLabels labels(session.run, by);
    auto result = output::tables::api_result(analyses::api_rows(a), by, &labels);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
