// clprof summary: one overview of the run, and the same figures per device.
#include "analyses/gemm/gemm.hpp"
#include "analyses/summary.hpp"
#include "cli/commands.hpp"

namespace clprof::cli {

namespace {

// Summary and GEMM analyses fed together in one pass (GFLOP totals need the rules).
class SummaryAndGemm : public Analysis {
 public:
  explicit SummaryAndGemm(analyses::LaunchPredicate keep)
      : gemm(std::make_shared<std::vector<gemm::Rule>>(gemm::builtin_rules()), keep, true),
        keep_(std::move(keep)) {}
  void add_launch(const model::Launch& l) override {
    if (keep_ && !keep_(l)) return;
    summary.add_launch(l);
    gemm.add_launch(l);
  }
  void add_transfer(const model::Transfer& t) override { summary.add_transfer(t); }
  void merge(Analysis&& other) override {
    auto& o = dynamic_cast<SummaryAndGemm&>(other);
    summary.merge(std::move(o.summary));
    gemm.merge(std::move(o.gemm));
  }
  analyses::SummaryAnalysis summary;
  analyses::GemmAnalysis gemm;

 private:
  analyses::LaunchPredicate keep_;
};

void figures_json(output::JsonWriter& j, const analyses::SummaryFigures& f) {
  j.field("wall_ns", f.wall_ns);
  j.field("device_busy_ns", f.device_busy_ns);
  j.field("utilization", f.utilization);
  j.field("launches", f.launches);
  j.field("kernel_ns", f.kernel_ns);
  j.field("transfers", f.transfers);
  j.field("transfer_bytes", f.transfer_bytes);
  j.field("transfer_ns", f.transfer_ns);
  j.field("gflop_total", f.gflop_total);
}

}  // namespace

Runner setup_summary(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  add_common_options(app, *o);
  app.footer(
      "wall: first to last host event of the run; device busy: union of the kernel "
      "intervals per device (summed over devices); utilization = busy / wall in percent.");
  return [o]() -> int {
    const auto format = parse_format_option(*o);
    auto session = run_session(
        *o,
        [](analyses::LaunchPredicate keep) { return std::make_unique<SummaryAndGemm>(std::move(keep)); },
        false);
    auto& a = static_cast<SummaryAndGemm&>(*session.analysis);
    const auto gemm = analyses::finish_gemm(std::move(a.gemm), session.run, 0);
    auto s = analyses::make_summary(a.summary, session.run, gemm.gflop_per_device);
    s.run.kernels_distinct = a.summary.kernel_names().size();
    std::string text;
    if (format == output::Format::Json) {
      output::JsonWriter j;
      j.begin_object();
      figures_json(j, s.run);
      j.field("kernels_distinct", s.run.kernels_distinct);
      j.field("build_ns", s.run.build_ns);
      j.field("processes", s.processes);
      j.field("truncated_processes", s.truncated_processes);
      j.key("devices");
      j.begin_array();
      for (const auto& d : s.devices) {
        j.begin_object();
        j.field("device", d.device);
        j.field("name", d.name);
        figures_json(j, d.figures);
        j.field("kernels_distinct", d.figures.kernels_distinct);
        j.end_object();
      }
      j.end_array();
      j.end_object();
      text = j.str();
    } else {
      using output::Align;
      const bool machine = format == output::Format::Csv;
      // CSV: one row for the run (device "all") and one per device, same columns.
      output::Table t({{"Device", "device", Align::Left, true},
                       {"Wall", "wall_ns"},
                       {"Busy", "device_busy_ns"},
                       {"Util %", "utilization"},
                       {"Launches", "launches"},
                       {"Kernels", "kernels_distinct"},
                       {"Transfers", "transfer_bytes"},
                       {"Xfer time", "transfer_ns"},
                       {"GFLOP", "gflop_total"}});
      auto row = [&](const std::string& name, const analyses::SummaryFigures& f) {
        const auto distinct = static_cast<int64_t>(f.kernels_distinct);
        t.add_row({output::text_cell(name), output::ns_cell(f.wall_ns), output::ns_cell(f.device_busy_ns),
                   output::fixed_cell(f.utilization, 1),
                   output::int_cell(static_cast<int64_t>(f.launches)), output::int_cell(distinct),
                   output::bytes_cell(f.transfer_bytes), output::ns_cell(f.transfer_ns),
                   output::Cell{output::format_general(f.gflop_total), output::fixed_cell(f.gflop_total, 3).raw}});
      };
      if (machine) {
        row("all", s.run);
        for (const auto& d : s.devices)
          row(d.name.empty() ? "device " + std::to_string(d.device) : d.name, d.figures);
        text = output::render_csv(t);
      } else {
        output::Table kv({{"", "key", Align::Left}, {"", "value", Align::Left}});
        auto add = [&](const std::string& k, const std::string& v) {
          kv.add_row({output::text_cell(k), output::text_cell(v)});
        };
        add("Processes", std::to_string(s.processes) +
                             (s.truncated_processes ? " (" + std::to_string(s.truncated_processes) + " truncated)" : ""));
        add("Wall time", s.run.wall_ns ? output::format_ns(*s.run.wall_ns) : "-");
        add("Device busy", output::format_ns(s.run.device_busy_ns));
        add("Utilization", s.run.utilization ? output::format_fixed(*s.run.utilization, 1) + " %" : "-");
        add("Kernel time", output::format_ns(s.run.kernel_ns));
        add("Launches", std::to_string(s.run.launches));
        add("Distinct kernels", std::to_string(s.run.kernels_distinct));
        add("Transfers", std::to_string(s.run.transfers) + " (" + output::format_bytes(s.run.transfer_bytes) +
                             ", " + output::format_ns(s.run.transfer_ns) + ")");
        add("Build time", output::format_ns(s.run.build_ns));
        add("GEMM work", output::format_general(s.run.gflop_total) + " GFLOP");
        std::string kvtext = output::render(kv, format, 80);
        // The key/value table reads better without its empty header.
        if (format == output::Format::Table) kvtext = kvtext.substr(kvtext.find('\n', kvtext.find('\n') + 1) + 1);
        text = kvtext;
        if (!s.devices.empty()) {
          for (const auto& d : s.devices)
            row(d.name.empty() ? "device " + std::to_string(d.device) : d.name, d.figures);
          text += "\n" + output::render(t, format, o->wide ? SIZE_MAX : 80);
        }
      }
    }
    write_output(*o, text);
    return 0;
  };
}

}  // namespace clprof::cli
