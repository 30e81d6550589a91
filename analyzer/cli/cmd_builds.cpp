// clprof builds: one row per program build; --source ID prints a program's recorded source.
#include "analyses/builds.hpp"
#include "cli/commands.hpp"
#include "cli/emit.hpp"
#include "cli/session.hpp"
#include "output/tables/builds.hpp"

namespace clprof::cli {

namespace {

// Reads nothing per launch: builds and programs are the run's metadata.
class NoAnalysis : public Analysis {
 public:
  void add_launch(const model::Launch&) override {}
  void merge(Analysis&&) override {}
};

}  // namespace

Runner setup_builds(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string source;
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common);
  app.add_option("--source", o->source,
                 "Print the recorded source of program ID (PID:ID with several processes) instead "
                 "of the table; "
                 "traces hold sources when recorded with CLPROF_CAPTURE_SOURCE=1")
      ->type_name("ID");
  app.footer(help_footer(
      "builds",
      "Time is host time in the call. Status is ok or the error the call returned. Build logs "
      "are not in the trace."));
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    std::string extra;
    const size_t sort = sort_column(output::tables::builds_schema(), {}, r, extra);
    auto session = run_session(
        r, [](analyses::LaunchPredicate) { return std::make_unique<NoAnalysis>(); }, kFoldedRanges);
    if (!o->source.empty()) {
      const model::Program* p = nullptr;
      try {
        p = &analyses::find_program(session.run, o->source);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--source: ") + e.what());
      }
      if (p->source.empty()) {
        std::string what = "--source " + o->source + ": ";
        if (!p->origin.empty() && p->origin != "source")
          what += "the program was made from " +
                  (p->origin == "il" ? std::string("IL") : "a " + p->origin) + ", not from source";
        else
          what += "the trace holds no source for it (" + std::to_string(p->source_bytes) +
                  " bytes, " + (p->source_hash.empty() ? std::string("no hash") : p->source_hash) +
                  "): record with CLPROF_CAPTURE_SOURCE=1 to keep sources";
        throw UsageError(what);
      }
      emit_text(p->source.back() == '\n' ? p->source : p->source + "\n", r);
      return 0;
    }
    auto result = output::tables::builds_result(analyses::build_rows(session.run));
    order(result, sort, r.top);
    emit(result, r);
    return 0;
  };
}

}  // namespace clprof::cli
