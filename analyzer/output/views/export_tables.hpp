// `clprof export`: every record of a run as flat tables, declared once here in the column
// model (output/columns.hpp: key, type, unit, meaning) — the SQLite schema, the CSV headers,
// the JSON Lines fields and docs/export.md's tables all come from these declarations
// (export_tables.cpp) — and the rows of each record, built from the model (export_rows.cpp).
//
// Keys: `process` (index of the process in the run, the same in every table) with `seq`
// (launches, transfers, args, api_calls) or the object's id; `range_id` and `device` are
// unique within the run. Clocks: `*_ns` named `host_*`/`enqueue_*` are on the host timeline of
// the row's process (ns since its trace start; processes.host_start_ns places them on the
// absolute host clock); `queued_ns`, `submit_ns`, `start_ns`, `end_ns` are the device's own
// clock as reported; `host_start_ns`/`host_end_ns` are those device times on the host
// timeline (clock_alignment.hpp; null without a clock sync).
//
// Not thread-safe (the GEMM decoder caches per name): one ExportRows per reading thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analyses/gemm/gemm.hpp"
#include "analyses/gemm/gemm_launch.hpp"
#include "analyses/ranges.hpp"
#include "clock_alignment.hpp"
#include "model.hpp"
#include "output/columns.hpp"
#include "output/value.hpp"

namespace clprof::output::views {

// Every table, in the order they are written (metadata first, then the streamed records).
enum class ExportTable : uint8_t {
  Processes,
  Settings,
  Devices,
  Queues,
  Programs,
  Kernels,
  Builds,
  Ranges,
  ApiCalls,
  Marks,
  Warnings,
  LayerTimings,
  Launches,
  Args,
  Transfers,
  GemmCalls,
  Count
};

struct ExportTableInfo {
  ExportTable table;
  const Schema* schema;  // name = the table's name
  // Indexes for the usual joins (SQLite), each a list of column keys.
  std::vector<std::vector<std::string>> indexes;
  bool streamed = false;  // rows come from the launches and transfers (not the metadata)
};

// The columns of `clprof gemm`'s schema (output/tables/gemm.cpp) that gemm_calls holds, as
// indexes into its rows: all but `process` (the export's own) and the --peak ones.
const std::vector<size_t>& gemm_call_columns();

const std::vector<ExportTableInfo>& export_tables();
const ExportTableInfo& export_table(ExportTable table);
// The SQL type of a column: INTEGER, REAL or TEXT (booleans are INTEGER 0/1).
const char* sql_type(const Column& column);
// docs/export.md's table section: one markdown table per export table.
std::string export_markdown();

using RowOut = std::function<void(ExportTable, const Row&)>;

class ExportRows {
 public:
  // `run` holds the metadata and must outlive this; `rules` decodes GEMM sizes.
  ExportRows(const model::Run& run, const std::vector<gemm::Rule>& rules);
  // Every row of the metadata tables (all but launches, args, transfers).
  void metadata(const RowOut& out) const;
  // A launch's row and its arguments' rows.
  void launch(const model::Launch& launch, const RowOut& out);
  void transfer(const model::Transfer& transfer, const RowOut& out) const;
  // The gemm_calls rows: one per call of `result` (finish_gemm over this run's launches).
  void gemm_calls(const analyses::GemmResult& result, const RowOut& out) const;
  // Devices of commands with device times (for the warning about unsynced ones).
  const model::DeviceUse& device_use() const { return use_; }

 private:
  Value pid(uint32_t process) const;
  const model::Run& run_;
  model::ClockAlignment clocks_;
  analyses::RangeIndex ranges_;
  gemm::LaunchDecoder gemm_;
  std::map<std::pair<uint32_t, uint64_t>, const std::string*> program_options_;
  mutable model::DeviceUse use_;
};

}  // namespace clprof::output::views
