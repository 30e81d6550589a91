#include "output/tables/transfers.hpp"

#include "format.hpp"
#include "output/tables/common_columns.hpp"
#include "output/tables/grouping.hpp"

namespace clprof::output::tables {

using analyses::GroupBy;
using analyses::Moves;
using analyses::TransferFigures;

namespace {

// The figures of a row and of each of its size classes, in this order.
std::vector<Column> figure_columns() {
  return {
      column("count", "Count", Type::Int, "", "transfers"),
      column("bytes", "Bytes", Type::Bytes, "bytes", "bytes the calls covered, as recorded"),
      column(
          "moved_bytes", "Moved", Type::Bytes, "bytes",
          "bytes moved: all of a read's, write's, copy's or fill's; none of a map's or unmap's on "
          "a CPU "
          "device; null for maps elsewhere (a copy or a zero-copy mapping: the trace cannot tell)")
          .allow_null(),
      column("time_ns", "Time", Type::Duration, "ns",
             "device time (end - start), over the timed transfers")
          .allow_null(),
      column(
          "gbps", "GB/s", Type::Real, "GB/s",
          "bytes moved / device time over the timed transfers (1 GB/s = 1 byte/ns); null for maps")
          .allow_null()
          .digits(2),
      statistic_column(Statistic::Mean, "mean device time").wide(),
      statistic_column(Statistic::Max, "longest device time").wide(),
      column("host_ns", "Host", Type::Duration, "ns",
             "host time inside the calls (a blocking call waits there for the transfer)")
          .allow_null()
          .wide(),
      column("blocking", "Blocking", Type::Int, "", "blocking calls").wide(),
      untimed_column("transfers without a device time"),
  };
}

Row figures(const TransferFigures& f, Moves moves) {
  const bool timed = f.timed > 0;
  return {Value::uint(f.count),
          Value::uint(f.bytes),
          f.moved(moves) ? Value::uint(*f.moved(moves)) : Value::null(),
          timed ? Value::integer(f.time_ns) : Value::null(),
          Value::real(f.gbps(moves)),
          Value::integer(f.mean_ns()),
          timed ? Value::integer(f.max_ns) : Value::null(),
          f.host_timed ? Value::integer(f.host_ns) : Value::null(),
          Value::uint(f.blocking),
          Value::uint(f.count - f.timed)};
}

const Schema& sizes_schema() {
  static const Schema s = [] {
    std::vector<Column> columns = {
        column("size_class", "Size", Type::Text, "",
               "bytes per transfer: <4 KiB, 4-64 KiB, 64 KiB-1 MiB, 1-16 MiB or >=16 MiB")};
    for (auto& c : figure_columns()) columns.push_back(c);
    return schema("transfer_sizes", "one row per size class of the op's transfers",
                  std::move(columns));
  }();
  return s;
}

std::string moved_text(const TransferFigures& f, std::optional<double> gbps) {
  std::string t = format_bytes(f.bytes) + " moved";
  if (f.timed) t += " in " + format_ns(f.time_ns) + " of device time";
  if (gbps) t += " (" + format_fixed(*gbps, 2) + " GB/s)";
  return t;
}

}  // namespace

const Schema& transfers_schema() {
  static const Schema s = [] {
    std::vector<Column> own = {
        column("device_type", "Kind", Type::Text, "",
               "device kind (CPU, GPU, ACCELERATOR, ...; null when unknown)")
            .allow_null(),
        column("op", "Op / size", Type::Text, "", "read, write, copy, fill, map or unmap")};
    for (auto& c : figure_columns()) own.push_back(c);
    own.push_back(nested("sizes", "Sizes", sizes_schema(), "the op's transfers per size class")
                      .csv_label_as("size_class"));
    Schema t = grouped_schema(
                   "transfers",
                   "one row per device kind and op (with --by: per group too), its size classes "
                   "nested",
                   analyses::transfer_groupings(), own)
                   .laid_out(Layout::Tree)
                   .ordered_by("group, device kind, then op: read, write, copy, fill, map, unmap");
    ++t.label;  // the op names a row; the device kind stands before it
    return t;
  }();
  return s;
}

Result transfers_result(const std::vector<analyses::TransferRow>& rows, GroupBy by) {
  Result out(transfers_schema());
  if (by != GroupBy::None) out.options.push_back(by_option(by));
  for (const auto& r : rows) {
    Row row;
    push_group_values(row, analyses::transfer_groupings(), by, r.group);
    row.push_back(r.device_type.empty() ? Value::null() : Value::text(r.device_type));
    row.push_back(Value::text(r.op));
    for (auto& v : figures(r.total, r.moves)) row.push_back(std::move(v));
    std::vector<Row> sizes;
    for (const auto& [label, f] : r.sizes) {
      Row z = {Value::text(std::string(label))};
      for (auto& v : figures(f, r.moves)) z.push_back(std::move(v));
      sizes.push_back(std::move(z));
    }
    row.push_back(Value::rows(std::move(sizes)));
    out.rows.push_back(std::move(row));
  }
  const auto totals = analyses::transfer_totals(rows);
  const uint64_t n = totals.moved.count + totals.maps.count;
  std::string note = std::to_string(n) + (n == 1 ? " transfer" : " transfers");
  if (totals.moved.count) note += ": " + moved_text(totals.moved, totals.moved.gbps(Moves::All));
  out.notes.push_back(note + ".");
  if (totals.maps.count) {
    std::string m = std::to_string(totals.maps.count) + " maps and unmaps covering " +
                    format_bytes(totals.maps.bytes) + ", not counted as moved";
    if (totals.maps_moving_nothing == totals.maps.count)
      m += " (on CPU devices they move nothing)";
    else if (totals.maps_moving_nothing)
      m += " (" + std::to_string(totals.maps_moving_nothing) +
           " on CPU devices, which move nothing)";
    out.notes.push_back(m + ".");
  }
  return out;
}

}  // namespace clprof::output::tables
