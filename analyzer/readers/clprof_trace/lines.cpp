// The one-record-per-line layout of clprof traces: the parts shared by the in-memory and
// the streaming readers (see lines.hpp).
#include "readers/clprof_trace/lines.hpp"

#include "clock_alignment.hpp"
#include "clprof/trace_schema.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;

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
  p.source_format = std::string(ts::kFormatName);
  return p;
}

void warn_if_truncated(const std::string& path, TraceBuilder& b, uint64_t records,
                       Diagnostics& diagnostics) {
  model::Process& p = b.proc();
  p.truncated = !b.end_seen;
  if (!p.truncated) return;
  diagnostics.warnings.push_back(path + ": trace is truncated (killed?): read " +
                                 std::to_string(records) + " records");
  for (const auto& [local, id] : b.devices) {
    auto it = b.clock_brackets.find(id);
    if (it != b.clock_brackets.end()) model::estimate_clock(b.run.devices[id - 1], it->second);
  }
}

void note_clock_bracket(ClockBrackets& brackets, RecordType type, const TraceParser& parser) {
  const bool launch = type == RecordType::Launch;
  const uint32_t device = launch ? parser.launch.device : parser.transfer.device;
  const int64_t begin = launch ? parser.launch.host_begin_ns : parser.transfer.host_begin_ns;
  const int64_t end = launch ? parser.launch.host_end_ns : parser.transfer.host_end_ns;
  const int64_t queued = launch ? parser.launch.queued_ns : parser.transfer.queued_ns;
  if (device == 0 || begin == model::kNoTime || end == model::kNoTime || queued == model::kNoTime ||
      queued < 0)
    return;
  brackets[device].add(begin, end, static_cast<uint64_t>(queued));
}

LineProcessor::LineProcessor(uint32_t process,
                             const std::unordered_map<uint64_t, uint32_t>* devices, bool fast_path,
                             bool strict)
    : parser_(process), strict_(strict) {
  parser_.set_meta(&batch_);
  parser_.set_device_map(devices);
  parser_.set_fast_path(fast_path);
}

void LineProcessor::after_closing(uint64_t offset) {
  if (after_closing_offset == Problems::kNone) after_closing_offset = offset;
  if (strict_) throw PositionedError{offset, kAfterEndMessage};
}

LineProcessor::Parsed LineProcessor::parse_line(std::string_view line, uint64_t offset,
                                                bool terminated, size_t readable_after,
                                                bool stop_at_bulk) {
  const std::string_view t = trim(line);
  if (t.empty()) return {LineOutcome::Blank};
  const uint64_t t_offset = offset + static_cast<uint64_t>(t.data() - line.data());
  auto at = [&](const char* p) { return t_offset + static_cast<uint64_t>(p - t.data()); };
  if (first_line_offset == Problems::kNone) first_line_offset = t_offset;
  if (closed()) {
    after_closing(t_offset);
    return {LineOutcome::Blank};
  }
  if (t == "]}") {
    closing_offset = t_offset;
    return {LineOutcome::Closing};
  }
  // The record: the line without its "," (more records follow), or the last record, then
  // "]}" (the end of the trace).
  std::string_view rec = t;
  const char* closing = nullptr;
  uint64_t after_end = Problems::kNone;  // noted once the record itself was read
  if (rec.back() == ',') {
    rec.remove_suffix(1);
  } else {
    const size_t end = json_value_end(rec.data(), rec.size());
    if (end < rec.size()) {
      const std::string_view rest = trim(rec.substr(end));
      rec = rec.substr(0, end);
      if (rest.substr(0, 2) != "]}") {
        if (!terminated) return {LineOutcome::Cut};
        throw PositionedError{at(rest.data()), "expected \",\" or \"]}\" after the record"};
      }
      closing = rest.data();
      const std::string_view after = trim(rest.substr(2));
      if (!after.empty()) after_end = at(after.data());
    }
  }
  readable_after += static_cast<size_t>(line.data() + line.size() - (rec.data() + rec.size()));
  Parsed p = take_record(rec, at(rec.data()), terminated, readable_after, stop_at_bulk);
  if (p.outcome == LineOutcome::Cut || p.outcome == LineOutcome::Bulk) return p;
  if (closing) {
    closing_offset = at(closing);
    if (p.outcome == LineOutcome::Record) p.outcome = LineOutcome::Closing;
  }
  p.after_closing = after_end;
  return p;
}

