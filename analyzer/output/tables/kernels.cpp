#include "output/tables/kernels.hpp"

#include "format.hpp"
#include "output/tables/common_columns.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::output::tables {

namespace {

// A kernel's figures: the columns of kernel_row(), in `kernels` after the group columns and
// in each layer's nested rows.
std::vector<Column> kernel_columns() {
  return {
      kernel_variant_column(),
      calls_column(),
      total_column("sum of the kernel times").alias("percent"),
      share_column("share of the selection's total kernel time, 0-100").unsortable(),
      statistic_column(Statistic::Mean, "mean kernel time").wide(),
      statistic_column(Statistic::Median,
                       "median kernel time (even count: mean of the middle two, rounded)"),
      statistic_column(Statistic::Min, "shortest kernel time"),
      statistic_column(Statistic::Max, "longest kernel time"),
      column("first_ns", "First", Type::Duration, "ns",
             "kernel time of the first launch counted (the earliest process's); on PoCL it "
             "includes the "
             "kernel's just-in-time compile (--skip-first-launch leaves it out)")
          .allow_null(),
      stddev_column(),
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
      untimed_column("launches without a kernel time (failed, incomplete)"),
      est_total_column(),
  };
}

}  // namespace

const Schema& kernels_schema() {
  static const Schema s =
      grouped_schema(
          "kernels",
          "one row per kernel: name, source and build options (with --by: per group and kernel)",
          analyses::launch_groupings(), kernel_columns())
          .ordered_by("total time, descending (with --by: per group, groups in order of their ids)")
          .sorts_also({{"order", "first launch first"}});
  return s;
}

const Schema& layer_kernels_schema() {
  static const Schema s =
      schema("layer_kernels", "one row per kernel (name, source and build options) of a layer",
             kernel_columns());
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
