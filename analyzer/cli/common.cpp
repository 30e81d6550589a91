#include "cli/common.hpp"

#include <fstream>
#include <iostream>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "name_regex.hpp"
#include "readers/load.hpp"

#include "readers/layers_from/layers_from.hpp"

namespace clprof::cli {

void add_common_options(CLI::App& app, CommonOptions& o) {
  app.add_option("traces", o.inputs, "Trace files of one run (several = several processes)")
      ->required()
      ->type_name("TRACE...");
  app.add_option("--format", o.format, "Output format: table, csv, json or markdown")
      ->type_name("FMT")
      ->capture_default_str();
  app.add_option("--sort", o.sort, "Sort rows by FIELD (e.g. total, count, median, name)")
      ->type_name("FIELD");
  app.add_option("--top", o.top, "Show only the first N rows (0 = all)")->type_name("N");
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
  app.add_option("-o,--output", o.output, "Write the result to FILE instead of stdout")
      ->type_name("FILE");
  app.add_option("--input-format", o.input_format,
                 "Force the reader (clprof, armnn, ...; default: detected)")
      ->type_name("NAME");
  app.add_option("--layers-from", o.layers_from,
                 "Attribute launches by host time to the ranges of this profile")
      ->type_name("FILE");
  app.add_flag("--wide", o.wide, "Table: every column, no name shortening");
  app.add_option("--threads", o.threads, "Reading threads for clprof traces (0 = all cores)")
      ->type_name("N");
}

void add_speedup_option(CLI::App& app, std::vector<std::string>& specs) {
  app.add_option("--speedup", specs,
                 "Estimate times if kernels matching REGEX ran FACTOR times faster "
                 "(repeatable; first match wins)")
      ->type_name("'REGEX=FACTOR'")
      ->take_all()
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

output::Format parse_format_option(const CommonOptions& o) {
  auto f = output::parse_format(o.format);
  if (!f) throw UsageError("--format: unknown format '" + o.format + "' (table, csv, json, markdown)");
  return *f;
}

analyses::Speedup parse_speedup_options(const std::vector<std::string>& specs) {
  std::vector<analyses::SpeedupRule> rules;
  for (const auto& s : specs) {
    try {
      rules.push_back(analyses::parse_speedup(s));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return analyses::Speedup(std::move(rules));
}

void print_warnings(const std::vector<std::string>& warnings) {
  std::set<std::string> seen;
  for (const auto& w : warnings)
    if (seen.insert(w).second) std::cerr << "clprof: warning: " << w << "\n";
}

static bool all_clprof(const CommonOptions& o) {
  if (!o.input_format.empty()) return o.input_format == "clprof";
  for (const auto& p : o.inputs)
    if (readers::detect_reader(p, "").name() != "clprof") return false;
  return true;
}

Session run_session(const CommonOptions& o, const AnalysisMaker& make, bool needs_memory) {
  Session s;
  std::optional<NameRegex> filter;
  if (!o.filter.empty()) {
    try {
      filter.emplace(o.filter);
    } catch (const RegexError& e) {
      throw UsageError("--filter: invalid regex '" + o.filter + "': " + e.what());
    }
  }
  std::optional<analyses::IterationRange> iteration;
  if (!o.iteration.empty()) {
    try {
      iteration = analyses::parse_iteration_range(o.iteration);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--iteration: ") + e.what());
    }
  }
  const bool memory = needs_memory || filter || iteration || o.skip_first > 0 ||
                      !o.layers_from.empty() || !all_clprof(o);
  if (!memory) {
    readers::StreamOptions so;
    so.threads = o.threads;
    s.analysis = readers::stream_clprof_traces(o.inputs, s.run, [&] { return make({}); },
                                               s.diagnostics, so);
    s.streamed = true;
    print_warnings(s.diagnostics.warnings);
    return s;
  }
  readers::load_run(o.inputs, o.input_format, s.run, s.diagnostics);
  if (!o.layers_from.empty()) {
    model::Run source;
    readers::load_run({o.layers_from}, "", source, s.diagnostics);
    auto result = attribute_by_host_time(s.run, source);
    if (!result.note.empty()) s.diagnostics.warnings.push_back(result.note.rfind("--layers-from", 0) == 0 ? result.note : "--layers-from: " + result.note);
    if (result.launches_attributed == 0 && !s.run.launches.empty())
      s.diagnostics.warnings.push_back("--layers-from: no launch falls inside a range of " +
                                       o.layers_from);
  }
  analyses::LaunchPredicate keep;
  std::vector<analyses::LaunchPredicate> parts;
  if (iteration || o.skip_first > 0) {
    auto its = analyses::find_iterations(s.run, o.iteration_range);
    if (its.range_ids.empty())
      throw UsageError(o.iteration_range.empty()
                           ? "--iteration/--skip-first: the run has no iteration range (a "
                             "top-level range that repeats or has child ranges)"
                           : "--iteration/--skip-first: no top-level range named '" +
                                 o.iteration_range + "'");
    auto selected = std::make_shared<std::unordered_set<uint64_t>>(
        analyses::select_iterations(its, iteration, o.skip_first));
    parts.push_back([selected](const model::Launch& l) {
      for (uint64_t r : l.ranges)
        if (selected->count(r)) return true;
      return false;
    });
  }
  if (filter) {
    // Cache the verdict per kernel name and per innermost range (layer paths are built
    // from the range tree for each search); the predicate runs on this thread only.
    struct FilterState {
      analyses::RangeIndex index;
      NameRegex re;
      std::unordered_map<std::string, bool> names;
      std::unordered_map<uint64_t, bool> layers;
    };
    auto st = std::make_shared<FilterState>(FilterState{analyses::RangeIndex(s.run), *filter, {}, {}});
    parts.push_back([st](const model::Launch& l) {
      auto n = st->names.find(l.name);
      if (n == st->names.end()) n = st->names.emplace(l.name, st->re.search(l.name)).first;
      if (n->second) return true;
      const uint64_t r = analyses::innermost_range(l);
      auto m = st->layers.find(r);
      if (m == st->layers.end())
        m = st->layers.emplace(r, st->re.search(st->index.path(r))).first;
      return m->second;
    });
  }
  if (!parts.empty())
    keep = [parts](const model::Launch& l) {
      for (const auto& p : parts)
        if (!p(l)) return false;
      return true;
    };
  s.analysis = make(keep);
  feed(s.run, *s.analysis);
  print_warnings(s.diagnostics.warnings);
  return s;
}

void write_output(const CommonOptions& o, const std::string& text) {
  OutputStream out(o);
  out.write(text);
  out.finish();
}

OutputStream::OutputStream(const CommonOptions& o) : out_(&std::cout) {
  if (o.output.empty() || o.output == "-") return;
  path_ = o.output;
  file_ = std::make_unique<std::ofstream>(path_, std::ios::binary);
  if (!*file_) throw std::runtime_error("cannot open '" + path_ + "' for writing");
  out_ = file_.get();
}

OutputStream::~OutputStream() = default;

void OutputStream::write(std::string_view text) {
  out_->write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!*out_) throw std::runtime_error(path_.empty() ? "cannot write to stdout" : "cannot write '" + path_ + "'");
}

void OutputStream::finish() {
  out_->flush();
  if (file_) file_->close();
  if (!*out_) throw std::runtime_error(path_.empty() ? "cannot write to stdout" : "cannot write '" + path_ + "'");
}

}  // namespace clprof::cli
