// The pieces the table commands (kernels, launches, layers, transfers, api, ...) share:
// --by, --speedup, the help footer, the command preamble, the --sort/--top cut.
#include "cli/commands.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include "cli/emit.hpp"
#include "cli/request.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/registry.hpp"

namespace clprof::cli {

analyses::Speedup parse_speedup_options(const std::vector<std::string>& specs) {
  std::vector<analyses::SpeedupRule> rules;
  for (const auto& s : specs) {
    rules.push_back(parse_or_usage("", [&] { return analyses::parse_speedup(s); }));
  }
  return analyses::Speedup(std::move(rules));
}

void add_by_option(CLI::App& app, std::string& value,
                   const std::vector<analyses::GroupBy>& allowed) {
  std::string list;
  for (auto b : allowed)
    list += (list.empty() ? "" : "|") + std::string(analyses::group_by_name(b));
  app.add_option("--by", value, "One row per group and item: the group column comes first")
      ->type_name(list);
}

analyses::GroupBy parse_by(const std::string& value,
                           const std::vector<analyses::GroupBy>& allowed) {
  if (value.empty()) return analyses::GroupBy::None;
  return parse_or_usage("--by: ", [&] { return analyses::parse_group_by(value, allowed); });
}

std::string help_footer(const std::string& command, const std::string& intro) {
  return intro + "\n" + output::help_fields(output::tables::command_views(command));
}

void order(output::Result& result, size_t column, size_t top) {
  if (column == output::Schema::npos)
    output::keep_top(result, top);
  else
    output::order_rows(result, column, top);
}

void add_table_options(CLI::App& app, TableOptions& options,
                       const std::vector<analyses::GroupBy>& groupings, const std::string& command,
                       const std::string& intro) {
  add_common_options(app, options.common);
  add_by_option(app, options.by, groupings);
  app.footer(help_footer(command, intro));
}

std::shared_ptr<TableOptions> table_options(CLI::App& app,
                                            const std::vector<analyses::GroupBy>& groupings,
                                            const std::string& command, const std::string& intro) {
  auto options = std::make_shared<TableOptions>();
  add_table_options(app, *options, groupings, command, intro);
  return options;
}

constexpr const char* kPartialGroup = "For scripts/clprof-dask (docs/scale.md)";

void add_partial_options(CLI::App& app, PartialOptions& o) {
  // scripts/clprof-dask's interface (docs/scale.md), listed apart in --help.
  app.add_flag("--partial", o.partial,
               "Write mergeable partial aggregates (JSON) instead of the table")
      ->group(kPartialGroup);
  // Checked here rather than by CLI11's excludes(), whose note would crowd --help (--partial,
  // declared first, is set when this runs).
  bool& partial = o.partial;
  app.add_flag("--from-partials", o.from_partials,
               "The inputs are --partial outputs: merge them (in the order given) and print "
               "the table")
      ->group(kPartialGroup)
      ->check([&partial](const std::string&) {
        return partial ? std::string("--partial and --from-partials exclude each other") : "";
      });
  app.add_option("--run-start", o.run_start,
                 "With --time-window: measure it from NS, an absolute host time (ns), instead "
                 "of the earliest trace's start (the whole run's start, for a shard of it)")
      ->group(kPartialGroup)
      ->type_name("NS");
}

void apply_run_start(const PartialOptions& o, Request& r) {
  if (o.run_start.empty()) return;
  if (!r.selection.window) throw UsageError("--run-start is for --time-window, which is not given");
  const std::string& t = o.run_start;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (t.empty() || end != t.c_str() + t.size() || errno == ERANGE ||
      (t[0] != '-' && !isdigit(t[0])))
    throw UsageError("--run-start: expected an integer of ns, not '" + t + "'");
  r.selection.window->origin_ns = static_cast<int64_t>(v);
}

TableRun start_table_run(const TableOptions& options,
                         const std::vector<analyses::GroupBy>& groupings,
                         const output::Schema& schema, std::vector<std::string> in_force) {
  TableRun run{make_request(options.common), analyses::GroupBy::None, output::Schema::npos, ""};
  check_output_path(run.request);
  run.by = parse_by(options.by, groupings);
  if (run.by != analyses::GroupBy::None) in_force.push_back(output::tables::by_option(run.by));
  run.sort = sort_column(schema, in_force, run.request, run.sort_extra);
  return run;
}

Runner table_command(CLI::App& app, const std::vector<analyses::GroupBy>& groupings,
                     const std::string& command, const std::string& intro,
                     const output::Schema& schema,
                     std::function<output::Result(const TableRun&)> make) {
  auto options = table_options(app, groupings, command, intro);
  return [options, &groupings, &schema, make = std::move(make)]() -> int {
    const TableRun t = start_table_run(*options, groupings, schema);
    output::Result result = make(t);
    return finish_table_run(result, t);
  };
}

int finish_table_run(output::Result& result, const TableRun& run) {
  order(result, run.sort, run.request.top);
  emit(result, run.request);
  return 0;
}

}  // namespace clprof::cli
