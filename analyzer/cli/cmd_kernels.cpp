// clprof kernels: per-kernel breakdown.
#include "analyses/grouping.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/kernels.hpp"

namespace clprof::cli {

Runner setup_kernels(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::vector<std::string> speedup;
    std::string by;
  };
  using analyses::GroupBy;
  static const auto& groupings = analyses::launch_groupings();
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  add_by_option(app, o->by, groupings);
  add_repeatable(app, "--speedup", o->speedup,
                 "Estimate times if kernels matching REGEX ran FACTOR times faster (repeatable; "
                 "first match wins)",
                 "'REGEX=FACTOR'");
  app.footer(help_footer(
      "kernels",
      "Kernel time is device end - start. Percent is the share of the total kernel time."));
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    const auto speedup = parse_speedup_options(o->speedup);
    const bool estimate = !speedup.empty();
    const GroupBy by = parse_by(o->by, groupings);
    std::vector<std::string> options;
    if (estimate) options.push_back("--speedup");
    if (by != GroupBy::None) options.push_back(output::tables::by_option(by));
    std::string extra;
    const size_t sort = sort_column(output::tables::kernels_schema(), options, r, extra);
    auto session =
        run_session(r, [by](analyses::LaunchPredicate keep) -> std::unique_ptr<Analysis> {
          if (by == GroupBy::None)
            return std::make_unique<analyses::KernelsAnalysis>(std::move(keep));
          return std::make_unique<analyses::GroupedAnalysis>(
              by, [keep] { return std::make_unique<analyses::KernelsAnalysis>(keep); });
        });
    std::vector<analyses::KernelRow> rows;
    int64_t total = 0;
    uint64_t kernels = 0;
    if (by == GroupBy::None) {
      const auto& a = static_cast<analyses::KernelsAnalysis&>(*session.analysis);
      rows = a.rows(estimate ? &speedup : nullptr);
      total = analyses::total_kernel_ns(a.accumulators());
      kernels = a.accumulators().size();
    } else {
      const auto& g = static_cast<analyses::GroupedAnalysis&>(*session.analysis);
      rows = analyses::grouped_kernel_rows(g, analyses::GroupLabels(session.run, by, &g.devices()),
                                           estimate ? &speedup : nullptr, total, kernels);
    }
    if (extra == "order") analyses::sort_kernel_rows(rows, "order");
    std::optional<int64_t> estimated;
    if (estimate) {
      estimated = 0;
      for (const auto& k : rows) *estimated += k.est_total_ns.value_or(k.stats.total_ns);
    }
    auto result = output::tables::kernels_result(rows, estimate, total, kernels, estimated, by);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
