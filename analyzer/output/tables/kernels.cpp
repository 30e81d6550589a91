#include "output/tables/kernels.hpp"

#include "output/format.hpp"

namespace clprof::output::tables {

const Schema& kernels_schema() {
  static const Schema s = [] {
    Schema k;
    k.name = "kernels";
    k.title = "one row per kernel name";
    k.default_order = "total time, descending";
    k.extra_sorts = {{"order", "first launch first"}};
    k.columns = {
        column("name", "Kernel", Type::Text, "", "kernel function name").shrink(),
        column("count", "Calls", Type::Int, "", "launches with a kernel time"),
        column("total_ns", "Total", Type::Duration, "ns", "sum of the kernel times").alias("percent"),
        column("percent", "%", Type::Real, "%", "share of the selection's total kernel time, 0-100")
            .allow_null().unsortable(),
        column("mean_ns", "Mean", Type::Duration, "ns", "mean kernel time").allow_null().wide(),
        column("median_ns", "Median", Type::Duration, "ns",
               "median kernel time (even count: mean of the middle two, rounded)")
            .allow_null(),
        column("min_ns", "Min", Type::Duration, "ns", "shortest kernel time").allow_null(),
        column("max_ns", "Max", Type::Duration, "ns", "longest kernel time").allow_null(),
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
        column("enqueue_ns", "Enqueue", Type::Duration, "ns", "sum of host time inside the enqueue calls")
            .allow_null()
            .wide(),
        column("untimed", "Untimed", Type::Int, "", "launches without a kernel time (failed, incomplete)").wide(),
        column("est_total_ns", "Est. total", Type::Duration, "ns",
               "estimated total if the --speedup rules applied")
            .only_with("--speedup"),
    };
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
          stat(r.stats.stddev_ns),
          Value::integer(r.queued_to_submit_ns),
          Value::integer(r.submit_to_start_ns),
          Value::integer(r.enqueue_ns),
          Value::uint(r.untimed),
          Value::integer(r.est_total_ns)};
}

Result kernels_result(const std::vector<analyses::KernelRow>& rows, bool speedup, int64_t total_ns,
                      uint64_t kernels, std::optional<int64_t> estimated_ns) {
  Result out(kernels_schema());
  if (speedup) out.options.push_back("--speedup");
  uint64_t launches = 0;
  for (const auto& r : rows) {
    out.rows.push_back(kernel_row(r));
    launches += r.stats.count;
  }
  std::string note = "Total kernel time " + format_ns(total_ns) + " in " + std::to_string(launches) +
                     (launches == 1 ? " launch" : " launches") + " of " + std::to_string(kernels) +
                     (kernels == 1 ? " kernel" : " kernels");
  if (estimated_ns) note += "; estimated with --speedup: " + format_ns(*estimated_ns);
  out.notes.push_back(note + ".");
  return out;
}

}  // namespace clprof::output::tables
