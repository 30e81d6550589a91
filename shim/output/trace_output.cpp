#include "output/trace_output.hpp"

#include <cstring>
#include <utility>
#include <vector>

#include "base/log.hpp"
#include "clprof/trace_schema.hpp"

namespace clprof::shim {

namespace tf = clprof::trace;

void TraceOutput::restart_flush_timer(std::int64_t now_ns) {
  last_flush_ns_ = now_ns;
  writes_seen_ = writer_.writes();
}

void TraceOutput::flush_if_due(std::int64_t now_ns, std::int64_t every_ns) {
  if (writer_.writes() != writes_seen_) {
    writes_seen_ = writer_.writes();
    last_flush_ns_ = now_ns;
  } else if (writer_.buffered_bytes() > 0 && now_ns - last_flush_ns_ >= every_ns) {
    writer_.flush();
    writes_seen_ = writer_.writes();
    last_flush_ns_ = now_ns;
  }
}

bool TraceOutput::flush_if_older(std::int64_t now_ns, std::int64_t gap_ns) {
  if (writer_.buffered_bytes() == 0) return true;
  if (writer_.writes() != writes_seen_) {  // written during the caller's round
    writes_seen_ = writer_.writes();
    last_flush_ns_ = now_ns;
  }
  if (now_ns - last_flush_ns_ < gap_ns) return false;
  writer_.flush();
  writes_seen_ = writer_.writes();
  last_flush_ns_ = now_ns;
  return true;
}

void TraceOutput::warn_if_lost() {
  if (lost_warned_) return;
  if (writer_.lost()) {
    lost_warned_ = true;
    log_message(LogLevel::Warn,
                "the program closed the trace file's descriptor (or opened another file in its "
                "place); the trace stops there, nothing is written to that descriptor");
  } else if (writer_.write_error() != 0) {
    lost_warned_ = true;
    log_message(LogLevel::Warn,
                "cannot write the trace file (%s); the trace stops at its last whole record, "
                "the program runs on",
                std::strerror(writer_.write_error()));
  }
}

void TraceOutput::finish(std::int64_t end_ns, std::uint64_t incomplete) {
  std::vector<std::pair<std::string, std::uint64_t>> counts;
  counts.emplace_back(std::string(tf::launch::kTypeName), op_counts_[0]);
  counts.emplace_back(std::string(tf::transfer::kTypeName), op_counts_[1]);
  counts.emplace_back(std::string(tf::sync::kTypeName), op_counts_[2]);
  for (int k = 0; k < static_cast<int>(LineKind::Count); ++k) {
    // Captures are rare and new: their count is written only when there are some.
    if (static_cast<LineKind>(k) == LineKind::Capture && line_counts_[k] == 0) continue;
    counts.emplace_back(std::string(line_kind_name(static_cast<LineKind>(k))), line_counts_[k]);
  }
  writer_.finish(format_end_record(end_ns, counts, incomplete, 0));
  warn_if_lost();
}

}  // namespace clprof::shim
