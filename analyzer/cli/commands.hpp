// The subcommands' setup functions (one file each: cmd_<name>.cpp).
#pragma once

#include <vector>

#include "analyses/kernels.hpp"
#include "cli/common.hpp"
#include "output/json_writer.hpp"
#include "output/table.hpp"

namespace clprof::cli {

// Each registers its options on `app` and returns the function that runs the command.
Runner setup_record(CLI::App& app);
Runner setup_summary(CLI::App& app);
Runner setup_kernels(CLI::App& app);
Runner setup_launches(CLI::App& app);
Runner setup_layers(CLI::App& app);
Runner setup_gemm(CLI::App& app);

// `clprof record ... -- PROGRAM ARGS`: main() moves everything after the first "--" here
// before CLI11 parses (CLI11 2.1 rejects positionals after "--" in a prefix command).
std::vector<std::string>& record_command_after_dashes();

// The JSON array of kernel objects (fields as documented in docs/cli.md), shared by
// `kernels` and `layers`.
void write_kernels_json_array(output::JsonWriter& j, const std::vector<analyses::KernelRow>& rows);
// The kernels table: the 80-column set, or every column when `wide` or `machine` (CSV).
output::Table kernels_table(const std::vector<analyses::KernelRow>& rows, bool wide, bool machine,
                            bool with_estimate);

}  // namespace clprof::cli
