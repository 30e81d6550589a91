// Options as given on the command line, and the typed request they become once checked:
// every value is validated here (exit status 2 with a message naming the option), so the
// commands never meet a bad one.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "analyses/selection.hpp"
#include "format.hpp"
#include "output/columns.hpp"

namespace clprof::cli {

// Bad usage (bad option value, option that does not apply): exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of the common options, bound to CLI11.
struct CommonOptions {
  std::vector<std::string> inputs;
  std::string format = "table";
  std::string sort;
  std::string top;
  std::string filter;
  std::string iteration;
  std::string skip_first;
  std::string iteration_range;
  std::string output;
  std::string input_format;
  std::string layers_from;
  std::string layers_by;
  std::string threads;
  std::string max_memory;  // --max-memory SIZE ("" = the default of memory_limit.hpp)
  std::string time_window;
  bool skip_first_launch = false;
  bool wide = false;
  bool merge = false;
};

// Which common options a command takes.
struct Takes {
  bool sort = true;    // --sort and --top
  bool format = true;  // --format (views with a format of their own take their own option)
  bool wide = true;    // --wide (table output)
};

// Registers the common options of the analysis commands on `app`.
void add_common_options(CLI::App& app, CommonOptions& options, Takes takes = {});
// Registers a repeatable option taking one value per occurrence (--speedup, --rules): the
// next word is never swallowed.
CLI::Option* add_repeatable(CLI::App& app, const std::string& name,
                            std::vector<std::string>& values, const std::string& help,
                            const std::string& type_name);

// The checked request of an analysis command.
struct Request {
  std::vector<std::string> inputs;
  std::string input_format;
  std::string layers_from;
  bool layers_by_enqueue = false;  // --layers-by enqueue (default: execution)
  unsigned threads = 0;
  uint64_t max_memory = 0;  // bytes, 0 = no limit (memory_limit.hpp), set from the default
  bool max_memory_given = false;
  bool merge = false;
  analyses::Selection selection;
  output::Format format = output::Format::Table;
  std::string sort;  // "" = the command's default order
  size_t top = 0;    // 0 = all
  bool wide = false;
  std::string output;  // "" = stdout
  // Other files the command reads (--rules, --peak-from): -o must not name one either.
  std::vector<std::string> other_inputs;
};

// Checks `options` and makes the request (throws UsageError).
Request make_request(const CommonOptions& options);
// Checks that -o names none of the files the request reads (throws UsageError).
void check_output_path(const Request& request);

// parse() (a function of no arguments) and its value, with the std::invalid_argument it
// throws (the parsers' errors, SelectionError, RegexError) turned into a UsageError: its
// message after `prefix` ("--iteration: ", or "" when the message names the option).
template <class Parse>
auto parse_or_usage(const std::string& prefix, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw UsageError(prefix + e.what());
  }
}

// A whole number for `option` in [min, max]; throws UsageError naming the option.
uint64_t parse_count(const std::string& option, const std::string& text, uint64_t min,
                     uint64_t max);
// A finite real number > 0 for `option`; throws UsageError.
double parse_positive(const std::string& option, const std::string& text);

// The column `request.sort` names in `schema` (npos: an extra sort, set in `extra`; npos
// and "" extra: none given). Throws UsageError listing the fields.
size_t sort_column(const output::Schema& schema, const std::vector<std::string>& options,
                   const Request& request, std::string& extra);

}  // namespace clprof::cli
