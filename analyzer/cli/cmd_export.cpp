// clprof export: every record of the run as flat tables — SQLite, CSV or JSON Lines
// (output/views/export.hpp) — written while the traces are read.
#include <sstream>

#include "cli/commands.hpp"
#include "cli/session.hpp"
#include "output/log.hpp"
#include "output/views/export.hpp"
#include "readers/gemm_rules/gemm_rules.hpp"

namespace clprof::cli {

namespace {

// The table names as export_tables() declares them, wrapped at 110 columns.
std::string tables_footer() {
  std::string out, line = "Tables:";
  const auto add = [&](const std::string& word) {
    if (line.size() + 1 + word.size() > 110) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  };
  const auto& tables = output::views::export_tables();
  for (size_t i = 0; i < tables.size(); ++i)
    add(tables[i].schema->name + (i + 1 < tables.size() ? "," : ";"));
  std::istringstream tail(
      "their columns and example queries (SQL, pandas, DuckDB, Spark): docs/export.md.");
  for (std::string word; tail >> word;) add(word);
  return out + line;
}

}  // namespace

Runner setup_export(CLI::App& app) {
  struct Options {
    CommonOptions common;
    std::string format = "sqlite";
  };
  auto o = std::make_shared<Options>();
  add_common_options(app, o->common, Takes{false, false, false});
  app.get_option("--output")
      ->description(
          "sqlite: the database file; csv: the directory; jsonl: the file (default: stdout)");
  app.add_option("--format", o->format,
                 "sqlite (one file), csv (a directory, a file per table) or jsonl")
      ->type_name("FMT")
      ->capture_default_str();
  app.footer(tables_footer());
  return [o]() -> int {
    const Request r = make_request(o->common);
    check_output_path(r);
    std::unique_ptr<output::views::ExportSink> sink;
    if (o->format != "sqlite" && o->format != "csv" && o->format != "jsonl")
      throw UsageError("--format: expected sqlite, csv or jsonl, not '" + o->format + "'");
    if (r.output.empty() && o->format != "jsonl")
      throw UsageError("-o is required: the " + o->format + " export is " +
                       (o->format == "csv" ? "a directory" : "a file"));
    std::unique_ptr<output::views::ExportWriter> writer;
    auto session = run_ordered_session(
        r,
        [&](const model::Run& run) {
          // Created once the inputs read well: a refused input leaves no output behind.
          sink = o->format == "sqlite" ? output::views::make_sqlite_sink(r.output)
                 : o->format == "csv"  ? output::views::make_csv_sink(r.output)
                                       : output::views::make_jsonl_sink(r.output);
          writer = std::make_unique<output::views::ExportWriter>(run, gemm::builtin_rules(), *sink);
          writer->begin();
        },
        [&](analyses::LaunchPredicate keep) {
          // The writer applies the selection itself: the GEMM calls see every launch.
          writer->set_selection(std::move(keep));
          return std::make_unique<ForwardTo<output::views::ExportWriter>>(*writer, nullptr);
        });
    writer->end();
    log::warnings(model::unsynced_device_warnings(session.run, writer->rows().device_use().used()));
    log::debug("export: " + std::to_string(writer->launches()) + " launch(es)");
    return 0;
  };
}

}  // namespace clprof::cli
