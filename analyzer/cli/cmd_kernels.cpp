// clprof kernels: per-kernel breakdown.
#include "analyses/grouping.hpp"
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/kernels.hpp"
#include "output/views/partial.hpp"

namespace clprof::cli {

Runner setup_kernels(CLI::App& app) {
  struct Options {
    TableOptions table;
    std::vector<std::string> speedup;
    PartialOptions partials;
  };
  static const auto& groupings = analyses::launch_groupings();
  auto o = std::make_shared<Options>();
  add_table_options(
      app, o->table, groupings, "kernels",
      "Kernel time is device end - start. Percent is the share of the total kernel time. Kernels "
      "of one name from programs of other sources or build options are rows apart: NAME [TAG].");
  add_repeatable(app, "--speedup", o->speedup,
                 "Estimate times if kernels matching REGEX ran FACTOR times faster (repeatable; "
                 "first match wins)",
                 "'REGEX=FACTOR'");
  add_partial_options(app, o->partials);
  return [o]() -> int {
    const auto speedup = parse_speedup_options(o->speedup);
    const bool estimate = !speedup.empty();
    std::vector<std::string> in_force;
    if (estimate) in_force.push_back("--speedup");
    TableRun t = start_table_run(o->table, groupings, output::tables::kernels_schema(), in_force);
    apply_run_start(o->partials, t.request);
    const bool partial = o->partials.partial, from_partials = o->partials.from_partials;
    const analyses::GroupBy by = t.by;
    if ((partial || from_partials) && by != analyses::GroupBy::None)
      throw UsageError("--by does not take --partial or --from-partials");
    if (from_partials) {
      auto variants = output::partial::read_kernels(t.request.inputs);
      const int64_t total_ns = analyses::total_kernel_ns(variants);
      const auto labels = analyses::labels_of(variants);
      auto rows = analyses::make_kernel_rows(analyses::by_row_name(std::move(variants), labels),
                                             total_ns, estimate ? &speedup : nullptr);
      std::optional<int64_t> estimated;
      if (estimate) {
        estimated = 0;
        for (const auto& k : rows) *estimated += k.est_total_ns.value_or(k.stats.total_ns);
      }
      if (t.sort_extra == "order") analyses::sort_kernel_rows(rows, "order");
      auto result =
          output::tables::kernels_result(rows, estimate, total_ns, rows.size(), estimated, by);
      return finish_table_run(result, t);
    }
    auto session = run_session(
        t.request,
        [by](analyses::LaunchPredicate keep) {
          return analyses::maybe_grouped(
              by, [keep] { return std::make_unique<analyses::KernelsAnalysis>(keep); });
        },
        kFoldedRanges);
    if (partial) {
      const auto& a = static_cast<const analyses::KernelsAnalysis&>(*session.analysis);
      emit_text(
          output::partial::kernels_json(a.variants(session.run), session.run.processes.size()),
          t.request);
      return 0;
    }
    auto table =
        analyses::kernel_table(*session.analysis, by, session.run, estimate ? &speedup : nullptr);
    if (t.sort_extra == "order") analyses::sort_kernel_rows(table.rows, "order");
    auto result = output::tables::kernels_result(table.rows, estimate, table.total_ns,
                                                 table.kernels, table.estimated_total_ns, by);
    return finish_table_run(result, t);
  };
}

}  // namespace clprof::cli
