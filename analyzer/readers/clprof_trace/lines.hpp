// Internal to the clprof trace reader (analyzer/readers/clprof_trace/): the shim's
// one-record-per-line layout, shared by the in-memory Reader (clprof_trace.cpp) and the
// streaming path (stream.cpp): the header line, record lines read in file order with
// every check (schema, order, the end of the trace), and the end-of-trace bookkeeping.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model.hpp"
#include "readers/clprof_trace/checks.hpp"
#include "readers/clprof_trace/meta.hpp"
#include "readers/clprof_trace/problems.hpp"
#include "readers/clprof_trace/records.hpp"
#include "readers/reader.hpp"

namespace clprof::readers::detail {

// The message for an empty (or all-whitespace) file.
inline constexpr char kEmptyMessage[] = "empty file: expected a clprof trace";
inline constexpr char kAfterEndMessage[] = "unexpected content after the end of the trace";

// True if the first line has the shim's shape: the document opened up to "records":[.
bool is_line_mode_header(std::string_view first_line);

// Parses the first line of a line-mode trace (without its newline; "]}" is appended to
// close the document) into `run.processes[process]` (format, version, header).
// Throws PositionedError (positions relative to the start of the file).
void parse_header_line(std::string_view first_line, model::Run& run, uint32_t process);

// Appends the Process read from `path` to `run` (source, format) and returns it; the
// reference is valid until the next change of run.processes.
model::Process& new_process(model::Run& run, const std::string& path);

// Adds the launch or transfer `parser` holds to `brackets` (by its Device::id; a command
// of an unknown device, or without host enqueue and device queued times, adds nothing).
void note_clock_bracket(ClockBrackets& brackets, RecordType type, const TraceParser& parser);

// Marks the builder's process truncated if no end record was read, with a warning
// counting `records` (all records read from the file). A truncated trace's devices without a
// clock_sync get the estimate of b.clock_brackets (model::estimate_clock: the views that use
// it warn).
void warn_if_truncated(const std::string& path, TraceBuilder& b, uint64_t records,
                       Diagnostics& diagnostics);

// One line of the record section, as the shim writes it: `{record},`, the last record
// followed by `]}`, or `]}` alone.
enum class LineOutcome {
  Blank,    // nothing (or, for a reading thread, content after the end of the trace)
  Record,   // a record, kept
  Skipped,  // a record that fails the schema or the order checks, counted in problems
  Closing,  // the end of the trace ("]}"), after a record or alone
  Cut,      // the last line, cut short (a killed process): not a record
  Bulk,     // stop_at_bulk: the line holds a launch or transfer, not taken
};

// Reads the record lines of one file in file order (all of them, or one thread's share):
// each record is parsed and checked against the schema, then against the order checks;
// metadata goes to the MetaBatch, launches and transfers to the caller. One thread.
class LineProcessor {
 public:
  // `strict`: content after the end of the trace is an error at once (reading the whole
  // file in order); else it is noted (after_closing_offset) for the caller to judge.
  LineProcessor(uint32_t process, const std::unordered_map<uint64_t, uint32_t>* devices,
                bool fast_path, bool strict);

  // `line` (without its "\n") starts at absolute offset `offset`; `terminated` is false
  // for a last line without "\n", `readable_after` how many bytes after the line may be
  // read. A kept launch or transfer goes to `on_bulk(RecordType, TraceParser&)` (the
  // record in the parser's launch / transfer, valid during the call); with
  // `stop_at_bulk` it is not taken (LineOutcome::Bulk, nothing counted). Throws
  // PositionedError for what makes the file unreadable (invalid JSON, content after the
  // end in strict mode).
  template <class OnBulk>
  LineOutcome process(std::string_view line, uint64_t offset, bool terminated,
                      size_t readable_after, OnBulk&& on_bulk, bool stop_at_bulk = false) {
    Parsed p = parse_line(line, offset, terminated, readable_after, stop_at_bulk);
    if (p.kept_bulk) on_bulk(p.type, parser_);
    if (p.after_closing != Problems::kNone) after_closing(p.after_closing);
    return p.outcome;
  }

