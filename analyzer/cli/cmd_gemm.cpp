// clprof gemm: GEMM launches decoded by the rule table, with GFLOPS and % of peak.
#include <unistd.h>

#include "analyses/gemm/gemm.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/tables/gemm.hpp"
#include "readers/clpeak/peak.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::cli {

std::string read_small_file(const std::string& path) {
  uint64_t size = 0;
  int fd = -1;
  try {
    fd = readers::open_regular_file(path, size);
  } catch (const readers::InputError& e) {
    throw UsageError("cannot read '" + path + "': " + e.message());
  }
  std::string text;
  if (size <= (16u << 20)) {
    text.resize(size);
    size_t got = 0;
    ssize_t n = 0;
    while (got < size && (n = ::read(fd, text.data() + got, size - got)) > 0)
      got += static_cast<size_t>(n);
    text.resize(got);
  }
  ::close(fd);
  if (size > (16u << 20)) throw UsageError("'" + path + "' is larger than 16 MiB");
  return text;
}

void add_peak_options(CLI::App& app, PeakOptions& o, const std::string& peak_help) {
  app.add_option("--peak", o.peak, peak_help)->type_name("GFLOPS");
  app.add_option("--peak-from", o.peak_from,
                 "Take the peak from clpeak's output (best Single-precision compute value)")
      ->type_name("FILE");
}

void load_peak(PeakOptions& o) {
  if (!o.peak.empty() && !o.peak_from.empty())
    throw UsageError("give --peak or --peak-from, not both");
  if (!o.peak.empty()) parse_positive("--peak", o.peak);
  if (o.peak_from.empty()) return;
  const std::string text = read_small_file(o.peak_from);
  try {
    o.clpeak = readers::parse_clpeak(text);
  } catch (const std::invalid_argument& e) {
    throw readers::InputError(o.peak_from, 0, 0, std::string("not a clpeak report: ") + e.what());
  }
}

double resolve_peak(const PeakOptions& o, const model::Run& run) {
  if (!o.peak.empty()) return parse_positive("--peak", o.peak);
  if (o.clpeak.empty()) return 0;
  return readers::pick_peak(o.clpeak, run.devices.empty() ? "" : run.devices.front().name);
}

Runner setup_gemm(CLI::App& app) {
  struct Options {
    CommonOptions common;
    bool group = false;
    std::vector<std::string> rules_files;
    bool no_builtin = false;
    bool list_rules = false;
    PeakOptions peak;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  // --list-rules needs no trace, so the positional is optional here and checked below.
  app.get_option("traces")->required(false);
  app.add_flag("--group", o->group,
               "One row per distinct (kernel, M, N, K, batch): count, median, min, GFLOPS");
  add_repeatable(app, "--rules", o->rules_files,
                 "Extra GEMM rules (JSON, see docs/gemm-rules.md); tried before the built-in ones "
                 "(repeatable)",
                 "FILE");
  app.add_flag("--no-builtin-rules", o->no_builtin, "Use only the --rules files");
  app.add_flag("--list-rules", o->list_rules, "Print the rule table (JSON) and exit");
  add_peak_options(app, o->peak, "Peak GFLOPS of the device: adds a % of peak column");
  app.footer(help_footer(
      "gemm",
      "FLOPs = 2*M*N*K*batch; GFLOPS = FLOPs / device time. Rules marked padded decode padded "
      "sizes (CLBlast's indirect Xgemm), overstating the useful work."));
  return [o]() -> int {
    Request r = make_request(o->common);
    r.other_inputs = o->rules_files;
    if (!o->peak.peak_from.empty()) r.other_inputs.push_back(o->peak.peak_from);
    check_output_path(r);
    auto rules = std::make_shared<std::vector<gemm::Rule>>();
    for (const auto& f : o->rules_files) {
      auto extra = gemm::parse_rules(read_small_file(f), f);
      rules->insert(rules->end(), extra.begin(), extra.end());
    }
    if (!o->no_builtin)
      rules->insert(rules->end(), gemm::builtin_rules().begin(), gemm::builtin_rules().end());
    if (o->list_rules) {
      if (!r.inputs.empty())
        throw UsageError("--list-rules prints the rule table: it takes no TRACE");
      emit_text(output::tables::rules_json(*rules), r);
      return 0;
    }
    if (r.inputs.empty()) throw UsageError("gemm: a TRACE is required");
    load_peak(o->peak);
    const auto& schema =
        o->group ? output::tables::gemm_group_schema() : output::tables::gemm_schema();
    std::string extra;
    const bool with_peak = o->peak.given();
    const size_t sort = sort_column(
        schema, with_peak ? std::vector<std::string>{"--peak"} : std::vector<std::string>{}, r,
        extra);
    const bool group = o->group;
    auto session = run_session(
        r,
        [rules, group](analyses::LaunchPredicate keep) {
          return std::make_unique<analyses::GemmAnalysis>(rules, std::move(keep), group);
        },
        kFoldedRanges);
    const double peak = resolve_peak(o->peak, session.run);
    auto result = analyses::finish_gemm(
        std::move(static_cast<analyses::GemmAnalysis&>(*session.analysis)), session.run, peak);
    session.analysis.reset();
    std::vector<std::string> warnings;
    for (const auto& [problem, n] : result.problems)
      warnings.push_back("gemm: " + std::to_string(n) + " launch(es) not decoded: " + problem);
    log::warnings(warnings);
    // Per launch, the rows can be millions: compact records rendered as they are written.
    auto out = group ? output::tables::gemm_group_result(result, peak > 0)
                     : output::tables::gemm_result(result, peak > 0);
    order(out, sort, r.top);
    output::tables::add_gemm_notes(out, result);
    emit(out, r);
    return 0;
  };
}

}  // namespace clprof::cli
