// The subcommands: each registers its options on its CLI11 app and returns the function
// that runs it (after a successful parse; returns the exit status). One file each:
// cmd_<name>.cpp, thin: options -> Request -> analysis -> output::Result -> emit.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analyses/grouping.hpp"
#include "analyses/speedup.hpp"
#include "cli/request.hpp"
#include "output/render.hpp"
#include "output/schema_doc.hpp"
#include "readers/clpeak/peak.hpp"

namespace clprof::cli {

using Runner = std::function<int()>;

struct Command {
  const char* name;
  const char* help;
  Runner (*setup)(CLI::App& app);
};

// Every subcommand, in --help order: X(name, help). cmd_<name>.cpp defines setup_<name>;
// the declarations below and main.cpp's table (all_commands) are made from this list.
#define CLPROF_CLI_COMMANDS(X)                                                                  \
  X(record, "Run a program under the clprof shim and write its trace(s)")                       \
  X(summary, "Run overview: wall time, device busy time, launches, transfers")                  \
  X(kernels, "Per-kernel breakdown: count, total, median, min, max, share")                     \
  X(launches, "One row per kernel launch: sizes, arguments, device phases")                     \
  X(layers, "Per-layer (range) breakdown with each layer's kernels")                            \
  X(gemm, "GEMM launches: M, N, K, batch, time, GFLOPS (and % of peak)")                        \
  X(transfers, "Reads, writes, copies, fills, maps: count, bytes, time, GB/s per op and size")  \
  X(builds, "Program builds: source, options, devices, time, status, kernels (--source ID)")    \
  X(api, "Host time per OpenCL function: calls, total, mean, max, errors")                      \
  X(ranks, "One row per rank of a parallel job: wall, kernel time, deviation, outlier")         \
  X(compare, "BASE against OTHER runs: per kernel, layer, GEMM shape; delta, speedup")          \
  X(advise, "What to fix first: findings ranked by estimated impact, with the evidence")        \
  X(replay, "Run a launch captured with CLPROF_CAPTURE again: time, verify, sweep local sizes") \
  X(report, "One self-contained HTML page with charts and tables (two runs: their comparison)") \
  X(timeline, "The run as Chrome Trace Event JSON for Perfetto UI / chrome://tracing")          \
  X(export, "Every record as flat tables: SQLite, CSV or JSON Lines")

// Every subcommand, in --help order (CLPROF_CLI_COMMANDS).
const std::vector<Command>& all_commands();

#define CLPROF_CLI_DECLARE_SETUP(name, help) Runner setup_##name(CLI::App& app);
CLPROF_CLI_COMMANDS(CLPROF_CLI_DECLARE_SETUP)
#undef CLPROF_CLI_DECLARE_SETUP

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

// The options of a table command: the common ones and --by.
struct TableOptions {
  CommonOptions common;
  std::string by;
};
// scripts/clprof-dask's interface (docs/scale.md): --partial (write the mergeable partial
// aggregates instead of the table), --from-partials (the inputs are such partials: merge
// them and print the table) and --run-start NS (--time-window measured from NS, the whole
// run's start, when a task reads a shard of it).
struct PartialOptions {
  bool partial = false, from_partials = false;
  std::string run_start;
};
// Registers them on `app`; `o` must outlive the parse.
void add_partial_options(CLI::App& app, PartialOptions& o);
// Applies --run-start to `r`'s --time-window (UsageError: not an integer, or no --time-window).
void apply_run_start(const PartialOptions& o, Request& r);

// Registers `options` on `app` (the common options, then --by over `groupings`) and the
// help footer (help_footer(command, intro)). A command's own options come after.
void add_table_options(CLI::App& app, TableOptions& options,
                       const std::vector<analyses::GroupBy>& groupings, const std::string& command,
                       const std::string& intro);
// A command with no options of its own: new TableOptions, registered as above.
std::shared_ptr<TableOptions> table_options(CLI::App& app,
                                            const std::vector<analyses::GroupBy>& groupings,
                                            const std::string& command, const std::string& intro);

// What a table command's run starts from, checked in this order: the request (its -o
// checked against the inputs), the --by grouping, the --sort column of `schema` (npos:
// none or a named order, then in sort_extra).
struct TableRun {
  Request request;
  analyses::GroupBy by;
  size_t sort;
  std::string sort_extra;
};
// `in_force`: the options given that enable columns (e.g. "--speedup"); --by's is added.
TableRun start_table_run(const TableOptions& options,
                         const std::vector<analyses::GroupBy>& groupings,
                         const output::Schema& schema, std::vector<std::string> in_force = {});
// A table command with no options of its own, whole: its options (table_options), and a
// runner that starts the run (start_table_run over `schema`), makes the result with `make`
// and ends the run (finish_table_run). The result must hold its rows: what `make` read (the
// session, its run) is gone when the rows are written, so no lazy Result::source (launches
// keeps its own runner for that).
Runner table_command(CLI::App& app, const std::vector<analyses::GroupBy>& groupings,
                     const std::string& command, const std::string& intro,
                     const output::Schema& schema,
                     std::function<output::Result(const TableRun&)> make);
// The end of a table command's run: `result` cut to its --sort and --top, then written as
// the request says. Returns the exit status (0).
int finish_table_run(output::Result& result, const TableRun& run);

// --peak GFLOPS and --peak-from CLPEAK_OUTPUT (gemm, advise; cmd_gemm.cpp).
struct PeakOptions {
  std::string peak, peak_from;
  std::vector<readers::ClpeakDevice> clpeak;  // load_peak's reading of --peak-from
  bool given() const { return !peak.empty() || !peak_from.empty(); }
};
void add_peak_options(CLI::App& app, PeakOptions& o, const std::string& peak_help);
// Checks them (not both; a positive --peak) and reads --peak-from's file (UsageError or
// InputError on bad input). Call before the session (the file is an input: -o may not be it).
void load_peak(PeakOptions& o);
// The peak in GFLOPS: --peak, or clpeak's best single-precision value for the run's first
// device; 0 when neither was given.
double resolve_peak(const PeakOptions& o, const model::Run& run);
// A small input (rules, clpeak output): a regular file, read whole, at most 16 MiB.
std::string read_small_file(const std::string& path);

}  // namespace clprof::cli
