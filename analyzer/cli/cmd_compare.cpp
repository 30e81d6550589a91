// clprof compare: BASE against each OTHER run, per kernel, layer and (--gemm) GEMM shape;
// --fail-if-slower makes it a performance gate (exit status 3).
#include <cmath>
#include <cstdlib>

#include "analyses/compare.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/runs.hpp"
#include "format.hpp"
#include "output/log.hpp"
#include "output/tables/compare.hpp"

namespace clprof::cli {

namespace {

// A percentage for `option`: a finite number >= 0.
double parse_percent(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e6)
    throw UsageError(option + ": expected a percentage from 0 to 1000000, not '" + text + "'");
  return v;
}

std::string sort_help() {
  std::string fields;
  for (const auto& f : output::sort_fields(output::tables::compare_items_schema(), {}))
    fields += (fields.empty() ? "" : ", ") + f;
  return "--sort FIELD orders each section's items (items[] fields: " + fields +
         "; numbers largest first, names A-Z), --top N keeps the first N of each.";
}

}  // namespace

Runner setup_compare(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string stat = "median";
    bool gemm = false;
    std::string fail_if_slower;
    std::string min_share = "1";
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  app.get_option("traces")
      ->description(
          "BASE, then one or more OTHER runs; the traces of one run are joined by commas "
          "(a.json,b.json)")
      ->type_name("BASE OTHER...");
  for (const char* name : {"--layers-from", "--layers-by"}) app.remove_option(app.get_option(name));
  app.add_option("--stat", o->stat,
                 "Time of a kernel or layer per iteration: median, min or mean over the iterations")
      ->type_name("STAT")
      ->capture_default_str();
  app.add_flag("--gemm", o->gemm,
               "Also compare GEMM shapes (M, N, K, batch): time per launch and GFLOPS");
  app.add_option("--fail-if-slower", o->fail_if_slower,
                 "Exit with status 3 when the total or a kernel (above --min-share) got slower by "
                 "more than PCT "
                 "percent; the offenders are named on stderr")
      ->type_name("PCT");
  app.add_option(
         "--min-share", o->min_share,
         "--fail-if-slower looks at kernels taking at least PCT percent of the base's total")
      ->type_name("PCT")
      ->capture_default_str();
  app.footer(help_footer("compare",
                         "Per iteration: --stat over the selected iterations of what a kernel or "
                         "layer took in each (a run without an "
                         "iteration range is one iteration: launches x --stat of one launch). GEMM "
                         "shapes: per launch. Layers match "
                         "by path below the iteration range, Arm NN's _#N numbers dropped. Exit "
                         "status 3: --fail-if-slower "
                         "tripped.\n" +
                             sort_help()));
  return [o]() -> int {
    Request r = make_request(o->common);
    const auto stat = analyses::parse_stat(o->stat);
    if (!stat) throw UsageError("--stat: expected median, min or mean, not '" + o->stat + "'");
    const bool gate = !o->fail_if_slower.empty();
    const double fail = gate ? parse_percent("--fail-if-slower", o->fail_if_slower) : 0;
    const double min_share = parse_percent("--min-share", o->min_share);
    if (r.inputs.size() < 2) throw UsageError("compare needs a BASE and at least one OTHER run");
    const auto runs = parse_runs(r.inputs);
    r.inputs.clear();
    for (const auto& run : runs)
      r.inputs.insert(r.inputs.end(), run.files.begin(), run.files.end());
    check_output_path(r);
    std::string extra;
    const size_t sort = sort_column(output::tables::compare_items_schema(), {}, r, extra);

    std::vector<analyses::RunFigures> figures;
    for (const auto& run : runs) figures.push_back(read_run_figures(r, run, *stat, o->gemm));
    std::vector<analyses::Comparison> comparisons;
    for (size_t i = 1; i < figures.size(); ++i) {
      comparisons.push_back(analyses::compare_runs(figures[0], figures[i]));
      comparisons.back().stat = *stat;
    }
    auto result = output::tables::compare_result(comparisons);
    output::tables::order_items(result, sort, r.top);
    emit(result, r);
    if (!gate) return 0;
    // A side without kernel time has nothing to compare: the gate refuses rather than
    // pass (0 ns is never "not slower").
    for (const auto& c : comparisons)
      for (const auto& [label, total] :
           {std::pair{c.base_label, c.base_total_ns}, std::pair{c.other_label, c.other_total_ns}})
        if (total <= 0) {
          log::error("--fail-if-slower " + o->fail_if_slower + ": " + label +
                     " has no kernel time to compare (0 ns" +
                     (c.base_iterations || c.other_iterations
                          ? std::string(" in its iterations; --iteration-range names another range")
                          : std::string()) +
                     "): the gate cannot pass");
          return 2;
        }
    bool tripped = false;
    for (const auto& c : comparisons) {
      const auto offenders = analyses::slower_than(c, fail, min_share);
      if (offenders.empty()) continue;
      tripped = true;
      log::error("--fail-if-slower " + o->fail_if_slower + ": " + c.other_label +
                 " is slower than " + c.base_label + " by more than " + o->fail_if_slower +
                 "% in:");
      for (const auto& off : offenders)
        log::error("  " + off.what + ": " + output::format_ns(off.base_ns) + " -> " +
                   output::format_ns(off.other_ns) + " (+" +
                   output::format_fixed(off.delta_percent, 1) + "%)");
    }
    return tripped ? 3 : 0;
  };
}

}  // namespace clprof::cli
