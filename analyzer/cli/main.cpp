// clprof: record OpenCL kernel launches and analyse the traces. This file only holds the
// table of subcommands and the mapping of failures to exit statuses.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "readers/reader.hpp"

#ifndef CLPROF_VERSION
#define CLPROF_VERSION "unknown"
#endif

using namespace clprof::cli;

static const Command kCommands[] = {
    {"record", "Run a program under the clprof shim and write its trace(s)", setup_record},
    {"summary", "Run overview: wall time, device busy time, launches, transfers", setup_summary},
    {"kernels", "Per-kernel breakdown: count, total, median, min, max, share", setup_kernels},
    {"launches", "One row per kernel launch: sizes, arguments, device phases", setup_launches},
    {"layers", "Per-layer (range) breakdown with each layer's kernels", setup_layers},
    {"gemm", "GEMM launches: M, N, K, batch, time, GFLOPS (and % of peak)", setup_gemm},
};

int main(int argc, char** argv) {
  CLI::App app{"clprof: an OpenCL kernel profiler. Record with `clprof record -- app args`, "
               "then analyse the trace files with the other commands.",
               "clprof"};
  app.set_version_flag("--version", std::string("clprof ") + CLPROF_VERSION);
  app.require_subcommand(1);
  Runner chosen;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    Runner r = c.setup(*sub);
    sub->callback([&chosen, r] { chosen = r; });
  }
  if (argc > 1 && std::string(argv[1]) == "record") {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) != "--") continue;
      for (int k = i + 1; k < argc; ++k) record_command_after_dashes().push_back(argv[k]);
      argc = i;
      break;
    }
  }
  // CLI11 reports an unknown first word only as "A subcommand is required"; say which.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const auto& c : kCommands) known = known || c.name == std::string(argv[1]);
    if (!known) {
      std::cerr << "clprof: error: unknown command '" << argv[1]
                << "' (run clprof --help for the list)\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    // --help and --version are successes; every other parse failure is bad usage.
    return rc == 0 ? 0 : 2;
  }
  try {
    return chosen ? chosen() : 2;
  } catch (const clprof::readers::InputError& e) {
    std::cerr << "clprof: error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "clprof: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "clprof: error: " << e.what() << "\n";
    return 1;
  }
}
