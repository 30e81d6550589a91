// What every analysis subcommand shares: the common options, reading the inputs (streaming
// or in memory), warnings, errors and writing the result.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analyses/ranges.hpp"
#include "analyses/speedup.hpp"
#include "analysis.hpp"
#include "model.hpp"
#include "output/format.hpp"
#include "readers/reader.hpp"

namespace clprof::cli {

// Bad usage detected after parsing (bad --sort field, bad --speedup, ...): exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A subcommand: registers its options on `app` and returns the function that runs it
// (called after a successful parse; returns the exit status).
using Runner = std::function<int()>;
struct Command {
  const char* name;
  const char* help;
  Runner (*setup)(CLI::App& app);
};

// Options of every analysis command.
struct CommonOptions {
  std::vector<std::string> inputs;
  std::string format = "table";
  std::string sort;
  size_t top = 0;
  std::string filter;
  std::string iteration;
  uint64_t skip_first = 0;
  std::string iteration_range;
  std::string output;
  std::string input_format;
  std::string layers_from;
  bool wide = false;
  unsigned threads = 0;
};

// Registers the common options on `app`.
void add_common_options(CLI::App& app, CommonOptions& options);
// Registers the repeatable --speedup option.
void add_speedup_option(CLI::App& app, std::vector<std::string>& specs);

// The parsed --format (throws UsageError).
output::Format parse_format_option(const CommonOptions& options);
// The parsed --speedup rules (throws UsageError).
analyses::Speedup parse_speedup_options(const std::vector<std::string>& specs);

// The result of reading the inputs.
struct Session {
  model::Run run;
  readers::Diagnostics diagnostics;
  std::unique_ptr<Analysis> analysis;
  bool streamed = false;
};

// Makes an Analysis that keeps the launches `keep` accepts (an empty predicate keeps all).
using AnalysisMaker = std::function<std::unique_ptr<Analysis>(analyses::LaunchPredicate keep)>;

// Reads the inputs and runs one Analysis over them. Streams when every input is a clprof
// trace and neither `needs_memory` nor an option (--filter, --iteration, --skip-first,
// --layers-from, a non-clprof --input-format) needs the whole run; otherwise loads it and
// feeds the Analysis. Prints the warnings. Throws InputError / UsageError.
Session run_session(const CommonOptions& options, const AnalysisMaker& make, bool needs_memory);

// Writes `text` to --output (or stdout). Throws std::runtime_error when it cannot.
void write_output(const CommonOptions& options, const std::string& text);

// Writes a result to --output (or stdout) piece by piece, for results too large to build
// as one string. Throws std::runtime_error when it cannot open or write.
class OutputStream {
 public:
  explicit OutputStream(const CommonOptions& options);
  ~OutputStream();
  void write(std::string_view text);
  // Flushes and checks that everything was written.
  void finish();

 private:
  std::string path_;
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_;
};

// Prints "clprof: warning: <message>" once per distinct message.
void print_warnings(const std::vector<std::string>& warnings);

}  // namespace clprof::cli
