// clprof report: one self-contained HTML page for a run, or BASE against OTHER.
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/runs.hpp"
#include "output/log.hpp"
#include "output/views/report.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"
#include "readers/sweeps.hpp"

#ifndef CLPROF_VERSION
#define CLPROF_VERSION "unknown"
#endif

namespace clprof::cli {

Runner setup_report(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string peak;
    std::string stat = "median";
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common, Takes{false, false, false});
  app.get_option("traces")
      ->description(
          "One run, or BASE and OTHER to compare; the traces of one run are joined by commas "
          "(a.json,b.json)")
      ->type_name("RUN [OTHER]");
  // An HTML page: no table format, width or row cut; one run's own timing profile only.
  for (const char* name : {"--layers-from", "--layers-by"}) app.remove_option(app.get_option(name));
  app.add_option("--peak", o->peak, "Peak GFLOPS of the device: drawn as a line on the GEMM chart")
      ->type_name("GFLOPS");
  app.add_option("--stat", o->stat,
                 "With two runs: the time per iteration compared (median, min or mean)")
      ->type_name("STAT")
      ->capture_default_str();
  app.footer(
      "Writes one HTML file (-o FILE, else stdout) that needs nothing else: charts are inline SVG, "
      "the only script "
      "sorts the tables. With two runs it opens with their comparison (as clprof compare). Limits "
      "and sections: "
      "docs/cli.md.");
  return [o]() -> int {
    Request r = make_request(o->common);
    const auto stat = analyses::parse_stat(o->stat);
    if (!stat) throw UsageError("--stat: expected median, min or mean, not '" + o->stat + "'");
    const double peak = o->peak.empty() ? 0 : parse_positive("--peak", o->peak);
    const auto runs = parse_runs(r.inputs);
    if (runs.size() > 2)
      throw UsageError(
          "report takes one run, or two to compare (BASE OTHER); the traces of one run are joined "
          "by "
          "commas: a-1.json,a-2.json");
    r.inputs.clear();
    for (const auto& run : runs)
      r.inputs.insert(r.inputs.end(), run.files.begin(), run.files.end());
    check_output_path(r);
    const bool compare = runs.size() == 2;
    std::shared_ptr<const std::vector<gemm::Rule>> rules;
    if (compare) rules = gemm::shared_builtin_rules();
    std::vector<output::report::RunReport> reports;
    for (const auto& run : runs) {
      auto session = read_run(r, run, [rules](analyses::LaunchPredicate keep) {
        return std::make_unique<output::report::ReportAnalysis>(std::move(keep), rules);
      });
      const auto& analysis = static_cast<output::report::ReportAnalysis&>(*session.analysis);
      const auto holding = analyses::ranges_holding_launches(analysis.profile.layers, session.run);
      const auto its = select_iterations(session.run, r, run.label, &holding);
      reports.push_back(output::report::finish_report(
          run.label, std::move(static_cast<output::report::ReportAnalysis&>(*session.analysis)),
          session.run, its.iterations, its.selected(), peak, compare, *stat,
          readers::load_sweeps(session.run)));
    }
    std::optional<analyses::Comparison> comparison;
    if (compare) {
      comparison = analyses::compare_runs(*reports[0].figures, *reports[1].figures);
      comparison->stat = *stat;
    }
    output::report::PageOptions po;
    po.peak_gflops = peak;
    po.version = CLPROF_VERSION;
    const auto& c = o->common;
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"--filter", c.filter},
                                                          {"--iteration", c.iteration},
                                                          {"--skip-first", c.skip_first},
                                                          {"--iteration-range", c.iteration_range}})
      if (!value.empty()) po.selection += (po.selection.empty() ? "" : " ") + name + " " + value;
    emit_text(output::report::render_page(reports, comparison ? &*comparison : nullptr, po), r);
    if (!r.output.empty()) log::info("wrote " + r.output);
    return 0;
  };
}

}  // namespace clprof::cli
