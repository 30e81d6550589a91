// clprof ranks: one row per rank of a parallel job (one trace each); --kernel NAME: that
// kernel's spread across the ranks.
#include "analyses/ranks.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/ranks.hpp"
#include "output/views/partial.hpp"

namespace clprof::cli {

Runner setup_ranks(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string kernel, metric = "kernel";
    PartialOptions partials;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  app.add_option("--kernel", o->kernel,
                 "That kernel's total time per rank instead: min, median, max, slowest rank")
      ->type_name("NAME");
  app.add_option("--metric", o->metric,
                 "What the deviation and the outlier rule compare: kernel (sum of kernel times, "
                 "the default), busy (device busy) or wall")
      ->type_name("kernel|busy|wall");
  add_partial_options(app, o->partials);
  app.footer(help_footer(
      "ranks",
      "Each trace is one rank (its header's rank, else null: rows by file). The traces are read "
      "together as with --merge. outlier: more than 3 median absolute deviations (unscaled) and "
      "more than 10 % from the median rank (docs/cli.md \"clprof ranks\")."));
  return [o]() -> int {
    const auto metric = analyses::parse_rank_metric(o->metric);
    if (!metric) throw UsageError("--metric " + o->metric + ": use kernel, busy or wall");
    Request r = make_request(o->common);
    r.merge = true;  // the ranks of a job are separate runs of one program
    apply_run_start(o->partials, r);
    check_output_path(r);
    std::string extra;
    const size_t sort = o->kernel.empty()
                            ? sort_column(output::tables::ranks_schema(), {}, r, extra)
                            : output::Schema::npos;
    if (o->partials.partial && !o->kernel.empty())
      throw UsageError("--kernel does not take --partial (give it to --from-partials)");
    analyses::ProcessKernels kernels;
    analyses::RankTable table;
    if (o->partials.from_partials) {
      auto merged = output::partial::read_ranks(r.inputs);
      kernels = std::move(merged.kernels);
      table = analyses::finish_rank_table(std::move(merged.rows), *metric);
    } else {
      auto session = run_session(
          r,
          [](analyses::LaunchPredicate keep) {
            return std::make_unique<analyses::RanksAnalysis>(std::move(keep));
          },
          kFoldedRanges);
      auto& a = static_cast<analyses::RanksAnalysis&>(*session.analysis);
      table = analyses::rank_table(a.summary, a.kernels, session.run, *metric);
      kernels = std::move(a.kernels);
    }
    if (o->partials.partial) {
      emit_text(output::partial::ranks_json(table, kernels), r);
      return 0;
    }
    if (!o->kernel.empty()) {
      const auto spread = analyses::kernel_spread(kernels, table, o->kernel);
      if (!spread) throw UsageError("--kernel " + o->kernel + ": no rank launched that kernel");
      emit(output::tables::rank_kernel_result(*spread), r);
      return 0;
    }
    auto result = output::tables::ranks_result(table);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
