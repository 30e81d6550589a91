#include "output/tables/layers.hpp"

#include "analyses/stats.hpp"
#include "format.hpp"
#include "output/tables/common_columns.hpp"
#include "output/tables/grouping.hpp"
#include "output/tables/kernels.hpp"

namespace clprof::output::tables {

const Schema& layers_schema() {
  static const Schema s =
      grouped_schema(
          "layers",
          "one row per layer (the path of a launch's innermost range), its kernels nested",
          analyses::launch_groupings(),
          {
              column("layer", "Layer / kernel", Type::Text, "",
                     "range path from the outermost range, e.g. net/conv1; \"(no layer)\" outside "
                     "ranges")
                  .shrink()
                  .alias("name"),
              column("direction", "Direction", Type::Text, "",
                     "imported layer times: forward or backward (null for kernel layers)")
                  .allow_null()
                  .when_known(),
              calls_column("launches with a kernel time (null: an imported layer time without "
                           "kernels)")
                  .allow_null(),
              total_column("kernel time over all instances").alias("percent"),
              share_column("share of the total kernel time, 0-100").unsortable(),
              column("instances", "Iter", Type::Int, "",
                     "range instances (iterations) with launches, or imported measurements")
                  .alias("iterations"),
              column("median_ns", "Median/it", Type::Duration, "ns",
                     "median kernel time per instance")
                  .allow_null(),
              column("min_ns", "Min/it", Type::Duration, "ns", "shortest instance").allow_null(),
              column("max_ns", "Max/it", Type::Duration, "ns", "longest instance").allow_null(),
              est_total_column().allow_null(),
              nested("kernels", "Kernels", layer_kernels_schema(),
                     "the layer's kernels (per-launch statistics; percent of the whole total)")
                  .csv_label_as("kernel")
                  .unless("--no-kernels"),
          })
          .laid_out(Layout::Tree)
          .ordered_by("execution order (first launch first)")
          .sorts_also({{"order", "execution order (the default)"}});
  return s;
}

namespace {

const Schema& iteration_layer_kernels_schema() {
  static const Schema s =
      schema("iteration_layer_kernels", "a layer's kernels in one iteration, in execution order",
             iteration_kernel_columns("Time"));
  return s;
}

const Schema& iteration_layers_schema() {
  // No group columns: --per-iteration refuses --by.
  static const Schema s =
      schema(
          "iteration_layers", "the layers of one iteration, in execution order",
          {
              column("layer", "Layer / kernel", Type::Text, "",
                     "range path below the iteration range (\"\" for launches directly in it)")
                  .shrink(),
              calls_column("launches with a kernel time (null: a layer without kernels)")
                  .allow_null(),
              total_column("kernel time (null: a layer without kernels)", "Time").allow_null(),
              share_column(
                  "share of the iteration's kernel time, 0-100 (null: a layer without kernels)")
                  .digits(2),
              nested("kernels", "Kernels", iteration_layer_kernels_schema(), "the layer's kernels")
                  .csv_label_as("kernel"),
          })
          .laid_out(Layout::Tree);
  return s;
}

const Schema& iteration_kernels_schema() {
  static const Schema s = schema("iteration_kernels", "kernel totals of one iteration, by time",
                                 iteration_kernel_columns("Total"));
  return s;
}

// A row of iteration_kernel_columns().
Row iteration_kernel_row(const analyses::IterationDetail::Kernel& k) {
  return {Value::text(k.name), Value::uint(k.count), Value::integer(k.total_ns),
          Value::real(k.percent)};
}

}  // namespace

const Schema& iterations_schema() {
  static const Schema s =
      schema("layers",
             "one row per iteration of the iteration range, its layers and kernels nested",
             {
                 column("iteration", "Iteration", Type::Int, "", "iteration number, from 1")
                     .ascending(),
                 column("range", "Range", Type::Text, "", "name of the iteration range"),
                 column("wall_ns", "Wall time", Type::Duration, "ns",
                        "the importer's wall time of the iteration, else the range's host duration")
                     .allow_null(),
                 column("kernel_ns", "Kernel time", Type::Duration, "ns",
                        "kernel time in the iteration"),
                 nested("layers", "Layers", iteration_layers_schema(),
                        "the iteration's layers and their kernels"),
                 nested("kernels", "Kernels", iteration_kernels_schema(),
                        "the iteration's kernel totals (in JSON and the table; CSV has them per "
                        "layer)")
                     .not_in_csv(),
             })
          .viewed_with("--per-iteration")
          .laid_out(Layout::Sections)
          .csv_per_leaf()
          .headed("Iteration {iteration} ({range}): wall time {wall_ns}, kernel time {kernel_ns}")
          .ordered_by("iteration");
  return s;
}

Result layers_result(const std::vector<analyses::LayerRow>& rows, bool speedup, bool kernels,
                     analyses::GroupBy by) {
  Result out(layers_schema());
  if (speedup) out.options.push_back("--speedup");
  if (!kernels) out.options.push_back("--no-kernels");
  if (by != analyses::GroupBy::None) out.options.push_back(by_option(by));
  std::vector<analyses::KernelRow> all_kernels;  // for the first-launch note
  int64_t total = 0, est = 0, timed_total = 0;
  bool any_kernels = false, any_timings = false;
  for (const auto& r : rows) {
    std::vector<Row> kernels;
    for (const auto& k : r.kernels) {
      kernels.push_back(kernel_row(k));
      all_kernels.push_back(k);
      if (all_kernels.back().group.empty()) all_kernels.back().group = r.layer;
    }
    const bool stats = r.timing_only || r.count > 0;
    auto stat = [stats](int64_t v) { return stats ? Value::integer(v) : Value::null(); };
    Row row;
    push_group_values(row, analyses::launch_groupings(), by, r.group);
    const Row own = {
        Value::text(r.layer),
        r.timing_only ? Value::text(r.direction) : Value::null(),
        r.timing_only ? Value::null() : Value::uint(r.count),
        Value::integer(r.total_ns),
        Value::real(r.percent),
        Value::uint(r.instances),
        stat(r.instance_median_ns),
        stat(r.instance_min_ns),
        stat(r.instance_max_ns),
        r.timing_only ? Value::null() : Value::integer(r.est_total_ns.value_or(r.total_ns)),
        Value::rows(std::move(kernels))};
    row.insert(row.end(), own.begin(), own.end());
    out.rows.push_back(std::move(row));
    if (r.timing_only) {
      any_timings = true;
      analyses::add_to(timed_total, r.total_ns);
    } else {
      any_kernels = true;
      analyses::add_to(total, r.total_ns);
      analyses::add_to(est, r.est_total_ns.value_or(r.total_ns));
    }
  }
  if (any_kernels || !any_timings) {
    std::string note = "Total kernel time " + format_ns(total);
    if (speedup) note += "; estimated with --speedup: " + format_ns(est);
    out.notes.push_back(note + ".");
  }
  if (any_timings)
    out.notes.push_back("Total layer time " + format_ns(timed_total) +
                        " (imported layer times, without kernels).");
  add_first_launch_notes(out, all_kernels, total);
  return out;
}

Result iterations_result(const std::vector<analyses::IterationDetail>& details,
                         const std::string& range_name) {
  Result out(iterations_schema());
  for (const auto& d : details) {
    std::vector<Row> layers;
    for (const auto& l : d.layers) {
      std::vector<Row> kernels;
      for (const auto& k : l.kernels) kernels.push_back(iteration_kernel_row(k));
      // A layer without kernels (e.g. Arm NN's memory workloads) has no kernel time.
      const bool timed = !l.kernels.empty();
      layers.push_back({Value::text(l.layer), timed ? Value::uint(l.count) : Value::null(),
                        timed ? Value::integer(l.total_ns) : Value::null(),
                        l.percent ? Value::real(*l.percent) : Value::null(),
                        Value::rows(std::move(kernels))});
    }
    std::vector<Row> kernels;
    for (const auto& k : d.kernels) kernels.push_back(iteration_kernel_row(k));
    out.rows.push_back({Value::uint(d.index), Value::text(range_name), Value::integer(d.wall_ns),
                        Value::integer(d.kernel_ns), Value::rows(std::move(layers)),
                        Value::rows(std::move(kernels))});
  }
  return out;
}

}  // namespace clprof::output::tables
