// The trace file as the harvester fills it: record lines in the order it finishes them,
// the counts the end record gives, flushes on a timer when records come slowly, and the
// end record. Formatting is record_format's; the file and its writes are TraceWriter's.
//
// Threads: one owner at a time: the start-up opens it, the harvester writes, the
// finaliser ends it (never two at once: the harvester has stopped by then).
// Ownership: owns the writer and the formatter's text cache; a line handed to
// write_line is copied into the writer's buffer.
// Clocks: the flush timer runs on absolute CLOCK_MONOTONIC ns the caller passes in;
// the end record's time is trace ns.
// No OpenCL: unit-tested.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "output/record_format.hpp"
#include "output/trace_writer.hpp"
#include "recording/record.hpp"

namespace clprof::shim {

class TraceOutput {
 public:
  // Creates `path` and writes the header line; false with `error` set when it cannot.
  bool open(const std::string& path, std::string_view header_line, std::string& error) {
    return writer_.open(path, header_line, error);
  }

  // A launch, transfer or sync record, formatted straight into the writer's buffer (no
  // intermediate string, no allocation).
  void write_op(const OpRecord& r) {
    writer_.end_record(
        format_op(r, writer_.begin_record(op_chars_bound(r, &text_cache_)), &text_cache_));
    ++op_counts_[r.kind == RecordKind::Launch ? 0 : r.kind == RecordKind::Transfer ? 1 : 2];
  }
  // A record object made elsewhere (objects, builds, markers, clock_sync, range ends).
  void write_line(LineKind kind, std::string_view json) {
    writer_.append(json);
    ++line_counts_[static_cast<int>(kind)];
  }

  // The flush timer: the writer writes by itself as its buffer fills; when records come
  // slowly, what waits is written once `every_ns` passed since the last write.
  // restart_flush_timer at the harvester's start, flush_if_due after each of its rounds.
  void restart_flush_timer(std::int64_t now_ns);
  void flush_if_due(std::int64_t now_ns, std::int64_t every_ns);
  // Writes what waits unless the file was written less than `gap_ns` ago. True when
  // nothing waits any more (written now, or nothing to write); false: ask again later.
  bool flush_if_older(std::int64_t now_ns, std::int64_t gap_ns);
  // Whether the trace is written compressed (a ".zst" path with libzstd at hand).
  bool compressed() const { return writer_.compressed(); }
  // Writes what waits, now (an abrupt ending: runtime/lifecycle.hpp).
  void flush() { writer_.flush(); }

  // The app closed the trace's descriptor (or put another file there), or a write failed
  // (a full disk, the file size limit): says so once. Records are dropped from then on;
  // the harvester goes on releasing events.
  void warn_if_lost();

  // Writes the end record (the counts by kind and `incomplete`, at `end_ns` trace ns, the
  // app's live objects when `live` is given), "]}", and closes the file.
  void finish(std::int64_t end_ns, std::uint64_t incomplete, const LiveFacts* live = nullptr);

 private:
  TraceWriter writer_;
  LaunchTextCache text_cache_;
  std::uint64_t op_counts_[3] = {};  // launch, transfer, sync
  std::uint64_t line_counts_[static_cast<int>(LineKind::Count)] = {};
  std::int64_t last_flush_ns_ = 0;
  std::uint64_t writes_seen_ = 0;
  bool lost_warned_ = false;
};

}  // namespace clprof::shim
