// clprof advise: findings about the run ranked by estimated impact; --fail-on makes it a CI
// gate (exit status 3), --threshold RULE.KEY=VALUE tunes a rule.
#include <iostream>
#include <memory>
#include <stdexcept>

#include "analyses/advice/advice.hpp"
#include "analyses/advice/commands.hpp"
#include "analyses/selection.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "format.hpp"
#include "output/log.hpp"
#include "output/tables/advise.hpp"
#include "readers/sweeps.hpp"

namespace clprof::cli {

namespace {

// The launches and transfers of the selection, fed to the rules' Commands: one instance per
// reading thread, merged in file order. Memory does not grow with them (commands.hpp: the
// rules that read each command alone tally it; the ordered ones read a log of compact
// records on a temporary file, sorted there in bounded memory), so advise has no ceiling of
// its own: --max-memory bounds it as every command.
class Collect : public Analysis {
 public:
  Collect(analyses::LaunchPredicate keep, analyses::TransferPredicate keep_transfer,
          const analyses::advice::Thresholds& t, bool gemm_peak)
      : keep_(std::move(keep)), keep_transfer_(std::move(keep_transfer)), commands(t, gemm_peak) {}
  void add_launch(const model::Launch& l) override {
    if (keep_ && !keep_(l)) return;
    commands.add_launch(l);
  }
  void add_transfer(const model::Transfer& t) override {
    if (keep_transfer_ && !keep_transfer_(t)) return;
    commands.add_transfer(t);
  }
  void merge(Analysis&& other) override {
    commands.merge(std::move(static_cast<Collect&>(other).commands));
  }

 private:
  analyses::LaunchPredicate keep_;
  analyses::TransferPredicate keep_transfer_;

 public:
  analyses::advice::Commands commands;
};

std::string list_rules() {
  std::string out;
  for (const auto& r : analyses::advice::rule_catalog()) {
    out += r.id + (r.evaluated ? "" : " (not evaluated: needs " + r.missing + ")") + "\n    " +
           r.summary + "\n";
    for (const auto& t : r.thresholds)
      out += "    --threshold " + t.key + "=" + output::format_general(t.value) + "  " + t.meaning +
             "\n";
  }
  return out;
}

}  // namespace

Runner setup_advise(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string fail_on;
    std::vector<std::string> thresholds;
    PeakOptions peak;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  app.add_option("--fail-on", o->fail_on,
                 "Exit with status 3 when a finding at LEVEL or above exists (info: any finding; "
                 "warning: warnings only)")
      ->type_name("info|warning");
  add_repeatable(app, "--threshold", o->thresholds,
                 "Set a rule's threshold (repeatable; --list-rules shows them with their defaults)",
                 "RULE.KEY=VALUE");
  add_peak_options(app, o->peak,
                   "Peak GFLOPS of the device: evaluates gemm-below-peak (else not evaluated)");
  // Handled while parsing, before CLI11 asks for the TRACE it does not need (like --help).
  app.add_flag_callback(
      "--list-rules",
      [] {
        std::cout << list_rules() << std::flush;
        throw CLI::Success();
      },
      "Print the rules and their thresholds, and exit");
  app.footer(help_footer(
      "advise",
      "Rules and thresholds: docs/advice.md (--list-rules). Rules the trace lacks the data for "
      "are listed as 'not evaluated' after the findings. Exit status 3: --fail-on tripped."));
  return [o]() -> int {
    analyses::advice::Thresholds thresholds;
    for (const auto& spec : o->thresholds) {
      try {
        thresholds.set(spec);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--threshold ") + e.what());
      }
    }
    std::optional<analyses::advice::Severity> fail_on;
    if (!o->fail_on.empty()) {
      fail_on = analyses::advice::parse_severity(o->fail_on);
      if (!fail_on)
        throw UsageError("--fail-on: expected info or warning, not '" + o->fail_on + "'");
    }
    Request r = make_request(o->common);
    if (!o->peak.peak_from.empty()) r.other_inputs.push_back(o->peak.peak_from);
    check_output_path(r);
    load_peak(o->peak);
    std::string extra;
    const size_t sort = sort_column(output::tables::advise_schema(), {}, r, extra);
    // Streamed: the rules tally the commands, or keep them compact. A selection reads the
    // metadata first; its transfers are selected here (the stream selects launches only).
    analyses::TransferPredicate keep_transfer;
    // The ranges folded (names, parents and span): build-dominates reads their span,
    // device-idle the name of the ranges around its largest gap.
    SessionNeeds needs = kFoldedRanges;
    if (r.selection.needs_run())
      needs.metadata = [&](const model::Run& run) {
        keep_transfer = analyses::make_transfer_predicate(run, r.selection);
      };
    const bool gemm_peak = o->peak.given();
    auto session = run_session(
        r,
        [&](analyses::LaunchPredicate keep) {
          return std::make_unique<Collect>(std::move(keep), keep_transfer, thresholds, gemm_peak);
        },
        needs);
    const auto& c = static_cast<Collect&>(*session.analysis).commands;
    if (o->peak.given()) thresholds.set_peak_gflops(resolve_peak(o->peak, session.run));
    const auto report =
        analyses::advice::advise(session.run, c, thresholds, readers::load_sweeps(session.run));
    auto result = output::tables::advise_result(report);
    order(result, sort, r.top);
    emit(result, r);
    if (!fail_on) return 0;
    bool tripped = false;
    for (const auto& f : report.findings) {
      if (f.severity < *fail_on) continue;
      if (!tripped)
        log::error(std::string("--fail-on ") + o->fail_on + ": findings at " + o->fail_on +
                   " or above:");
      tripped = true;
      log::error(std::string("  ") + f.rule + " (" + analyses::advice::severity_name(f.severity) +
                 "): " + f.title);
    }
    return tripped ? 3 : 0;
  };
}

}  // namespace clprof::cli
