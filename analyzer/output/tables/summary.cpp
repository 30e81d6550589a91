#include "output/tables/summary.hpp"

namespace clprof::output::tables {

namespace {

// The figures of the run and of each device, in order.
std::vector<Column> figure_columns() {
  return {
      column("wall_ns", "Wall", Type::Duration, "ns", "first to last host event of the run")
          .allow_null()
          .labelled("Wall time"),
      column("device_busy_ns", "Busy", Type::Duration, "ns",
             "union of the kernel intervals per device, summed")
          .allow_null()
          .labelled("Device busy"),
      column("utilization", "Util %", Type::Real, "%", "device busy / wall, in percent")
          .allow_null()
          .labelled("Utilization"),
      column("launches", "Launches", Type::Int, "", "kernel launches").allow_null(),
      column("kernels_distinct", "Kernels", Type::Int, "", "distinct kernel names")
          .allow_null()
          .labelled("Distinct kernels"),
      column("kernel_ns", "Kernel time", Type::Duration, "ns", "sum of the kernel times")
          .allow_null()
          .wide(),
      column("transfers", "Transfers", Type::Int, "",
             "buffer and image transfers (reads, writes, copies, fills, maps, unmaps)")
          .allow_null(),
      column("transfer_bytes", "Moved", Type::Bytes, "bytes",
             "bytes moved by reads, writes, copies and fills (maps are not copies: mapped_bytes)")
          .allow_null()
          .wide()
          .labelled("Bytes moved"),
      column("mapped_bytes", "Mapped", Type::Bytes, "bytes",
             "bytes covered by maps and unmaps (moved or not: see clprof transfers)")
          .allow_null()
          .wide()
          .labelled("Bytes mapped"),
      column("transfer_ns", "Xfer time", Type::Duration, "ns", "device time of the transfers")
          .allow_null()
          .wide()
          .labelled("Transfer time"),
      column(
          "transfer_gbps", "GB/s", Type::Real, "GB/s",
          "bytes moved / device time, over the reads, writes, copies and fills with a device time")
          .allow_null()
          .digits(-1)
          .wide()
          .labelled("Transfer bandwidth"),
      column("gflop_total", "GFLOP", Type::Real, "GFLOP",
             "GEMM work: sum of 2*M*N*K*batch / 1e9 over timed GEMM launches")
          .allow_null()
          .digits(-1)
          .labelled("GEMM work"),
  };
}

const Schema& device_schema() {
  static const Schema s = [] {
    std::vector<Column> columns = {
        column("device", "Id", Type::Int, "", "device id in the run").allow_null().wide(),
        column("name", "Device", Type::Text, "", "device name").allow_null().shrink()};
    for (auto& c : figure_columns()) columns.push_back(c);
    return schema("summary_devices", "one row per device", std::move(columns)).labelled_at(1);
  }();
  return s;
}

}  // namespace

const Schema& summary_schema() {
  static const Schema s = [] {
    Schema r = schema("summary", "the run (one object), its devices nested", figure_columns())
                   .laid_out(Layout::Record)
                   .one_object()
                   .labelled_at(Schema::npos);
    // The run's record has room for the transfers' bytes and bandwidth (the device table
    // keeps them for --wide).
    for (auto& c : r.columns)
      if (c.key == "transfer_bytes" || c.key == "mapped_bytes" || c.key == "transfer_gbps")
        c.show = Show::Always;
    r.columns.push_back(column("build_ns", "Build time", Type::Duration, "ns",
                               "host time in clBuildProgram, clCompileProgram, clLinkProgram")
                            .allow_null());
    r.columns.push_back(
        column("processes", "Processes", Type::Int, "", "processes (input traces)"));
    r.columns.push_back(column("truncated_processes", "Truncated", Type::Int, "",
                               "processes whose trace has no end record")
                            .labelled("Truncated processes"));
    r.columns.push_back(
        nested("devices", "Devices", device_schema(), "the same figures per device"));
    return r;
  }();
  return s;
}

namespace {

Row figures(const analyses::SummaryFigures& f, const analyses::Summary& s) {
  const Value none;
  const bool l = s.launches_known, t = s.transfers_known;
  return {Value::integer(f.wall_ns),
          l ? Value::integer(f.device_busy_ns) : none,
          l ? Value::real(f.utilization) : none,
          l ? Value::uint(f.launches) : none,
          l ? Value::uint(f.kernels_distinct) : none,
          l ? Value::integer(f.kernel_ns) : none,
          t ? Value::uint(f.transfers) : none,
          t ? Value::uint(f.transfer_bytes) : none,
          t ? Value::uint(f.mapped_bytes) : none,
          t ? Value::integer(f.transfer_ns) : none,
          t ? Value::real(f.transfer_gbps) : none,
          l ? Value::real(f.gflop_total) : none};
}

}  // namespace

Result summary_result(const analyses::Summary& s) {
  Result out(summary_schema());
  std::vector<Row> devices;
  for (const auto& d : s.devices) {
    Row row = {d.device ? Value::uint(d.device) : Value::null(),
               d.name.empty() ? Value::null() : Value::text(d.name)};
    for (auto& v : figures(d.figures, s)) row.push_back(std::move(v));
    devices.push_back(std::move(row));
  }
  Row run = figures(s.run, s);
  run.push_back(s.builds_known ? Value::integer(s.run.build_ns) : Value::null());
  run.push_back(Value::uint(s.processes));
  run.push_back(Value::uint(s.truncated_processes));
  run.push_back(Value::rows(std::move(devices)));
  out.rows.push_back(std::move(run));
  return out;
}

}  // namespace clprof::output::tables
