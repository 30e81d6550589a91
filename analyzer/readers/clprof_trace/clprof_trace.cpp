// The Reader of clprof traces (ClprofTraceReader): the whole content in memory, in the
// shim's one-record-per-line layout or, more slowly, any other formatting of the same
// JSON document (parsed whole). The streaming path is in clprof_trace_stream.cpp.
#include "readers/clprof_trace/clprof_trace.hpp"

#include <algorithm>
#include <utility>

#include <simdjson.h>

#include "readers/clprof_trace/lines.hpp"
#include "readers/clprof_trace/meta.hpp"
#include "readers/clprof_trace/records.hpp"

namespace clprof::readers {
namespace {

using namespace detail;

// (line, column), both 1-based, of byte `pos` of `content`.
std::pair<size_t, size_t> locate(std::string_view content, uint64_t pos) {
  pos = std::min<uint64_t>(pos, content.size());
  size_t line = 1 + static_cast<size_t>(std::count(content.begin(), content.begin() + pos, '\n'));
  size_t line_start = content.rfind('\n', pos == 0 ? std::string_view::npos : pos - 1);
  if (pos == 0) line_start = std::string_view::npos;
  size_t column = line_start == std::string_view::npos ? pos + 1 : pos - line_start;
  return {line, column};
}

// The in-memory read; throws PositionedError.
void read_content(const std::string& path, std::string_view content, model::Run& run,
                  Diagnostics& diagnostics) {
  if (trim(content).empty()) throw PositionedError{0, kEmptyMessage};
  size_t nl = content.find('\n');
  std::string_view first = content.substr(0, nl);
  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  TraceBuilder builder(run, process);

  if (!is_line_mode_header(first)) {
    // Re-formatted document: parse it whole, each record through the same record parser.
    simdjson::padded_string doc(content);
    TraceParser top(process);
    TraceParser records(process);
    MetaBatch batch;
    records.set_meta(&batch);
    records.set_device_map(&builder.devices);
    uint64_t count = 0;
    try {
      top.parse_top(doc.data(), doc.size(), run.processes[process], [&](std::string_view raw) {
        const char* text = raw.data();
        bool closing;
        RecordKind kind;
        try {
          kind = records.parse_record(text, raw.size(), 0, &closing);
        } catch (RecordError& e) {
          throw PositionedError{
              static_cast<uint64_t>(raw.data() - doc.data()) + error_offset(e, text, raw.size()),
              e.message};
        }
        ++count;
        builder.apply(batch);
        if (kind == RecordKind::Launch) {
          if (records.pending_device())
            builder.launch_fixups.emplace_back(run.launches.size(), records.pending_device());
          run.launches.push_back(records.launch);
        } else if (kind == RecordKind::Transfer) {
          if (records.pending_device())
            builder.transfer_fixups.emplace_back(run.transfers.size(), records.pending_device());
          run.transfers.push_back(records.transfer);
        }
      });
    } catch (RecordError& e) {
      throw PositionedError{error_offset(e, doc.data(), doc.size()), e.message};
    }
    builder.finish();
    warn_if_truncated(path, builder, count, diagnostics);
    return;
  }

  parse_header_line(first, run, process);
  SequentialLines lines(builder);
  // No newline after the header: cut right after it; the loop below reads nothing.
  size_t pos = nl == std::string_view::npos ? content.size() : nl + 1;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    bool terminated = end != std::string_view::npos;
    if (!terminated) end = content.size();
    LineOutcome outcome = lines.process(
        content.substr(pos, end - pos), pos, terminated, content.size() - end,
        [&](RecordKind kind, TraceParser& p) {
          if (kind == RecordKind::Launch) {
            if (p.pending_device())
              builder.launch_fixups.emplace_back(run.launches.size(), p.pending_device());
            run.launches.push_back(p.launch);
          } else {
            if (p.pending_device())
              builder.transfer_fixups.emplace_back(run.transfers.size(), p.pending_device());
            run.transfers.push_back(p.transfer);
          }
        });
    if (outcome == LineOutcome::Cut) break;
    pos = end + 1;
  }
  builder.finish();
  warn_if_truncated(path, builder, lines.records(), diagnostics);
}

}  // namespace

std::string_view ClprofTraceReader::description() const {
  return "clprof trace (libclprof.so, one JSON record per line)";
}

bool ClprofTraceReader::sniff(std::string_view head) const {
  std::string_view t = head;
  if (t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);
  while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
  if (t.empty() || t.front() != '{') return false;
  return t.find("\"clprof-trace\"") != std::string_view::npos;
}

void ClprofTraceReader::read(const std::string& path, std::string_view content, model::Run& run,
                             Diagnostics& diagnostics) const {
  try {
    read_content(path, content, run, diagnostics);
  } catch (PositionedError& e) {
    auto [line, column] = locate(content, e.position);
    throw InputError(path, line, column, e.message);
  }
}

const Reader& clprof_trace_reader() {
  static const ClprofTraceReader reader;
  return reader;
}

}  // namespace clprof::readers
