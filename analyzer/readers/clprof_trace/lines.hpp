// Internal to the clprof trace reader (analyzer/readers/clprof_trace*.cpp): the shim's
// one-record-per-line layout, shared by the in-memory Reader (clprof_trace.cpp) and the
// streaming path (clprof_trace_stream.cpp): the header line, the record lines read in
// file order, and the end-of-trace bookkeeping.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model.hpp"
#include "readers/clprof_trace/meta.hpp"
#include "readers/clprof_trace/records.hpp"
#include "readers/reader.hpp"

namespace clprof::readers::detail {

// The message for an empty (or all-whitespace) file.
inline constexpr char kEmptyMessage[] = "empty file: expected a clprof trace";

// True if the first line has the shim's shape: the document opened up to "records":[.
bool is_line_mode_header(std::string_view first_line);

// Parses the first line of a line-mode trace (without its newline; "]}" is appended to
// close the document) into `run.processes[process]` (format, version, header).
// Throws PositionedError (positions relative to the start of the file).
void parse_header_line(std::string_view first_line, model::Run& run, uint32_t process);

// Appends the Process read from `path` to `run` (source, format) and returns it; the
// reference is valid until the next change of run.processes.
model::Process& new_process(model::Run& run, const std::string& path);

// Marks the builder's process truncated if no end record was read, with a warning
// counting `records` (all records read from the file).
void warn_if_truncated(const std::string& path, TraceBuilder& b, uint64_t records,
                       Diagnostics& diagnostics);

// One line of the record section, as the shim writes it: `{record},`, the last record
// followed by `]}`, or `]}` alone.
enum class LineOutcome { Blank, Record, Closing, Cut };

// Sequential reading of record lines: metadata applied at once, bulk records handed to
// `on_bulk`. Used for the in-memory path and the streaming prefix. One thread; references
// the builder (and through it the Run), which must outlive it.
class SequentialLines {
 public:
  explicit SequentialLines(TraceBuilder& b) : builder_(b), parser_(b.process) {
    parser_.set_meta(&batch_);
    parser_.set_device_map(&b.devices);
  }

  // `offset` is the line's absolute byte position, `terminated` false for a last line
  // without "\n", `readable_after` how many bytes after the line may be read. A launch or
  // transfer goes to `on_bulk(RecordKind, TraceParser&)` (the record in the parser's
  // launch / transfer, valid during the call). Throws PositionedError.
  template <class OnBulk>
  LineOutcome process(std::string_view line, uint64_t offset, bool terminated,
                      size_t readable_after, OnBulk&& on_bulk) {
    std::string_view t = trim(line);
    if (t.empty()) return LineOutcome::Blank;
    uint64_t t_offset = offset + static_cast<uint64_t>(t.data() - line.data());
    if (closed_) throw PositionedError{t_offset, "unexpected content after the end of the trace"};
    if (t == "]}") {
      closed_ = true;
      return LineOutcome::Closing;
    }
    bool comma = t.back() == ',';
    if (comma) t.remove_suffix(1);
    const char* text = t.data();
    readable_after += static_cast<size_t>(line.data() + line.size() - (t.data() + t.size()));
    bool closing = false;
    RecordKind kind;
    try {
      kind = parser_.parse_record(text, t.size(), readable_after, &closing);
    } catch (RecordError& e) {
      // A last line without newline that does not parse is where the writer was cut off.
      if (!terminated) return LineOutcome::Cut;
      throw PositionedError{t_offset + error_offset(e, text, t.size()), std::move(e.message)};
    }
    if (closing && comma)
      throw PositionedError{t_offset + t.size(), "expected a newline after the end of the records"};
    if (closing) closed_ = true;
    ++records_;
    if (is_bulk(kind))
      on_bulk(kind, parser_);
    else
      builder_.apply(batch_);
    return closing ? LineOutcome::Closing : LineOutcome::Record;
  }

  // Records read so far (metadata and bulk).
  uint64_t records() const { return records_; }
  // True once "]}" (the end of the trace) was read.
  bool closed() const { return closed_; }

 private:
  TraceBuilder& builder_;
  MetaBatch batch_;
  TraceParser parser_;
  uint64_t records_ = 0;
  bool closed_ = false;
};

}  // namespace clprof::readers::detail
