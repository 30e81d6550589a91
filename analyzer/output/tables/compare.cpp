#include "output/tables/compare.hpp"

#include "format.hpp"
#include "output/tables/advise.hpp"

namespace clprof::output::tables {

const Schema& compare_items_schema() {
  static const Schema s =
      schema(
          "compare_items", "one kernel, layer or GEMM shape in both runs",
          {
              column(
                  "name", "Name", Type::Text, "",
                  "kernel name (NAME [TAG] when a run has several variants of the name: "
                  "docs/cli.md, compare, Matching); "
                  "layer path (below the iteration range, as the base names it); the kernels of a "
                  "GEMM shape")
                  .shrink(),
              column("m", "M", Type::Int, "", "GEMM rows of C (gemm section; null elsewhere)")
                  .allow_null()
                  .when_known(),
              column("n", "N", Type::Int, "", "GEMM columns of C").allow_null().when_known(),
              column("k", "K", Type::Int, "", "GEMM inner dimension").allow_null().when_known(),
              column("batch", "Batch", Type::Int, "", "GEMM batch count").allow_null().when_known(),
              column("base_count", "Calls base", Type::Int, "",
                     "timed launches in the base's selection (null: absent)")
                  .allow_null()
                  .wide(),
              column("other_count", "Calls other", Type::Int, "",
                     "timed launches in the other run's selection")
                  .allow_null()
                  .wide(),
              column("base_ns", "Base", Type::Duration, "ns",
                     "time in the base run (--stat per iteration; per run without iterations; per "
                     "launch "
                     "for GEMM "
                     "shapes)")
                  .allow_null()
                  .alias("base"),
              column("other_ns", "Other", Type::Duration, "ns",
                     "time in the other run, the same way")
                  .allow_null(),
              column("delta_ns", "Delta", Type::Duration, "ns", "other - base (negative: faster)")
                  .with_sign()
                  .allow_null(),
              column("delta_percent", "Delta %", Type::Real, "%", "100 * (other - base) / base")
                  .with_sign()
                  .allow_null(),
              column("speedup", "Speedup", Type::Real, "",
                     "base / other: above 1 the other run is faster")
                  .allow_null()
                  .digits(3),
              column("status", "Status", Type::Text, "",
                     "slower, faster, equal, new (only in the other run) or vanished"),
              column(
                  "base_share", "% base", Type::Real, "%",
                  "share of the base's total, 0-100 (GEMM shapes: launches x per-launch time, per "
                  "iteration when the base has iterations)")
                  .allow_null()
                  .wide(),
              column("base_gflops", "GF/s base", Type::Real, "GFLOPS",
                     "GEMM shapes: 2*M*N*K*batch / base time")
                  .allow_null()
                  .when_known(),
              column("other_gflops", "GF/s other", Type::Real, "GFLOPS",
                     "GEMM shapes: 2*M*N*K*batch / other time")
                  .allow_null()
                  .when_known(),
          })
          .ordered_by(
              "kernels and GEMM shapes by time (the larger of the two runs), layers in execution "
              "order")
          .sorts_also({{"order", "the default order"}});
  return s;
}

const Schema& compare_findings_schema() {
  static const Schema s =
      schema("compare_findings",
             "one clprof advise finding of the other run that the base lacks (no base finding has "
             "its rule and subjects)",
             {
                 column("rule", "Rule", Type::Text, "", "the rule's stable id (docs/advice.md)"),
                 column("severity", "Severity", Type::Text, "", "info or warning"),
                 column("title", "Title", Type::Text, "", "the finding in one line")
                     .shrink(Shorten::Tail, 18),
                 column("impact_ns", "Impact", Type::Duration, "ns",
                        "time a fix would save in the other run, where the rule can estimate it")
                     .allow_null(),
                 column("subjects", "Subjects", Type::Text, "",
                        "the kernels, calls, queues, devices or sources it is about, "
                        "comma-separated (with the rule, what makes a finding the same in both "
                        "runs)")
                     .shrink(Shorten::Tail, 12),
             })
          .ordered_by("the other run's ranking (clprof advise's order)");
  return s;
}

const Schema& compare_schema() {
  static const Schema s =
      schema(
          "compare",
          "one section per OTHER run and kind of item (kernels, layers, gemm), its items nested; "
          "then its findings section",
          {
              column("section", "Section", Type::Text, "",
                     "kernels, layers, gemm, or findings (clprof advise's findings new in the "
                     "other run)"),
              column("base", "Base", Type::Text, "",
                     "the base run (its first trace's file name, +N more traces)"),
              column("other", "Other", Type::Text, "", "the other run"),
              column("stat", "Stat", Type::Text, "",
                     "the --stat: median, min or mean (the findings section has none)")
                  .allow_null(),
              column("unit", "Unit", Type::Text, "",
                     "per iteration, per run (no iteration range) or per launch (gemm); in the "
                     "findings section what it holds"),
              column("base_iterations", "Base iterations", Type::Int, "",
                     "selected iterations of the base (null: no iteration range)")
                  .allow_null(),
              column("other_iterations", "Other iterations", Type::Int, "",
                     "selected iterations of the other run")
                  .allow_null(),
              column("total_base_ns", "Total base", Type::Duration, "ns",
                     "base kernel time: --stat over the iterations' kernel times (per run: the "
                     "kernels' "
                     "sum)"),
              column("total_other_ns", "Total other", Type::Duration, "ns",
                     "the other run's, the same way"),
              column("total_delta_ns", "Total delta", Type::Duration, "ns",
                     "total other - total base")
                  .with_sign(),
              column("total_delta_percent", "Total delta %", Type::Real, "%",
                     "100 * total delta / total base")
                  .allow_null()
                  .with_sign(),
              column("total_speedup", "Total speedup", Type::Real, "", "total base / total other")
                  .allow_null(),
              nested("items", "Items", compare_items_schema(),
                     "the section's kernels, layers or GEMM shapes (null in the findings section)")
                  .allow_null()
                  .csv_label_as("name"),
              nested("new_findings", "New findings", compare_findings_schema(),
                     "the findings section: clprof advise's findings of the other run that the "
                     "base lacks, keyed by rule and subjects (null in the other sections)")
                  .allow_null()
                  .not_in_csv(),
          })
          .laid_out(Layout::Sections)
          .csv_per_leaf()
          .headed("{section}, {stat?} {unit}: {base} -> {other}")
          .ordered_by("per OTHER: kernels, layers, gemm, findings");
  return s;
}

namespace {

Value figure_time(const std::optional<analyses::Figure>& f) {
  return f ? Value::integer(f->time_ns) : Value();
}
Value figure_count(const std::optional<analyses::Figure>& f) {
  return f ? Value::uint(f->count) : Value();
}
Value figure_gflops(const std::optional<analyses::Figure>& f) {
  return f ? Value::real(f->gflops) : Value();
}

Row item_row(const analyses::CompareItem& it) {
  auto dim = [&it](size_t i) -> Value {
    if (!it.shape) return Value();
    const auto& s = *it.shape;
    const int64_t v = i == 0   ? std::get<0>(s)
                      : i == 1 ? std::get<1>(s)
                      : i == 2 ? std::get<2>(s)
                               : std::get<3>(s);
    return Value::integer(v);
  };
  return {Value::text(it.name),
          dim(0),
          dim(1),
          dim(2),
          dim(3),
          figure_count(it.base),
          figure_count(it.other),
          figure_time(it.base),
          figure_time(it.other),
          Value::integer(it.delta_ns()),
          Value::real(it.delta_percent()),
          Value::real(it.speedup()),
          Value::text(it.status()),
          Value::real(it.base_share),
          figure_gflops(it.base),
          figure_gflops(it.other)};
}

Value findings_rows(const std::vector<analyses::advice::Finding>& findings) {
  std::vector<Row> rows;
  for (const auto& f : findings)
    rows.push_back({Value::text(f.rule), Value::text(analyses::advice::severity_name(f.severity)),
                    Value::text(f.title), Value::integer(f.impact_ns),
                    Value::text(subjects_text(f))});
  return Value::rows(std::move(rows));
}

Value iterations(uint64_t n) {
  return n ? Value::uint(n) : Value();
}

std::string signed_percent(const std::optional<double>& p) {
  if (!p) return "n/a";
  return (*p > 0 ? "+" : "") + format_fixed(*p, 1) + "%";
}

// What the compared total is: per iteration, the statistic over the iterations of their
// kernel time; per run, each kernel's launches x the statistic of one launch, summed (the
// run's total only for the mean).
std::string basis(uint64_t iterations, analyses::Stat stat) {
  const std::string s = analyses::stat_name(stat);
  if (iterations) return "per iteration (" + s + " of " + std::to_string(iterations) + ")";
  if (stat == analyses::Stat::Mean) return "per run (sum of the launches)";
  return "per run (launches x " + s + " launch, per kernel)";
}

std::string total_label(const analyses::Comparison& c) {
  const std::string b = basis(c.base_iterations, c.stat), o = basis(c.other_iterations, c.stat);
  return "Kernel time " + (b == o ? b : b + " vs " + o);
}

}  // namespace

Result compare_result(const std::vector<analyses::Comparison>& comparisons) {
  Result out(compare_schema());
  for (const auto& c : comparisons) {
    for (const auto& s : c.sections) {
      std::vector<Row> items;
      for (const auto& it : s.items) items.push_back(item_row(it));
      out.rows.push_back({Value::text(analyses::section_name(s.section)), Value::text(c.base_label),
                          Value::text(c.other_label), Value::text(analyses::stat_name(c.stat)),
                          Value::text(s.unit), iterations(c.base_iterations),
                          iterations(c.other_iterations), Value::integer(c.base_total_ns),
                          Value::integer(c.other_total_ns), Value::integer(c.total_delta_ns()),
                          Value::real(c.total_delta_percent()), Value::real(c.total_speedup()),
                          Value::rows(std::move(items)), Value()});
    }
    // Findings have no statistic: null, so the heading reads "findings, new in the other run".
    out.rows.push_back({Value::text("findings"), Value::text(c.base_label),
                        Value::text(c.other_label), Value(), Value::text("new in the other run"),
                        iterations(c.base_iterations), iterations(c.other_iterations),
                        Value::integer(c.base_total_ns), Value::integer(c.other_total_ns),
                        Value::integer(c.total_delta_ns()), Value::real(c.total_delta_percent()),
                        Value::real(c.total_speedup()), Value(), findings_rows(c.new_findings)});
    const auto speedup = c.total_speedup();
    out.notes.push_back(total_label(c) + ": " + c.base_label + " " + format_ns(c.base_total_ns) +
                        " -> " + c.other_label + " " + format_ns(c.other_total_ns) + " (" +
                        signed_percent(c.total_delta_percent()) + ", speedup " +
                        (speedup ? format_fixed(*speedup, 3) : std::string("n/a")) + ").");
    for (const auto& n : c.notes) out.notes.push_back(n);
    out.notes.push_back(std::to_string(c.new_findings.size()) + " clprof advise finding" +
                        (c.new_findings.size() == 1 ? "" : "s") + " new in " + c.other_label +
                        " (its rule and subjects not found in " + c.base_label + ").");
  }
  return out;
}

void order_items(Result& result, size_t column, size_t top) {
  const size_t items = compare_schema().find("items");
  for (auto& row : result.rows) {
    if (row[items].is_null()) continue;  // the findings section
    Result sub(compare_items_schema());
    sub.rows = row[items].as_rows();
    sub.options = result.options;
    if (column == Schema::npos)
      keep_top(sub, top);
    else
      order_rows(sub, column, top);
    std::vector<Row> kept;
    Row scratch;
    for (size_t i = 0; i < sub.size(); ++i) kept.push_back(sub.row(i, scratch));
    row[items] = Value::rows(std::move(kept));
  }
}

}  // namespace clprof::output::tables
