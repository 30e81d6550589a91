// clprof layers: per-layer breakdown, per-iteration detail, imported layer timings.
#include "analyses/layers.hpp"
#include "cli/commands.hpp"

namespace clprof::cli {

namespace {

struct LayersOptions {
  CommonOptions common;
  std::vector<std::string> speedup;
  bool per_iteration = false;
  bool no_kernels = false;
};

using output::Align;
using output::Cell;
using output::Column;

std::string layers_text(const std::vector<analyses::LayerRow>& rows, output::Format format,
                        bool wide, bool kernels, bool estimate) {
  std::vector<Column> cols = {{"Layer / kernel", "layer", Align::Left, true},
                              {"Calls", "count"},
                              {"Total", "total_ns"},
                              {"%", "percent"},
                              {"Iter", "instances"},
                              {"Median/it", "median_ns"},
                              {"Min/it", "min_ns"},
                              {"Max/it", "max_ns"}};
  if (estimate) cols.push_back({"Est. total", "est_total_ns"});
  output::Table t(cols);
  for (const auto& r : rows) {
    std::vector<Cell> c = {output::text_cell(r.layer),
                           output::int_cell(static_cast<int64_t>(r.count)),
                           output::ns_cell(r.total_ns),
                           output::fixed_cell(r.percent, 1),
                           output::int_cell(static_cast<int64_t>(r.instances)),
                           output::ns_cell(r.instance_median_ns),
                           output::ns_cell(r.instance_min_ns),
                           output::ns_cell(r.instance_max_ns)};
    if (estimate) c.push_back(output::ns_cell(r.est_total_ns));
    t.add_row(std::move(c));
    if (!kernels) continue;
    // A layer's kernels as indented rows; their Median/Min/Max are per launch.
    for (const auto& k : r.kernels) {
      std::vector<Cell> kc = {output::text_cell("  " + k.name),
                              output::int_cell(static_cast<int64_t>(k.stats.count)),
                              output::ns_cell(k.stats.total_ns),
                              output::fixed_cell(k.percent, 1),
                              output::text_cell(""),
                              output::ns_cell(k.stats.median_ns),
                              output::ns_cell(k.stats.min_ns),
                              output::ns_cell(k.stats.max_ns)};
      if (estimate) kc.push_back(output::ns_cell(k.est_total_ns));
      t.add_row(std::move(kc));
    }
  }
  return output::render(t, format, wide ? SIZE_MAX : 80);
}

std::string layers_csv(const std::vector<analyses::LayerRow>& rows, bool estimate) {
  // Flat for pandas: one row per (layer, kernel); the layer's own row has kernel "".
  std::vector<Column> cols = {{"", "layer"},     {"", "kernel"},    {"", "count"},
                              {"", "total_ns"},  {"", "percent"},   {"", "instances"},
                              {"", "median_ns"}, {"", "min_ns"},    {"", "max_ns"},
                              {"", "mean_ns"},   {"", "stddev_ns"}};
  if (estimate) cols.push_back({"", "est_total_ns"});
  output::Table t(cols);
  for (const auto& r : rows) {
    std::vector<Cell> c = {output::text_cell(r.layer), output::text_cell(""),
                           output::int_cell(static_cast<int64_t>(r.count)),
                           output::ns_cell(r.total_ns), output::fixed_cell(r.percent, 1),
                           output::int_cell(static_cast<int64_t>(r.instances)),
                           output::ns_cell(r.instance_median_ns), output::ns_cell(r.instance_min_ns),
                           output::ns_cell(r.instance_max_ns), output::ns_cell(std::nullopt),
                           output::ns_cell(std::nullopt)};
    if (estimate) c.push_back(output::ns_cell(r.est_total_ns));
    t.add_row(std::move(c));
    for (const auto& k : r.kernels) {
      std::vector<Cell> kc = {output::text_cell(r.layer), output::text_cell(k.name),
                              output::int_cell(static_cast<int64_t>(k.stats.count)),
                              output::ns_cell(k.stats.total_ns), output::fixed_cell(k.percent, 1),
                              output::int_cell(std::nullopt), output::ns_cell(k.stats.median_ns),
                              output::ns_cell(k.stats.min_ns), output::ns_cell(k.stats.max_ns),
                              output::ns_cell(k.stats.mean_ns), output::ns_cell(k.stats.stddev_ns)};
      if (estimate) kc.push_back(output::ns_cell(k.est_total_ns));
      t.add_row(std::move(kc));
    }
  }
  return output::render_csv(t);
}

void layers_json(output::JsonWriter& j, const std::vector<analyses::LayerRow>& rows,
                 const std::vector<analyses::LayerTimingRow>& timings) {
  j.begin_array();
  for (const auto& r : rows) {
    j.begin_object();
    j.field("layer", r.layer);
    j.field("count", r.count);
    j.field("total_ns", r.total_ns);
    j.field("percent", r.percent);
    j.field("instances", r.instances);
    j.field("median_ns", r.instance_median_ns);
    j.field("min_ns", r.instance_min_ns);
    j.field("max_ns", r.instance_max_ns);
    if (r.est_total_ns) j.field("est_total_ns", *r.est_total_ns);
    j.key("kernels");
    write_kernels_json_array(j, r.kernels);
    j.end_object();
  }
  for (const auto& t : timings) {
    // Imported layer times without kernels (Caffe): same fields, flagged.
    j.begin_object();
    j.field("layer", t.layer);
    j.field("direction", t.direction);
    j.field("timing_only", true);
    j.field("count", t.stats.count);
    j.field("total_ns", t.stats.total_ns);
    j.field("median_ns", t.stats.median_ns);
    j.field("min_ns", t.stats.min_ns);
    j.field("max_ns", t.stats.max_ns);
    j.key("kernels");
    j.begin_array();
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

std::string timings_text(const std::vector<analyses::LayerTimingRow>& rows, output::Format format,
                         bool wide) {
  output::Table t({{"Layer", "layer", Align::Left, true},
                   {"Direction", "direction", Align::Left},
                   {"Count", "count"},
                   {"Total", "total_ns"},
                   {"Median", "median_ns"},
                   {"Min", "min_ns"},
                   {"Max", "max_ns"}});
  for (const auto& r : rows)
    t.add_row({output::text_cell(r.layer), output::text_cell(r.direction),
               output::int_cell(static_cast<int64_t>(r.stats.count)), output::ns_cell(r.stats.total_ns),
               output::ns_cell(r.stats.median_ns), output::ns_cell(r.stats.min_ns),
               output::ns_cell(r.stats.max_ns)});
  return output::render(t, format, wide ? SIZE_MAX : 80);
}

std::string iterations_text(const std::vector<analyses::IterationDetail>& its,
                            const std::string& range_name, output::Format format, bool wide) {
  std::string out;
  const bool md = format == output::Format::Markdown;
  for (const auto& d : its) {
    out += (md ? "### " : "") + std::string("Iteration ") + std::to_string(d.index) + " (" +
           range_name + "): wall time " + (d.wall_ns ? output::format_ns(*d.wall_ns) : "-") +
           ", kernel time " + output::format_ns(d.kernel_ns) + "\n\n";
    output::Table t({{"Layer / kernel", "layer", Align::Left, true}, {"Calls", "count"}, {"Time", "total_ns"}});
    for (const auto& l : d.layers) {
      // A layer without kernels (e.g. Arm NN's memory workloads) has no kernel time: "-".
      t.add_row({output::text_cell(l.layer.empty() ? "(in " + range_name + ")" : l.layer),
                 output::text_cell(""),
                 l.kernels.empty() ? output::ns_cell(std::nullopt) : output::ns_cell(l.total_ns)});
      for (const auto& k : l.kernels)
        t.add_row({output::text_cell("  " + k.name), output::int_cell(static_cast<int64_t>(k.count)),
                   output::ns_cell(k.total_ns)});
    }
    out += output::render(t, format, wide ? SIZE_MAX : 80) + "\n";
    output::Table k({{"Kernel", "name", Align::Left, true},
                     {"Calls", "count"},
                     {"Total", "total_ns"},
                     {"%", "percent"}});
    for (const auto& kt : d.kernels)
      k.add_row({output::text_cell(kt.name), output::int_cell(static_cast<int64_t>(kt.count)),
                 output::ns_cell(kt.total_ns), output::fixed_cell(kt.percent, 2)});
    out += output::render(k, format, wide ? SIZE_MAX : 80) + "\n";
  }
  return out;
}

std::string iterations_csv(const std::vector<analyses::IterationDetail>& its) {
  output::Table t({{"", "iteration"}, {"", "wall_ns"}, {"", "layer"}, {"", "kernel"},
                   {"", "count"}, {"", "total_ns"}});
  for (const auto& d : its)
    for (const auto& l : d.layers)
      for (const auto& k : l.kernels)
        t.add_row({output::int_cell(static_cast<int64_t>(d.index)), output::ns_cell(d.wall_ns),
                   output::text_cell(l.layer), output::text_cell(k.name),
                   output::int_cell(static_cast<int64_t>(k.count)), output::ns_cell(k.total_ns)});
  return output::render_csv(t);
}

void iterations_json(output::JsonWriter& j, const std::vector<analyses::IterationDetail>& its,
                     const std::string& range_name) {
  j.begin_array();
  for (const auto& d : its) {
    j.begin_object();
    j.field("iteration", d.index);
    j.field("range", range_name);
    j.field("wall_ns", d.wall_ns);
    j.field("kernel_ns", d.kernel_ns);
    j.key("layers");
    j.begin_array();
    for (const auto& l : d.layers) {
      j.begin_object();
      j.field("layer", l.layer);
      j.field("total_ns", l.total_ns);
      j.key("kernels");
      j.begin_array();
      for (const auto& k : l.kernels) {
        j.begin_object();
        j.field("name", k.name);
        j.field("count", k.count);
        j.field("total_ns", k.total_ns);
        j.end_object();
      }
      j.end_array();
      j.end_object();
    }
    j.end_array();
    j.key("kernels");
    j.begin_array();
    for (const auto& k : d.kernels) {
      j.begin_object();
      j.field("name", k.name);
      j.field("count", k.count);
      j.field("total_ns", k.total_ns);
      j.field("percent", k.percent);
      j.end_object();
    }
    j.end_array();
    j.end_object();
  }
  j.end_array();
}

}  // namespace

Runner setup_layers(CLI::App& app) {
  auto o = std::make_shared<LayersOptions>();
  add_common_options(app, o->common);
  add_speedup_option(app, o->speedup);
  app.add_flag("--per-iteration", o->per_iteration,
               "Print every iteration in detail: its layers and their kernels, wall time, "
               "kernel time and per-kernel shares (default for imported profiles that "
               "know per-iteration wall times, e.g. Arm NN)");
  app.add_flag("--no-kernels", o->no_kernels, "Table: layer rows only");
  app.footer(
      "A launch belongs to its innermost range; nested ranges print as a path (net/conv1). "
      "A path whose outer range repeats (one 'inference' range per iteration) is one row "
      "aggregated over its instances: Iter counts them, Median/Min/Max are per instance. "
      "--sort: order (default), layer, count, total, instances, median, min, max, est_total.");
  return [o]() -> int {
    const auto format = parse_format_option(o->common);
    const auto speedup = parse_speedup_options(o->speedup);
    if (!o->common.sort.empty()) {
      std::vector<analyses::LayerRow> probe;
      if (!analyses::sort_layer_rows(probe, o->common.sort))
        throw UsageError("--sort: unknown field '" + o->common.sort + "' for layers");
    }
    auto session = run_session(
        o->common,
        [](analyses::LaunchPredicate keep) {
          return std::make_unique<analyses::LayersAnalysis>(std::move(keep));
        },
        false);
    auto& a = static_cast<analyses::LayersAnalysis&>(*session.analysis);
    const auto& run = session.run;
    auto its = analyses::find_iterations(run, o->common.iteration_range);
    bool per_iteration = o->per_iteration;
    // Importers that know per-iteration wall times (Arm NN) get the detailed view by
    // default, as vison prints it; everything else only on request.
    if (!per_iteration && !its.range_ids.empty())
      for (const auto& p : run.processes)
        if (!p.iteration_wall_ns.empty()) per_iteration = true;
    std::string text;
    if (per_iteration) {
      if (its.range_ids.empty())
        throw UsageError("--per-iteration: the run has no iteration range (a top-level range "
                         "that repeats or has child ranges)");
      auto details = analyses::iteration_details(a, run, its);
      // --iteration/--skip-first already dropped the other iterations' launches; drop their
      // sections too (run_session validated the selection).
      if (!o->common.iteration.empty() || o->common.skip_first > 0) {
        std::optional<analyses::IterationRange> sel;
        if (!o->common.iteration.empty()) sel = analyses::parse_iteration_range(o->common.iteration);
        const auto keep = analyses::select_iterations(its, sel, o->common.skip_first);
        std::vector<analyses::IterationDetail> kept;
        for (auto& d : details)
          if (keep.count(d.range_id)) kept.push_back(std::move(d));
        details = std::move(kept);
      }
      if (format == output::Format::Json) {
        output::JsonWriter j;
        iterations_json(j, details, its.range_name);
        text = j.str();
      } else if (format == output::Format::Csv) {
        text = iterations_csv(details);
      } else {
        text = iterations_text(details, its.range_name, format, o->common.wide);
      }
      write_output(o->common, text);
      return 0;
    }
    auto rows = analyses::layer_rows(a, run, speedup.empty() ? nullptr : &speedup);
    int64_t total = 0, est = 0;
    for (const auto& r : rows) {
      total += r.total_ns;
      est += r.est_total_ns.value_or(r.total_ns);
    }
    if (!o->common.sort.empty()) analyses::sort_layer_rows(rows, o->common.sort);
    if (o->common.top > 0 && rows.size() > o->common.top) rows.resize(o->common.top);
    const auto timings = analyses::layer_timing_rows(run);
    if (format == output::Format::Json) {
      output::JsonWriter j;
      layers_json(j, rows, timings);
      text = j.str();
    } else if (format == output::Format::Csv) {
      text = layers_csv(rows, !speedup.empty());
    } else {
      if (!rows.empty() || timings.empty()) {
        text = layers_text(rows, format, o->common.wide, !o->no_kernels, !speedup.empty());
        text += "\nTotal kernel time " + output::format_ns(total);
        if (!speedup.empty()) text += "; estimated with --speedup: " + output::format_ns(est);
        text += ".\n";
      }
      if (!timings.empty()) {
        if (!text.empty()) text += "\n";
        text += "Layer timings (imported, without kernels):\n\n" +
                timings_text(timings, format, o->common.wide);
      }
    }
    write_output(o->common, text);
    return 0;
  };
}

}  // namespace clprof::cli