void LineProcessor::fold(RecordType type, uint64_t offset) {
  constexpr uint64_t kLocal = (uint64_t{1} << kRangeIdBits) - 1;
  MetaBatch::Entry& entry = batch_.order.back();
  if (type == RecordType::RangeBegin) {
    if (entry.blas) return;
    const model::Range& r = batch_.range_begins[entry.index];
    if (keep_top_level_ && r.parent == 0) return;
    if (open_.count(r.id)) {
      // As TraceBuilder::apply would: the range of that id stays the open one.
      const uint64_t id = r.id;
      batch_.drop_last();
      problems.skipped.add(offset, range_open_already(id));
      return;
    }
    open_[r.id] = batch_.order.size() - 1;
    return;
  }
  const RangeEndRecord& e = batch_.range_ends[entry.index];
  auto it = open_.find(e.id);
  if (it == open_.end()) return;  // of a range begun before this share, or of none: in order
  MetaBatch::Entry& begin = batch_.order[it->second];
  model::Range& r = batch_.range_begins[begin.index];
  folded_.add(r.id & kLocal, r.parent & kLocal, r.name, r.host_begin_ns, e.end_ns);
  std::string().swap(r.name);
  begin.folded = entry.folded = true;
  open_.erase(it);
  folded_entries_ += 2;
  if (folded_entries_ >= 8192 && 2 * folded_entries_ >= batch_.order.size()) {
    // Amortised: the batch shrinks to what is left open (and the other records).
    std::unordered_map<uint64_t, size_t> moved;
    moved.reserve(open_.size());
    for (const auto& [id, at] : open_) moved[at] = 0;
    batch_.remove_folded([&](size_t from, size_t to) {
      auto m = moved.find(from);
      if (m != moved.end()) m->second = to;
    });
    for (auto& [id, at] : open_) at = moved[at];
    folded_entries_ = 0;
  }
}

LineProcessor::Parsed LineProcessor::take_record(std::string_view rec, uint64_t offset,
                                                 bool terminated, size_t readable_after,
                                                 bool stop_at_bulk) {
  RecordType type;
  try {
    type = parser_.parse_record(rec.data(), rec.size(), readable_after);
  } catch (RecordError& e) {
    const uint64_t where = offset + error_offset(e, rec.data(), rec.size());
    if (e.schema) {
      problems.skipped.add(where, std::move(e.message));
      return {LineOutcome::Skipped};
    }
    // A last line without newline that does not parse is where the writer was cut off.
    if (!terminated) return {LineOutcome::Cut};
    const size_t end = json_value_end(rec.data(), rec.size());
    if (end < rec.size()) {  // a record, then something else
      const std::string_view rest = trim(rec.substr(end));
      const uint64_t rest_at = offset + static_cast<uint64_t>(rest.data() - rec.data());
      if (rest.substr(0, 2) == "]}")
        throw PositionedError{rest_at + 2, "expected a newline after the end of the records"};
      throw PositionedError{rest_at, "expected \",\" or \"]}\" after the record"};
    }
    throw PositionedError{where, std::move(e.message)};
  }
  if (stop_at_bulk && is_bulk(type)) return {LineOutcome::Bulk, type};
  std::string why = checks.check(type, parser_.seq());
  if (!why.empty()) {
    if (!is_bulk(type)) batch_.drop_last();
    problems.skipped.add(offset, std::move(why));
    return {LineOutcome::Skipped, type};
  }
  if (!is_bulk(type)) batch_.set_last_offset(offset);
  ++records;
  last_record_offset = offset;
  if (fold_ && (type == RecordType::RangeBegin || type == RecordType::RangeEnd)) {
    fold(type, offset);
    return {LineOutcome::Record, type};
  }
  if (is_bulk(type)) {
    // A command whose device end precedes its start: kept, untimed, counted.
    const bool launch = type == RecordType::Launch;
    const int64_t start = launch ? parser_.launch.start_ns : parser_.transfer.start_ns;
    const int64_t end = launch ? parser_.launch.end_ns : parser_.transfer.end_ns;
    if (start != model::kNoTime && end != model::kNoTime && end < start)
      problems.untimed.add(offset,
                           std::string(ts::name(type)) + " seq " + std::to_string(parser_.seq()) +
                               (launch ? " (kernel \"" + printable(parser_.launch.name, 64) + "\")"
                                       : std::string()) +
                               ": start " + std::to_string(start) + ", end " + std::to_string(end));
  }
  return {LineOutcome::Record, type, is_bulk(type)};
}

}  // namespace clprof::readers::detail
