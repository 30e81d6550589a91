// clprof kernels: per-kernel breakdown.
#include "analyses/kernels.hpp"
#include "cli/commands.hpp"
#include "output/json_writer.hpp"
#include "output/table.hpp"

namespace clprof::cli {

namespace {

struct KernelsOptions {
  CommonOptions common;
  std::vector<std::string> speedup;
};

void write_kernel_json(output::JsonWriter& j, const analyses::KernelRow& r) {
  j.begin_object();
  j.field("name", r.name);
  j.field("count", r.stats.count);
  j.field("total_ns", r.stats.total_ns);
  j.field("mean_ns", r.stats.mean_ns);
  j.field("median_ns", r.stats.median_ns);
  j.field("min_ns", r.stats.min_ns);
  j.field("max_ns", r.stats.max_ns);
  j.field("stddev_ns", r.stats.stddev_ns);
  j.field("percent", r.percent);
  j.field("queued_to_submit_ns", r.queued_to_submit_ns);
  j.field("submit_to_start_ns", r.submit_to_start_ns);
  j.field("enqueue_ns", r.enqueue_ns);
  j.field("untimed", r.untimed);
  if (r.est_total_ns) j.field("est_total_ns", *r.est_total_ns);
  j.end_object();
}

}  // namespace

void write_kernels_json_array(output::JsonWriter& j, const std::vector<analyses::KernelRow>& rows) {
  j.begin_array();
  for (const auto& r : rows) write_kernel_json(j, r);
  j.end_array();
}

output::Table kernels_table(const std::vector<analyses::KernelRow>& rows, bool wide, bool machine,
                            bool with_estimate) {
  using output::Align;
  using output::Column;
  std::vector<Column> cols = {{"Kernel", "name", Align::Left, true},
                              {"Calls", "count"},
                              {"Total", "total_ns"},
                              {"%", "percent"}};
  const bool all = wide || machine;
  if (all) cols.push_back({"Mean", "mean_ns"});
  cols.push_back({"Median", "median_ns"});
  cols.push_back({"Min", "min_ns"});
  cols.push_back({"Max", "max_ns"});
  if (all) {
    cols.push_back({"Stddev", "stddev_ns"});
    cols.push_back({"Queued>Submit", "queued_to_submit_ns"});
    cols.push_back({"Submit>Start", "submit_to_start_ns"});
    cols.push_back({"Enqueue", "enqueue_ns"});
    cols.push_back({"Untimed", "untimed"});
  }
  if (with_estimate) cols.push_back({"Est. total", "est_total_ns"});
  output::Table t(cols);
  for (const auto& r : rows) {
    std::vector<output::Cell> c = {output::text_cell(r.name),
                                   output::int_cell(static_cast<int64_t>(r.stats.count)),
                                   output::ns_cell(r.stats.total_ns),
                                   output::fixed_cell(r.percent, 1)};
    if (all) c.push_back(output::ns_cell(r.stats.mean_ns));
    c.push_back(output::ns_cell(r.stats.median_ns));
    c.push_back(output::ns_cell(r.stats.min_ns));
    c.push_back(output::ns_cell(r.stats.max_ns));
    if (all) {
      c.push_back(output::ns_cell(r.stats.stddev_ns));
      c.push_back(output::ns_cell(r.queued_to_submit_ns));
      c.push_back(output::ns_cell(r.submit_to_start_ns));
      c.push_back(output::ns_cell(r.enqueue_ns));
      c.push_back(output::int_cell(static_cast<int64_t>(r.untimed)));
    }
    if (with_estimate) c.push_back(output::ns_cell(r.est_total_ns));
    t.add_row(std::move(c));
  }
  return t;
}

Runner setup_kernels(CLI::App& app) {
  auto o = std::make_shared<KernelsOptions>();
  add_common_options(app, o->common);
  add_speedup_option(app, o->speedup);
  app.footer(
      "Kernel time is device end - start. Percent is the share of the total kernel time. "
      "--sort: name, count, total, mean, median, min, max, stddev, enqueue, est_total, order.");
  return [o]() -> int {
    const auto format = parse_format_option(o->common);
    const auto speedup = parse_speedup_options(o->speedup);
    if (!o->common.sort.empty()) {
      std::vector<analyses::KernelRow> probe;
      if (!analyses::sort_kernel_rows(probe, o->common.sort))
        throw UsageError("--sort: unknown field '" + o->common.sort + "' for kernels");
    }
    auto session = run_session(
        o->common,
        [](analyses::LaunchPredicate keep) {
          return std::make_unique<analyses::KernelsAnalysis>(std::move(keep));
        },
        false);
    auto& a = static_cast<analyses::KernelsAnalysis&>(*session.analysis);
    auto rows = a.rows(speedup.empty() ? nullptr : &speedup);
    const int64_t total = analyses::total_kernel_ns(a.accumulators());
    uint64_t launches = 0;
    for (const auto& r : rows) launches += r.stats.count;
    if (!o->common.sort.empty()) analyses::sort_kernel_rows(rows, o->common.sort);
    if (o->common.top > 0 && rows.size() > o->common.top) rows.resize(o->common.top);
    std::string text;
    if (format == output::Format::Json) {
      output::JsonWriter j;
      write_kernels_json_array(j, rows);
      text = j.str();
    } else {
      const bool machine = format == output::Format::Csv;
      auto t = kernels_table(rows, o->common.wide, machine, !speedup.empty());
      text = output::render(t, format, o->common.wide ? SIZE_MAX : 80);
      if (!machine) {
        text += "\nTotal kernel time " + output::format_ns(total) + " in " + std::to_string(launches) +
                (launches == 1 ? " launch" : " launches") + " of " +
                std::to_string(a.accumulators().size()) +
                (a.accumulators().size() == 1 ? " kernel" : " kernels");
        if (!speedup.empty()) {
          int64_t est = 0;
          for (const auto& r : a.rows(&speedup)) est += r.est_total_ns.value_or(r.stats.total_ns);
          text += "; estimated with --speedup: " + output::format_ns(est);
        }
        text += ".\n";
      }
    }
    write_output(o->common, text);
    return 0;
  };
}

}  // namespace clprof::cli
