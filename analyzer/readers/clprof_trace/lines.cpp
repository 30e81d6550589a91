// The one-record-per-line layout of clprof traces: the parts shared by the in-memory and
// the streaming readers (see clprof_trace_lines.hpp).
#include "readers/clprof_trace/lines.hpp"

#include "clprof/trace_schema.hpp"

namespace clprof::readers::detail {

namespace tf = clprof::trace;

bool is_line_mode_header(std::string_view first_line) {
  std::string_view t = trim(first_line);
  return t.size() >= 2 && t.front() == '{' && t.back() == '[';
}

void parse_header_line(std::string_view first_line, model::Run& run, uint32_t process) {
  PaddedText buf;
  const char* text = buf.append_and_assign(first_line, "]}");
  TraceParser top(process);
  try {
    top.parse_top(text, first_line.size() + 2, run.processes[process], [](std::string_view) {});
  } catch (RecordError& e) {
    throw PositionedError{error_offset(e, text, first_line.size()), e.message};
  }
}

model::Process& new_process(model::Run& run, const std::string& path) {
  model::Process& p = run.processes.emplace_back();
  p.source = path;
  p.source_format = std::string(tf::kFormatName);
  return p;
}

void warn_if_truncated(const std::string& path, TraceBuilder& b, uint64_t records,
                       Diagnostics& diagnostics) {
  model::Process& p = b.proc();
  p.truncated = !b.end_seen;
  if (p.truncated)
    diagnostics.warnings.push_back(path + ": trace is truncated (killed?): read " +
                                   std::to_string(records) + " records");
}

}  // namespace clprof::readers::detail
