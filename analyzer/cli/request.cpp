#include "cli/request.hpp"

#include <cerrno>

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>

#include "memory_limit.hpp"

namespace clprof::cli {

void add_common_options(CLI::App& app, CommonOptions& o, Takes takes) {
  app.add_option("traces", o.inputs, "Trace files of one run (several = several processes)")
      ->required()
      ->type_name("TRACE...");
  if (takes.format)
    app.add_option("--format", o.format, "Output format: table, csv, json or markdown")
        ->type_name("FMT")
        ->capture_default_str();
  if (takes.sort) {
    app.add_option("--sort", o.sort, "Sort rows by FIELD (the fields are listed below)")
        ->type_name("FIELD");
    app.add_option("--top", o.top, "Show only the first N rows (0 = all)")->type_name("N");
  }
  app.add_option("--filter", o.filter,
                 "Keep launches whose kernel name or layer path matches REGEX")
      ->type_name("REGEX");
  app.add_option("--iteration", o.iteration,
                 "Keep only iterations SEL of the repeated range: N, A:B, A: or :B (1-based)")
      ->type_name("SEL");
  app.add_option("--skip-first", o.skip_first, "Drop the first N iterations (warm-up)")
      ->type_name("N");
  app.add_option("--iteration-range", o.iteration_range,
                 "Name of the top-level range that marks iterations (default: the most repeated)")
      ->type_name("NAME");
  app.add_option(
         "--time-window", o.time_window,
         "Keep the commands whose time falls in START:END of the host clock, from the run's start "
         "(units ns, us, ms, s: 1.5s:2s, :500ms, 2s:)")
      ->type_name("START:END");
  app.add_flag("--skip-first-launch", o.skip_first_launch,
               "Leave out each kernel's first launch per process (on PoCL it includes the "
               "just-in-time compile)");
  app.add_option("-o,--output", o.output, "Write the result to FILE instead of stdout")
      ->type_name("FILE");
  app.add_option("--input-format", o.input_format,
                 "Force the reader (clprof, armnn, ...; default: detected)")
      ->type_name("NAME");
  app.add_option("--layers-from", o.layers_from,
                 "Attribute launches by host time to the ranges of this profile")
      ->type_name("FILE");
  app.add_option("--layers-by", o.layers_by,
                 "With --layers-from: look launches up by when they ran on the device (execution, "
                 "the default; "
                 "needs the device's clock_sync) or by their enqueue call (enqueue)")
      ->type_name("WHEN");
  if (takes.wide) app.add_flag("--wide", o.wide, "Table: every column, no name shortening");
  app.add_option("--threads", o.threads, "Reading threads for clprof traces (0 = all cores)")
      ->type_name("N");
  app.add_option(
         "--max-memory", o.max_memory,
         "Stop with an error past SIZE of memory (e.g. 4G; 0 = no limit; default: half the RAM)")
      ->type_name("SIZE");
  app.add_flag("--merge", o.merge,
               "Accept traces that do not belong to one run and analyse them together");
}

CLI::Option* add_repeatable(CLI::App& app, const std::string& name,
                            std::vector<std::string>& values, const std::string& help,
                            const std::string& type_name) {
  // One value per occurrence, never more: `--rules R.json T.json` leaves T.json a trace.
  return app.add_option(name, values, help)
      ->type_name(type_name)
      ->take_all()
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

uint64_t parse_count(const std::string& option, const std::string& text, uint64_t min,
                     uint64_t max) {
  const auto bad = [&] {
    return UsageError(option + ": expected a whole number from " + std::to_string(min) +
                      (max == UINT64_MAX ? " up" : " to " + std::to_string(max)) + ", not '" +
                      text + "'");
  };
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) throw bad();
  // A whole number that is only too large says so (not "expected a whole number").
  const size_t digits = text.find_first_not_of('0') == std::string::npos
                            ? 1
                            : text.size() - text.find_first_not_of('0');
  errno = 0;
  const uint64_t v = digits > 20 ? UINT64_MAX : std::strtoull(text.c_str(), nullptr, 10);
  if (digits > 20 || errno == ERANGE || v > max)
    throw UsageError(option + ": " + text + " is too large (at most " + std::to_string(max) + ")");
  if (v < min) throw bad();
  return v;
}

double parse_positive(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
    throw UsageError(option + ": expected a finite number > 0, not '" + text + "'");
  return v;
}

Request make_request(const CommonOptions& o) {
  Request r;
  r.inputs = o.inputs;
  r.input_format = o.input_format;
  r.layers_from = o.layers_from;
  if (!o.layers_by.empty()) {
    if (o.layers_by != "execution" && o.layers_by != "enqueue")
      throw UsageError("--layers-by: expected execution or enqueue, not '" + o.layers_by + "'");
    if (o.layers_from.empty())
      throw UsageError("--layers-by applies to --layers-from, which is not given");
    r.layers_by_enqueue = o.layers_by == "enqueue";
  }
  r.merge = o.merge;
  r.wide = o.wide;
  r.output = o.output == "-" ? "" : o.output;
  r.sort = o.sort;
  auto f = output::parse_format(o.format);
  if (!f)
    throw UsageError("--format: unknown format '" + o.format + "' (table, csv, json, markdown)");
  r.format = *f;
  if (!o.top.empty()) r.top = parse_count("--top", o.top, 0, UINT64_MAX);
  if (!o.threads.empty())
    r.threads = static_cast<unsigned>(parse_count("--threads", o.threads, 0, 1024));
  r.max_memory = default_memory_limit();
  if (!o.max_memory.empty()) {
    const auto parsed = parse_memory_size(o.max_memory);
    if (!parsed)
      throw UsageError("--max-memory: expected a size such as 512M, 4G or 0 (no limit), not '" +
                       o.max_memory + "'");
    r.max_memory = *parsed;
    r.max_memory_given = true;
  }
  auto& s = r.selection;
  s.filter = o.filter;
  if (!s.filter.empty()) parse_or_usage("", [&] { analyses::check_filter(s.filter); });
  if (!o.iteration.empty()) {
    s.iteration = parse_or_usage("--iteration: ",
                                 [&] { return analyses::parse_iteration_range(o.iteration); });
    s.iteration_text = o.iteration;
  }
  if (!o.skip_first.empty())
    s.skip_first = parse_count("--skip-first", o.skip_first, 0, UINT64_MAX);
  s.iteration_range = o.iteration_range;
  if (!o.time_window.empty())
    s.window = parse_or_usage("--time-window: ",
                              [&] { return analyses::parse_time_window(o.time_window); });
  s.skip_first_launch = o.skip_first_launch;
  return r;
}

void check_output_path(const Request& r) {
  if (r.output.empty()) return;
  struct stat out;
  if (stat(r.output.c_str(), &out) != 0) return;  // a new file cannot be an input
  std::vector<std::string> read = r.inputs;
  if (!r.layers_from.empty()) read.push_back(r.layers_from);
  read.insert(read.end(), r.other_inputs.begin(), r.other_inputs.end());
  for (const auto& p : read) {
    struct stat in;
    if (stat(p.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      throw UsageError("-o " + r.output +
                       ": that is an input of this command; write the result elsewhere");
  }
}

size_t sort_column(const output::Schema& schema, const std::vector<std::string>& options,
                   const Request& r, std::string& extra) {
  extra.clear();
  if (r.sort.empty()) return output::Schema::npos;
  return parse_or_usage("",
                        [&] { return output::resolve_sort_field(schema, options, r.sort, extra); });
}

}  // namespace clprof::cli
