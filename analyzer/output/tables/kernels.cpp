#include "output/tables/kernels.hpp"

#include "format.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::output::tables {

namespace {

// A kernel's figures: the columns of kernel_row(), in `kernels` after the group columns and
// in each layer's nested rows.
std::vector<Column> kernel_columns() {
  return {
      column("name", "Kernel", Type::Text, "", "kernel function name").shrink(),
      column("count", "Calls", Type::Int, "", "launches with a kernel time"),
      column("total_ns", "Total", Type::Duration, "ns", "sum of the kernel times").alias("percent"),
      column("percent", "%", Type::Real, "%", "share of the selection's total kernel time, 0-100")
          .allow_null()
          .unsortable(),
      column("mean_ns", "Mean", Type::Duration, "ns", "mean kernel time").allow_null().wide(),
      column("median_ns", "Median", Type::Duration, "ns",
             "median kernel time (even count: mean of the middle two, rounded)")
          .allow_null(),
      column("min_ns", "Min", Type::Duration, "ns", "shortest kernel time").allow_null(),
      column("max_ns", "Max", Type::Duration, "ns", "longest kernel time").allow_null(),
      column("first_ns", "First", Type::Duration, "ns",
             "kernel time of the first launch counted (the earliest process's); on PoCL it "
             "includes the "
             "kernel's just-in-time compile (--skip-first-launch leaves it out)")
          .allow_null(),
      column("stddev_ns", "Stddev", Type::Duration, "ns", "sample standard deviation (n - 1)")
          .allow_null()
          .wide(),
      column("queued_to_submit_ns", "Queued>Submit", Type::Duration, "ns",
             "sum of device submit - queued, where both are known")
          .allow_null()
          .wide(),
      column("submit_to_start_ns", "Submit>Start", Type::Duration, "ns",
             "sum of device start - submit, where both are known")
          .allow_null()
          .wide(),
      column("enqueue_ns", "Enqueue", Type::Duration, "ns",
             "sum of host time inside the enqueue calls")
          .allow_null()
          .wide(),
      column("untimed", "Untimed", Type::Int, "",
             "launches without a kernel time (failed, incomplete)")
          .wide(),
      column("est_total_ns", "Est. total", Type::Duration, "ns",
             "estimated total if the --speedup rules applied")
          .only_with("--speedup"),
  };
}

}  // namespace

const Schema& kernels_schema() {
  static const Schema s = [] {
    Schema k;
    k.name = "kernels";
    k.title = "one row per kernel name (with --by: per group and kernel name)";
    k.default_order = "total time, descending (with --by: per group, groups in order of their ids)";
    k.extra_sorts = {{"order", "first launch first"}};
    k.columns = group_columns(analyses::launch_groupings());
    k.label = k.columns.size();
    for (auto& c : kernel_columns()) k.columns.push_back(c);
    return k;
  }();
  return s;
}

const Schema& layer_kernels_schema() {
  static const Schema s = [] {
    Schema k;
    k.name = "layer_kernels";
    k.title = "one row per kernel name of a layer";
    k.columns = kernel_columns();
    return k;
  }();
  return s;
}

Row kernel_row(const analyses::KernelRow& r) {
  const bool timed = r.stats.count > 0;
  auto stat = [timed](int64_t v) { return timed ? Value::integer(v) : Value::null(); };
  return {Value::text(r.name),
          Value::uint(r.stats.count),
          Value::integer(r.stats.total_ns),
          r.percent ? Value::real(*r.percent) : Value::null(),
          stat(r.stats.mean_ns),
          stat(r.stats.median_ns),
          stat(r.stats.min_ns),
          stat(r.stats.max_ns),
          Value::integer(r.first_ns),
          stat(r.stats.stddev_ns),
          Value::integer(r.queued_to_submit_ns),
          Value::integer(r.submit_to_start_ns),
          Value::integer(r.enqueue_ns),
          Value::uint(r.untimed),
          Value::integer(r.est_total_ns)};
}

Result kernels_result(const std::vector<analyses::KernelRow>& rows, bool speedup, int64_t total_ns,
                      uint64_t kernels, std::optional<int64_t> estimated_ns, analyses::GroupBy by) {
  Result out(kernels_schema());
  if (speedup) out.options.push_back("--speedup");
  if (by != analyses::GroupBy::None) out.options.push_back(by_option(by));
  uint64_t launches = 0;
  for (const auto& r : rows) {
    Row row;
    push_group_values(row, analyses::launch_groupings(), by, r.group);
    for (auto& v : kernel_row(r)) row.push_back(std::move(v));
    out.rows.push_back(std::move(row));
    launches += r.stats.count;
  }
  std::string note = "Total kernel time " + format_ns(total_ns) + " in " +
                     std::to_string(launches) + (launches == 1 ? " launch" : " launches") + " of " +
                     std::to_string(kernels) + (kernels == 1 ? " kernel" : " kernels");
  if (estimated_ns) note += "; estimated with --speedup: " + format_ns(*estimated_ns);
  out.notes.push_back(note + ".");
  add_first_launch_notes(out, rows, total_ns);
  return out;
}

void add_first_launch_notes(Result& out, const std::vector<analyses::KernelRow>& rows,
                            int64_t total_ns) {
  const auto heavy = analyses::first_launch_dominates(rows, total_ns);
  if (heavy.empty()) return;
  std::string which;
  for (size_t i = 0; i < heavy.size() && i < 3; ++i) {
    const auto& r = *heavy[i];
    which +=
        std::string(i ? "; " : "") + (r.group.empty() ? "" : r.group + ": ") + r.name + " " +
        format_ns(*r.first_ns) + " (median " + format_ns(r.stats.median_ns) + ", " +
        format_fixed(100.0 * static_cast<double>(*r.first_ns) / static_cast<double>(total_ns), 1) +
        "% of the kernel time)";
  }
  if (heavy.size() > 3) which += "; and " + std::to_string(heavy.size() - 3) + " more";
  out.notes.push_back("First launch dominates: " + which +
                      ". On PoCL a kernel's first launch includes its just-in-time compile; "
                      "--skip-first-launch leaves each kernel's first launch out.");
}

}  // namespace clprof::output::tables