  // A record that is not on a line of its own (in a re-formatted document): rec is its
  // object's text at absolute offset `offset`, followed by `readable_after` bytes.
  template <class OnBulk>
  LineOutcome record(std::string_view rec, uint64_t offset, size_t readable_after,
                     OnBulk&& on_bulk) {
    Parsed p = take_record(rec, offset, /*terminated=*/true, readable_after, false);
    if (p.kept_bulk) on_bulk(p.type, parser_);
    return p.outcome;
  }

  // Folds ranges (LoadOptions::fold_ranges): a range whose begin and end this processor
  // reads both leaves the batch and goes to folded() as its name and parent, the batch
  // keeping only the ranges still open at its end and the ends of earlier ones (memory: the
  // open ranges plus 8 bytes a folded range). `keep_top_level`: top-level ranges stay whole.
  void fold_ranges(bool keep_top_level) {
    fold_ = true;
    keep_top_level_ = keep_top_level;
  }
  model::FoldedRanges::Part& folded() { return folded_; }

  MetaBatch& batch() { return batch_; }
  OrderChecks checks;
  Problems problems;
  uint64_t records = 0;                             // records kept
  uint64_t first_line_offset = Problems::kNone;     // of the first line with content
  uint64_t closing_offset = Problems::kNone;        // of the "]}" that ends the trace
  uint64_t after_closing_offset = Problems::kNone;  // of the first content after it
  uint64_t last_record_offset = 0;
  bool closed() const { return closing_offset != Problems::kNone; }

 private:
  struct Parsed {
    LineOutcome outcome;
    RecordType type = RecordType::End;
    bool kept_bulk = false;                    // a launch or transfer to hand on
    uint64_t after_closing = Problems::kNone;  // content after "]}" on the same line
  };
  Parsed parse_line(std::string_view line, uint64_t offset, bool terminated, size_t readable_after,
                    bool stop_at_bulk);
  Parsed take_record(std::string_view rec, uint64_t offset, bool terminated, size_t readable_after,
                     bool stop_at_bulk);
  // Notes content after the end of the trace at `offset` (and throws if strict).
  void after_closing(uint64_t offset);
  // After a kept range_begin / range_end at `offset`, with folding on.
  void fold(RecordType type, uint64_t offset);

  MetaBatch batch_;
  TraceParser parser_;
  bool strict_;
  bool fold_ = false, keep_top_level_ = true;
  std::unordered_map<uint64_t, size_t> open_;  // foldable open range: Run id -> order index
  size_t folded_entries_ = 0;                  // in batch_.order, not yet removed
  model::FoldedRanges::Part folded_;
};

// The in-memory and prefix reader: a LineProcessor whose metadata is applied to the Run
// at once. References the builder (and through it the Run), which must outlive it.
class SequentialLines {
 public:
  SequentialLines(TraceBuilder& b, bool fast_path)
      : builder_(b), lines_(b.process, &b.devices, fast_path, /*strict=*/true) {}

  template <class OnBulk>
  LineOutcome process(std::string_view line, uint64_t offset, bool terminated,
                      size_t readable_after, OnBulk&& on_bulk, bool stop_at_bulk = false) {
    LineOutcome o = lines_.process(line, offset, terminated, readable_after, on_bulk, stop_at_bulk);
    if (!lines_.batch().order.empty()) builder_.apply(lines_.batch());
    return o;
  }
  // A record of a re-formatted document (LineProcessor::record), applied at once.
  template <class OnBulk>
  LineOutcome record(std::string_view rec, uint64_t offset, size_t readable_after,
                     OnBulk&& on_bulk) {
    LineOutcome o = lines_.record(rec, offset, readable_after, on_bulk);
    if (!lines_.batch().order.empty()) builder_.apply(lines_.batch());
    return o;
  }
  LineProcessor& lines() { return lines_; }

 private:
  TraceBuilder& builder_;
  LineProcessor lines_;
};

}  // namespace clprof::readers::detail
