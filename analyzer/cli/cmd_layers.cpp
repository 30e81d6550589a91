// clprof layers: per-layer breakdown, or every iteration in detail (--per-iteration).
#include "analyses/grouping.hpp"
#include "analyses/layers.hpp"
#include "analyses/selection.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/layers.hpp"
#include "output/views/partial.hpp"

namespace clprof::cli {

Runner setup_layers(CLI::App& app) {
  struct Options {
    TableOptions table;
    std::vector<std::string> speedup;
    bool per_iteration = false;
    bool no_kernels = false;
    PartialOptions partials;
  };
  using analyses::GroupBy;
  static const auto& groupings = analyses::launch_groupings();
  auto o = std::make_shared<Options>();
  add_table_options(app, o->table, groupings, "layers",
                    "A launch belongs to its innermost range; nested ranges print as a path "
                    "(net/conv1). A path whose outer "
                    "range repeats (one 'inference' range per iteration) is one row "
                    "aggregated over its instances: Iter counts "
                    "them, Median/Min/Max are per instance.");
  add_repeatable(app, "--speedup", o->speedup,
                 "Estimate times if kernels matching REGEX ran FACTOR times faster (repeatable; "
                 "first match wins)",
                 "'REGEX=FACTOR'");
  CLI::Option* per_iteration = app.add_flag("--per-iteration", o->per_iteration,
                                            "Every iteration in detail: its layers and their "
                                            "kernels, wall time, kernel time and per-kernel shares "
                                            "(the default of the table and markdown formats for "
                                            "profiles with per-iteration wall times, e.g. Arm "
                                            "NN; --per-iteration=false for the layer rows)");
  app.add_flag("--no-kernels", o->no_kernels, "Layer rows only, without each layer's kernels");
  add_partial_options(app, o->partials);
  return [o, per_iteration]() -> int {
    const auto speedup = parse_speedup_options(o->speedup);
    const bool given = per_iteration->count() > 0;
    std::vector<std::string> in_force;
    if (!speedup.empty()) in_force.push_back("--speedup");
    TableRun t = start_table_run(o->table, groupings, output::tables::layers_schema(), in_force);
    apply_run_start(o->partials, t.request);
    const Request& r = t.request;
    const GroupBy by = t.by;
    const bool partial = o->partials.partial;
    // The partials carry the plain layer rows only (docs/scale.md).
    if ((partial || o->partials.from_partials) &&
        ((given && o->per_iteration) || by != GroupBy::None || !speedup.empty()))
      throw UsageError(
          "--partial and --from-partials give the plain layer rows: --per-iteration, --by and "
          "--speedup do not take them");
    if (o->partials.from_partials) {
      auto rows = analyses::layer_rows(output::partial::read_layers(r.inputs), nullptr);
      auto result = output::tables::layers_result(rows, false, !o->no_kernels);
      order(result, t.sort, r.top);
      emit(result, r);
      return 0;
    }
    if (given && o->per_iteration &&
        (!speedup.empty() || o->no_kernels || !r.sort.empty() || r.top || by != GroupBy::None))
      throw UsageError(
          "--per-iteration lists every iteration as it ran: --speedup, --no-kernels, --sort, "
          "--top and --by do not apply to it");
    const size_t sort = t.sort;
    // Decided from the run's metadata, before the launches: whether the iterations are shown
    // in detail, and so what the analysis keeps a bucket per (layer_rows or iteration_details).
    bool detail = o->per_iteration && by == GroupBy::None;
    analyses::Iterations its;
    std::shared_ptr<const analyses::LayerKeys> keys;
    auto metadata = [&](const model::Run& run) {
      // Folded ranges have no host times: iterations are listed in detail from whole ones.
      auto whole = [&run] { return run.folded_ranges.empty(); };
      if (!given && by == GroupBy::None && !partial) {
        // Profiles that come with per-iteration wall times (Arm NN) print as vison prints
        // them, in the human formats; JSON and CSV keep one shape whatever the input.
        const bool human =
            r.format == output::Format::Table || r.format == output::Format::Markdown;
        const auto found = analyses::find_iterations(run, r.selection.iteration_range);
        for (const auto& p : run.processes)
          detail |= human && !found.range_ids.empty() && !p.iteration_wall_ns.empty() && whole();
        detail &= speedup.empty() && !o->no_kernels && r.sort.empty() && !r.top;
      }
      if (!detail) {
        keys = std::make_shared<const analyses::LayerKeys>(run);
        return;
      }
      // An --iteration-range that names no top-level range is its own error (run_session's).
      if (!r.selection.iteration_range.empty()) analyses::iterations_for(run, r.selection, false);
      try {
        its = analyses::iterations_for(run, r.selection, true);
      } catch (const analyses::SelectionError& e) {
        throw UsageError(std::string("--per-iteration: ") + e.what());
      }
      keys = std::make_shared<const analyses::LayerKeys>(run, its);
    };
    auto session = run_session(
        r,
        [by, &keys](analyses::LaunchPredicate keep) {
          return analyses::maybe_grouped(
              by, [keep, keys] { return std::make_unique<analyses::LayersAnalysis>(keep, keys); });
        },
        // The layer rows need the ranges' names and parents only (folded when streamed);
        // --per-iteration lists each range's host times.
        SessionNeeds{false, (!given || o->per_iteration) && by == GroupBy::None, metadata,
                     /*whole_ranges=*/given && o->per_iteration});
    if (by != GroupBy::None) {
      const auto& g = static_cast<analyses::GroupedAnalysis&>(*session.analysis);
      auto rows =
          analyses::grouped_layer_rows(g, analyses::GroupLabels(session.run, by, &g.devices()),
                                       session.run, speedup.empty() ? nullptr : &speedup);
      for (auto& t : analyses::timing_layer_rows(session.run)) rows.push_back(std::move(t));
      auto result = output::tables::layers_result(rows, !speedup.empty(), !o->no_kernels, by);
      order(result, sort, r.top);
      emit(result, r);
      return 0;
    }
    const auto& a = static_cast<analyses::LayersAnalysis&>(*session.analysis);
    const auto& run = session.run;
    if (partial) {
      // Imported layer times without kernels (Caffe) are not in the partial format.
      if (!run.layer_timings.empty())
        throw UsageError(
            "--partial: the input holds imported layer times without kernels, "
            "which partials do not carry (read it with clprof layers)");
      emit_text(output::partial::layers_json(analyses::layer_groups(a, run), run.processes.size()),
                r);
      return 0;
    }
    if (detail) {
      try {
        const auto keep = r.selection.selects_iterations()
                              ? analyses::selected_iterations(its, r.selection)
                              : std::unordered_set<uint64_t>{};
        auto details = analyses::select_details(analyses::iteration_details(a, run, its),
                                                r.selection.selects_iterations() ? &keep : nullptr);
        emit(output::tables::iterations_result(details, its.range_name), r);
      } catch (const analyses::SelectionError& e) {
        throw UsageError(std::string("--per-iteration: ") + e.what());
      }
      return 0;
    }
    auto rows = analyses::layer_rows(a, run, speedup.empty() ? nullptr : &speedup);
    for (auto& t : analyses::timing_layer_rows(run)) rows.push_back(std::move(t));
    auto result = output::tables::layers_result(rows, !speedup.empty(), !o->no_kernels);
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
