// `clprof export`: the tables of views/export_tables.hpp written as SQLite (one file, one
// transaction, prepared statements, indexes for the usual joins), CSV (a directory, one file
// per table) or JSON Lines (one object per row, its table in the field "table"), row by row
// as the records arrive. Memory: the run's metadata and the sinks' buffers, whatever the
// number of launches. Single-threaded: feed it from one reading thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "output/views/export_tables.hpp"

namespace clprof::output::views {

// Where the rows go. The reader may deliver a file's records twice (views/out_file.hpp):
// begin_records marks where a process's launches, args and transfers begin, and
// restart_records drops what was written of them since.
class ExportSink {
 public:
  virtual ~ExportSink() = default;
  virtual void row(ExportTable table, const Row& row) = 0;
  virtual void begin_records(uint32_t process) = 0;
  virtual void restart_records(uint32_t process) = 0;
  // Completes the output (SQLite: indexes, commit, then the file takes its name). Without
  // finish() the output is removed (SQLite) or left as far as it got.
  virtual void finish() = 0;
};

enum class ExportFormat { Sqlite, Csv, Jsonl };

// Throws std::runtime_error naming the output when it cannot be created.
std::unique_ptr<ExportSink> make_sqlite_sink(const std::string& path);
std::unique_ptr<ExportSink> make_csv_sink(const std::string& directory);
std::unique_ptr<ExportSink> make_jsonl_sink(const std::string& path);  // "" = stdout

// The gemm_calls table is `clprof gemm`'s calls over the same launches and selection: every
// launch goes to a GemmAnalysis per process (40 bytes per GEMM launch, a few per recorded
// call), and its rows are written by end(), after the streamed tables.
class ExportWriter {
 public:
  ExportWriter(const model::Run& run, const std::vector<gemm::Rule>& rules, ExportSink& sink)
      : run_(run),
        rules_(std::make_shared<const std::vector<gemm::Rule>>(rules)),
        rows_(run, rules),
        sink_(sink) {}
  void begin();  // the metadata tables
  // The selection (--filter, --iteration, ...): set before the first launch.
  void set_selection(analyses::LaunchPredicate keep) { keep_ = std::move(keep); }
  // Every launch, selected or not: those the selection keeps are rows of launches and args;
  // all of them go to the GEMM calls (as `clprof gemm` sees them).
  void add_launch(const model::Launch& launch);
  void add_transfer(const model::Transfer& transfer);
  void end();  // the gemm_calls rows, then the sink's finish()
  const ExportRows& rows() const { return rows_; }
  uint64_t launches() const { return launches_; }

 private:
  void note_records(uint32_t process, bool launch, uint64_t seq);
  analyses::GemmAnalysis& gemm(uint32_t process);
  const model::Run& run_;
  std::shared_ptr<const std::vector<gemm::Rule>> rules_;
  analyses::LaunchPredicate keep_;
  std::map<uint32_t, std::unique_ptr<analyses::GemmAnalysis>> gemm_;  // per process
  ExportRows rows_;
  ExportSink& sink_;
  std::map<uint32_t, std::pair<bool, uint64_t>> first_;  // per process: its first record
  std::map<uint32_t, uint64_t> launches_at_first_;
  uint64_t launches_ = 0;
};

}  // namespace clprof::output::views
