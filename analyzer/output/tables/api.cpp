#include "output/tables/api.hpp"

#include "format.hpp"
#include "output/tables/common_columns.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::output::tables {

using analyses::GroupBy;

const Schema& api_schema() {
  static const Schema s =
      grouped_schema("api",
                     "one row per OpenCL function the trace records (with --by: per group too)",
                     analyses::api_groupings(),
                     {
                         column("function", "Function", Type::Text, "", "the OpenCL function")
                             .shrink()
                             .alias("name"),
                         column("calls", "Calls", Type::Int, "", "calls recorded"),
                         total_column("host time inside the calls").alias("percent"),
                         share_column("share of the host time of all the rows, 0-100").unsortable(),
                         statistic_column(Statistic::Mean, "mean host time per call"),
                         statistic_column(Statistic::Median, "median host time per call").wide(),
                         statistic_column(Statistic::Min, "shortest call").wide(),
                         statistic_column(Statistic::Max, "longest call"),
                         stddev_column(),
                         untimed_column("calls without a host time"),
                         column("errors", "Errors", Type::Int, "", "calls that returned an error"),
                         column("error_codes", "Codes", Type::Text, "",
                                "the errors returned, most frequent first (CL_INVALID_VALUE x2)")
                             .wide(),
                     })
          .ordered_by("group, then total time, descending");
  return s;
}

Result api_result(const std::vector<analyses::ApiRow>& rows, GroupBy by,
                  const analyses::GroupLabels* labels) {
  Result out(api_schema());
  if (by != GroupBy::None) out.options.push_back(by_option(by));
  uint64_t calls = 0, errors = 0;
  int64_t total = 0;
  for (const auto& r : rows) {
    Row row;
    push_group_values(row, analyses::api_groupings(), by, labels ? (*labels)(r.group) : "");
    const bool timed = r.stats.count > 0;
    auto stat = [timed](int64_t v) { return timed ? Value::integer(v) : Value::null(); };
    const Row own = {Value::text(r.function),
                     Value::uint(r.calls),
                     Value::integer(r.stats.total_ns),
                     Value::real(r.percent),
                     stat(r.stats.mean_ns),
                     stat(r.stats.median_ns),
                     stat(r.stats.min_ns),
                     stat(r.stats.max_ns),
                     stat(r.stats.stddev_ns),
                     Value::uint(r.calls - r.stats.count),
                     Value::uint(r.errors),
                     Value::text(r.error_codes)};
    row.insert(row.end(), own.begin(), own.end());
    out.rows.push_back(std::move(row));
    calls += r.calls;
    errors += r.errors;
    total += r.stats.total_ns;
  }
  out.notes.push_back(
      std::to_string(calls) + (calls == 1 ? " call" : " calls") + ", " + format_ns(total) +
      " of host time" + (errors ? ", " + std::to_string(errors) + " returned an error" : "") +
      ". Covered: the enqueues of kernels and transfers, clFinish, clWaitForEvents and the "
      "program builds (docs/cli.md \"clprof api\").");
  return out;
}

}  // namespace clprof::output::tables
