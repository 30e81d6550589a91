// clprof kernels: per-kernel breakdown.
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/kernels.hpp"

namespace clprof::cli {

Runner setup_kernels(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::vector<std::string> speedup;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  add_repeatable(app, "--speedup", o->speedup,
                 "Estimate times if kernels matching REGEX ran FACTOR times faster (repeatable; first match wins)",
                 "'REGEX=FACTOR'");
  app.footer(help_footer("kernels", "Kernel time is device end - start. Percent is the share of the total kernel time."));
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    const auto speedup = parse_speedup_options(o->speedup);
    const bool estimate = !speedup.empty();
    std::string extra;
    const size_t sort = sort_column(output::tables::kernels_schema(), estimate ? std::vector<std::string>{"--speedup"} : std::vector<std::string>{}, r, extra);
    auto session = run_session(r, [](analyses::LaunchPredicate keep) {
      return std::make_unique<analyses::KernelsAnalysis>(std::move(keep));
    });
    const auto& a = static_cast<analyses::KernelsAnalysis&>(*session.analysis);
    auto rows = a.rows(estimate ? &speedup : nullptr);
    if (extra == "order") analyses::sort_kernel_rows(rows, "order");
    std::optional<int64_t> estimated;
    if (estimate) {
      estimated = 0;
      for (const auto& k : rows) *estimated += k.est_total_ns.value_or(k.stats.total_ns);
    }
    auto result = output::tables::kernels_result(rows, estimate, analyses::total_kernel_ns(a.accumulators()),
                                                 a.accumulators().size(), estimated);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
