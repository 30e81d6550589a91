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

// Appends a launch or transfer the parser holds to the Run (its device mapped later if
// the device record has not come yet).
void keep_bulk(RecordType type, TraceParser& p, TraceBuilder& builder, model::Run& run) {
  if (type == RecordType::Launch) {
    if (p.pending_device())
      builder.launch_fixups.emplace_back(run.launches.size(), p.pending_device());
    run.launches.push_back(p.launch);
  } else {
    if (p.pending_device())
      builder.transfer_fixups.emplace_back(run.transfers.size(), p.pending_device());
    run.transfers.push_back(p.transfer);
  }
}

// The in-memory read; throws PositionedError. Problems found go to `problems`.
void read_content(const std::string& path, std::string_view content, model::Run& run,
                  Diagnostics& diagnostics, Problems& problems, bool fast_path) {
  if (trim(content).empty()) throw PositionedError{0, kEmptyMessage};
  size_t nl = content.find('\n');
  std::string_view first = content.substr(0, nl);
  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  TraceBuilder builder(run, process, problems);
  SequentialLines lines(builder, fast_path);
  auto on_bulk = [&](RecordType type, TraceParser& p) {
    note_clock_bracket(builder.clock_brackets, type, p);
    keep_bulk(type, p, builder, run);
  };

  if (!is_line_mode_header(first)) {
    // Re-formatted document: parse it whole, each record through the same record checks.
    simdjson::padded_string doc(content);
    TraceParser top(process);
    try {
      top.parse_top(doc.data(), doc.size(), run.processes[process], [&](std::string_view raw) {
        const auto offset = static_cast<uint64_t>(raw.data() - doc.data());
        lines.record(raw, offset, doc.size() - offset - raw.size() + kPadding, on_bulk);
      });
    } catch (RecordError& e) {
      throw PositionedError{error_offset(e, doc.data(), doc.size()), e.message};
    }
  } else {
    parse_header_line(first, run, process);
    // No newline after the header: cut right after it; the loop below reads nothing.
    size_t pos = nl == std::string_view::npos ? content.size() : nl + 1;
    while (pos < content.size()) {
      size_t end = content.find('\n', pos);
      bool terminated = end != std::string_view::npos;
      if (!terminated) end = content.size();
      LineOutcome outcome = lines.process(content.substr(pos, end - pos), pos, terminated,
                                          content.size() - end, on_bulk);
      if (outcome == LineOutcome::Cut) break;
      pos = end + 1;
    }
  }
  builder.finish();
  problems.merge(std::move(lines.lines().problems));
  warn_if_truncated(path, builder, lines.lines().records, diagnostics);
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
  detail::read_clprof_trace(path, content, run, diagnostics, true);
}

void detail::read_clprof_trace(const std::string& path, std::string_view content, model::Run& run,
                               Diagnostics& diagnostics, bool fast_path) {
  Problems problems;
  try {
    read_content(path, content, run, diagnostics, problems, fast_path);
  } catch (PositionedError& e) {
    auto [line, column] = locate(content, e.position);
    throw InputError(path, line, column, e.message);
  }
  problems.report(
      path, [&](uint64_t offset) { return locate(content, offset); }, diagnostics);
}

const Reader& clprof_trace_reader() {
  static const ClprofTraceReader reader;
  return reader;
}

}  // namespace clprof::readers
