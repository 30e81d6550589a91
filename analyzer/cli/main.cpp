// clprof: record OpenCL kernel launches and analyse the traces. This file holds the table
// of subcommands, the options every command shares (--verbose, --quiet) and the mapping of
// failures to exit statuses: 0 success, 1 failure (cannot write the output, ...), 2 bad
// usage or bad input, 3 `compare --fail-if-slower` or `advise --fail-on` tripped; `record` exits
// with the program's status.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

#include "analyses/stats.hpp"
#include "cli/commands.hpp"
#include "cli/request.hpp"
#include "memory_limit.hpp"
#include "output/log.hpp"
#include "output/tables/registry.hpp"
#include "readers/reader.hpp"

#ifndef CLPROF_VERSION
#define CLPROF_VERSION "unknown"
#endif

namespace clprof::cli {

const std::vector<Command>& all_commands() {
#define CLPROF_CLI_COMMAND_ENTRY(name, help) {#name, help, setup_##name},
  static const std::vector<Command> commands = {CLPROF_CLI_COMMANDS(CLPROF_CLI_COMMAND_ENTRY)};
#undef CLPROF_CLI_COMMAND_ENTRY
  return commands;
}

namespace {

// Edit distance (insertions, deletions, substitutions, adjacent swaps).
size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// " (did you mean 'x'?)" for the candidate closest to `word`, if it is close enough.
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    const size_t d = distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  if (best.empty() || best_d > limit) return "";
  return " (did you mean '" + best + "'?)";
}

std::vector<std::string> option_names(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options()) {
    for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

// The first option word of `args` that `sub` does not know, with a suggestion, or the
// commands that have it.
std::string unknown_option(CLI::App& app, CLI::App& sub, const std::vector<std::string>& args) {
  const std::vector<std::string> names = option_names(sub);
  for (const auto& a : args) {
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    const std::string name = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    std::string others;
    for (const CLI::App* other : app.get_subcommands({})) {
      const auto theirs = option_names(*other);
      if (std::find(theirs.begin(), theirs.end(), name) != theirs.end())
        others += (others.empty() ? "" : ", ") + other->get_name();
    }
    if (!others.empty())
      return "'" + name + "' does not apply here (it is an option of " + others + ")";
    return "unknown option '" + name + "'" + suggestion(name, names);
  }
  return "";
}

void set_log_level(bool verbose, bool quiet) {
  if (quiet)
    log::set_level(log::Level::Error);
  else if (verbose)
    log::set_level(log::Level::Debug);
}

}  // namespace

// CLI11's own wording, said the way the rest of clprof speaks: "--format: 1 required FMT
// missing" -> "--format needs a value (FMT)", "--stat: At Most 1 required but received 2"
// -> "--stat takes one value, not 2".
std::string plain_parse_message(const std::string& message) {
  const size_t colon = message.find(": ");
  const std::string option = colon == std::string::npos ? "" : message.substr(0, colon);
  const std::string rest = colon == std::string::npos ? message : message.substr(colon + 2);
  if (option.rfind("-", 0) != 0) return message;
  const std::string missing = " required ";
  if (rest.find(missing) != std::string::npos && rest.size() > 8 &&
      rest.compare(rest.size() - 8, 8, " missing") == 0) {
    const size_t type_at = rest.find(missing) + missing.size();
    return option + " needs a value (" + rest.substr(type_at, rest.size() - 8 - type_at) + ")";
  }
  const std::string at_most = "At Most ";
  const size_t received = rest.find("but received ");
  if (rest.rfind(at_most, 0) == 0 && received != std::string::npos)
    return option + " takes " +
           (rest.compare(at_most.size(), 2, "1 ") == 0 ? "one value" : "fewer values") + ", not " +
           rest.substr(received + 13);
  return message;
}

}  // namespace clprof::cli

using namespace clprof;
using namespace clprof::cli;

int main(int argc, char** argv) {
  CLI::App app{
      "clprof: an OpenCL kernel profiler. Record with `clprof record -- app args`, "
      "then analyse the trace files with the other commands.",
      "clprof"};
  app.set_version_flag("--version", std::string("clprof ") + CLPROF_VERSION);
  // Help words in clprof's voice: "(required)", not CLI11's "REQUIRED".
  app.get_formatter()->label("REQUIRED", "(required)");
  app.require_subcommand(1);
  bool verbose = false, quiet = false;
  Runner chosen;
  std::vector<std::string> names;
  for (const auto& c : all_commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    sub->add_flag("-v,--verbose", verbose, "Say more on stderr (what is read, and how)");
    sub->add_flag("-q,--quiet", quiet, "Print errors only on stderr (no warnings)");
    Runner r = c.setup(*sub);
    sub->callback([&chosen, r] { chosen = r; });
    names.push_back(c.name);
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
  if (argc > 1 && argv[1][0] != '-' &&
      std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    log::error(std::string("unknown command '") + argv[1] + "'" + suggestion(argv[1], names) +
               " (run clprof --help for the list)");
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e);  // --help, --version
    CLI::App* sub = nullptr;
    if (argc > 1 && std::find(names.begin(), names.end(), argv[1]) != names.end())
      sub = app.get_subcommand(argv[1]);
    const std::string where = sub ? std::string(argv[1]) + ": " : "";
    std::string message = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && sub) {
      const std::string u =
          unknown_option(app, *sub, std::vector<std::string>(argv + 2, argv + argc));
      if (!u.empty()) message = u;
    }
    if (dynamic_cast<const CLI::RequiredError*>(&e) && message.rfind("traces", 0) == 0)
      message = "a TRACE is required";
    message = plain_parse_message(message);
    log::error(where + message + " (run clprof " + (sub ? std::string(argv[1]) + " " : "") +
               "--help)");
    return 2;
  }
  set_log_level(verbose, quiet);
  try {
    const int rc = chosen ? chosen() : 2;
    log::progress_clear();  // a command that wrote no output (-o FILE) leaves no "analysing..."
    // Last: totals are summed (and may saturate) while the command builds its output.
    if (analyses::overflow_noted()) log::warning(analyses::kOverflowWarning);
    if (analyses::bytes_overflow_noted()) log::warning(analyses::kBytesOverflowWarning);
    return rc;
  } catch (const readers::InputError& e) {
    // Line 0: about the file as a whole ("FILE: not a regular file"), not a place in it.
    log::error(e.line() == 0 ? e.file() + ": " + e.message() : std::string(e.what()));
    return 2;
  } catch (const UsageError& e) {
    log::error(e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    // Usually the --max-memory ceiling (memory_limit.hpp); the message needs no allocation
    // beyond a small string, and the memory of the aborted command is free by now.
    log::error(out_of_memory_message());
    return 1;
  } catch (const std::exception& e) {
    log::error(e.what());
    return 1;
  }
}
