// The subcommands: each registers its options on its CLI11 app and returns the function
// that runs it (after a successful parse; returns the exit status). One file each:
// cmd_<name>.cpp, thin: options -> Request -> analysis -> output::Result -> emit.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/speedup.hpp"
#include "output/render.hpp"
#include "output/schema_doc.hpp"

namespace clprof::cli {

using Runner = std::function<int()>;

struct Command {
  const char* name;
  const char* help;
  Runner (*setup)(CLI::App& app);
};

// Every subcommand, in --help order.
const std::vector<Command>& all_commands();

Runner setup_record(CLI::App& app);
Runner setup_summary(CLI::App& app);
Runner setup_kernels(CLI::App& app);
Runner setup_launches(CLI::App& app);
Runner setup_layers(CLI::App& app);
Runner setup_gemm(CLI::App& app);
Runner setup_transfers(CLI::App& app);
Runner setup_builds(CLI::App& app);
Runner setup_api(CLI::App& app);
Runner setup_compare(CLI::App& app);
Runner setup_advise(CLI::App& app);
Runner setup_report(CLI::App& app);
Runner setup_timeline(CLI::App& app);
Runner setup_export(CLI::App& app);

// `clprof record ... -- PROGRAM ARGS`: main() moves everything after the first "--" here
// before CLI11 parses (CLI11 2.1 rejects positionals after "--" in a prefix command).
std::vector<std::string>& record_command_after_dashes();

// Registers --by with the groupings `allowed` (grouping.hpp) on `app`.
void add_by_option(CLI::App& app, std::string& value,
                   const std::vector<analyses::GroupBy>& allowed);
// The --by value (None when not given); throws UsageError naming the allowed ones.
analyses::GroupBy parse_by(const std::string& value, const std::vector<analyses::GroupBy>& allowed);

// The --speedup rules (throws UsageError naming the bad one).
analyses::Speedup parse_speedup_options(const std::vector<std::string>& specs);
// `CMD --help`'s footer: `intro`, then the output fields of `command` (output/tables).
std::string help_footer(const std::string& command, const std::string& intro);
// Sorts `result` by `column` (npos: keeps the order) and keeps the first `top` rows.
void order(output::Result& result, size_t column, size_t top);

}  // namespace clprof::cli
