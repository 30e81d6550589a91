#include "output/tables/ranks.hpp"

#include "format.hpp"
#include "output/tables/common_columns.hpp"

namespace clprof::output::tables {

namespace {

Value rank_value(const analyses::RankRow* r) {
  return r && r->rank ? Value::uint(*r->rank) : Value::null();
}

// A rank: an integer, null where the trace records none.
Column rank_column(std::string key, std::string header, std::string meaning) {
  return column(std::move(key), std::move(header), Type::Int, "", std::move(meaning)).allow_null();
}

}  // namespace

const Schema& ranks_schema() {
  static const Schema s =
      schema(
          "ranks", "one row per rank (process, one per trace) of the job",
          {
              rank_column("rank", "Rank", "the process's rank (trace header; null: none)")
                  .ascending(),
              column("world_size", "Of", Type::Int, "", "the job's number of ranks (trace header)")
                  .allow_null()
                  .wide(),
              column("host", "Host", Type::Text, "", "host name (trace header)")
                  .shrink(Shorten::Middle, 8),
              column("pid", "Pid", Type::Int, "", "process id"),
              column("file", "File", Type::Text, "", "the trace it was read from")
                  .shrink(Shorten::Head)
                  .wide(),
              column("wall_ns", "Wall", Type::Duration, "ns",
                     "first to last host event of the process")
                  .allow_null(),
              column("kernel_ns", "Kernel time", Type::Duration, "ns", "sum of the kernel times"),
              column("busy_ns", "Busy", Type::Duration, "ns",
                     "union of the kernel intervals per device of the process, summed"),
              column("launches", "Launches", Type::Int, "", "kernel launches"),
              column("top_kernel", "Top kernel", Type::Text, "",
                     "the kernel with the most kernel time in this rank")
                  .allow_null()
                  .shrink(),
              column("top_kernel_ns", "Top time", Type::Duration, "ns", "that kernel's total time")
                  .allow_null()
                  .wide(),
              column("deviation_ns", "Deviation", Type::Duration, "ns",
                     "the --metric (kernel time by default) minus its median over the ranks")
                  .allow_null()
                  .with_sign(),
              column("deviation_percent", "Dev %", Type::Real, "%",
                     "deviation / median * 100 (null: median 0)")
                  .allow_null()
                  .with_sign(),
              column("outlier", "Outlier", Type::Bool, "",
                     "more than 3 median absolute deviations AND more than 10 % from the "
                     "median"),
          })
          .ordered_by("rank (traces without one last, by file), then pid");
  return s;
}

const Schema& rank_kernel_schema() {
  static const Schema s =
      schema(
          "ranks", "one kernel's total time per rank: its spread across the ranks (one object)",
          {
              column("kernel", "Kernel", Type::Text, "", "the kernel (--kernel NAME)"),
              column("ranks", "Ranks", Type::Int, "", "ranks (processes) that launched it"),
              column("launches", "Launches", Type::Int, "", "its launches over those ranks"),
              statistic_column(Statistic::Min, "smallest per-rank total"),
              statistic_column(Statistic::Median,
                               "median per-rank total (even count: mean of the two middle ones)"),
              statistic_column(Statistic::Max, "largest per-rank total"),
              column("spread_percent", "Spread %", Type::Real, "%", "(max - min) / median * 100")
                  .allow_null()
                  .labelled("Spread"),
              rank_column("fastest_rank", "Fastest rank", "the rank with the min (null: none)"),
              rank_column("slowest_rank", "Slowest rank", "the rank with the max (null: none)"),
              column("slowest_host", "Slowest host", Type::Text, "", "its host"),
              column("slowest_pid", "Slowest pid", Type::Int, "", "its process id"),
              column("outliers", "Outliers", Type::Int, "",
                     "ranks whose total is an outlier by the rule of the ranks table"),
          })
          .viewed_with("--kernel")
          .laid_out(Layout::Record)
          .one_object()
          .labelled_at(Schema::npos);
  return s;
}

Result ranks_result(const analyses::RankTable& t) {
  Result out(ranks_schema());
  uint64_t outliers = 0;
  for (const auto& r : t.rows) {
    out.rows.push_back({rank_value(&r), r.world_size ? Value::uint(*r.world_size) : Value::null(),
                        Value::text(r.host), Value::integer(r.pid), Value::text(r.file),
                        Value::integer(r.wall_ns), Value::integer(r.kernel_ns),
                        Value::integer(r.busy_ns), Value::uint(r.launches),
                        r.top_kernel.empty() ? Value::null() : Value::text(r.top_kernel),
                        r.top_kernel.empty() ? Value::null() : Value::integer(r.top_kernel_ns),
                        Value::integer(r.deviation_ns), Value::real(r.deviation_percent),
                        Value::boolean(r.outlier)});
    outliers += r.outlier ? 1 : 0;
  }
  const std::string metric = analyses::rank_metric_name(t.metric);
  out.notes.push_back(std::to_string(t.rows.size()) + (t.rows.size() == 1 ? " rank" : " ranks") +
                      "; deviation of the " + metric + " time from the median rank (" +
                      (t.median_ns ? format_ns(*t.median_ns) : std::string("unknown")) + ", MAD " +
                      format_ns(t.mad_ns) + "): " + std::to_string(outliers) +
                      " outlier(s), more than 3 MADs and 10 % from the median.");
  return out;
}

Result rank_kernel_result(const analyses::KernelSpread& s) {
  Result out(rank_kernel_schema());
  out.rows.push_back({Value::text(s.kernel), Value::uint(s.ranks), Value::uint(s.launches),
                      Value::integer(s.min_ns), Value::integer(s.median_ns),
                      Value::integer(s.max_ns), Value::real(s.spread_percent),
                      rank_value(s.fastest), rank_value(s.slowest), Value::text(s.slowest->host),
                      Value::integer(s.slowest->pid), Value::uint(s.outliers)});
  return out;
}

}  // namespace clprof::output::tables
