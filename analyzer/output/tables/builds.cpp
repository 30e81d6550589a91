#include "output/tables/builds.hpp"

#include <algorithm>

#include "format.hpp"
#include "output/tables/common_columns.hpp"
#include "output/text_grid.hpp"

namespace clprof::output::tables {

namespace {

// The lines of a failed build's log shown under the table: at most kLogLines lines of at
// most kLogLineChars characters each, indented; the full log is in the `log` field.
constexpr size_t kLogLines = 12;
constexpr size_t kLogLineChars = 160;

void add_log_notes(const analyses::BuildRow& r, std::vector<std::string>& notes) {
  notes.push_back("Build log of program " + std::to_string(r.program_id) + " (pid " +
                  std::to_string(r.pid) + ", " + r.status + "):");
  size_t shown = 0, lines = 0, begin = 0;
  const std::string& log = *r.log;
  while (begin < log.size()) {
    size_t end = log.find('\n', begin);
    if (end == std::string::npos) end = log.size();
    if (end > begin) {  // blank lines are left out
      ++lines;
      if (shown < kLogLines) {
        size_t n = std::min(end - begin, kLogLineChars);
        while (n < end - begin && n > 0 &&
               (static_cast<unsigned char>(log[begin + n]) & 0xC0) == 0x80)
          --n;
        // The driver's text, with control characters (a terminal's escapes) made visible.
        std::string line = visible_text(std::string_view(log).substr(begin, n));
        if (n < end - begin) line += "...";
        notes.push_back("  " + line);
        ++shown;
      }
    }
    begin = end + 1;
  }
  if (lines == 0) notes.push_back("  (empty)");
  if (lines > shown)
    notes.push_back("  ... " + std::to_string(lines - shown) +
                    " more lines (the whole log: --format json, field log)");
}

}  // namespace

const Schema& builds_schema() {
  static const Schema s =
      schema(
          "builds", "one row per program build, compile or link call",
          {
              pid_column(),
              column("program", "Program", Type::Int, "",
                     "clprof's program id (clprof builds --source ID prints its source)")
                  .ascending(),
              column("api", "Call", Type::Text, "",
                     "clBuildProgram, clCompileProgram or clLinkProgram")
                  .wide(),
              column("origin", "Origin", Type::Text, "",
                     "how the program was made: source, binary, il, builtin, link")
                  .allow_null()
                  .wide(),
              column("source_hash", "Source hash", Type::Text, "",
                     "FNV-1a 64 of the source (or IL) bytes")
                  .allow_null()
                  .wide(),
              column("source_bytes", "Source", Type::Bytes, "bytes", "length of the source (or IL)")
                  .allow_null(),
              column("source_captured", "Captured", Type::Bool, "",
                     "the trace holds the source (recorded with CLPROF_CAPTURE_SOURCE=1)")
                  .wide(),
              column("options", "Options", Type::Text, "",
                     "build options as passed (\"\" for none)")
                  .shrink(Shorten::Middle, 12),
              column("devices", "Devices", Type::Text, "",
                     "names of the devices built for, comma-separated")
                  .wide()
                  .shrink(),
              column("start_ns", "Start", Type::Duration, "ns",
                     "when the call began, host clock from the run's start")
                  .allow_null()
                  .wide(),
              column("time_ns", "Time", Type::Duration, "ns", "host time in the call").allow_null(),
              column("rc", "Rc", Type::Int, "", "the call's return code").wide(),
              column("status", "Status", Type::Text, "",
                     "ok, or the error the call returned (CL_BUILD_PROGRAM_FAILURE, ...)"),
              column("kernels", "Kernels", Type::Text, "",
                     "kernels the program defines (when the build succeeded), space-separated")
                  .shrink(),
              column("kernel_count", "#K", Type::Int, "", "how many kernels it defines").wide(),
              column("log", "Log", Type::Text, "",
                     "CL_PROGRAM_BUILD_LOG of a failed build (devices' logs after \"== DEVICE ==\" "
                     "lines "
                     "when "
                     "several; each cut at 64 KiB); the table prints failed builds' logs under it, "
                     "trimmed")
                  .allow_null()
                  .wide()
                  .shrink(),
          })
          .ordered_by("process, then the call's start");
  return s;
}

Result builds_result(const std::vector<analyses::BuildRow>& rows) {
  Result out(builds_schema());
  int64_t total = 0;
  uint64_t failed = 0, without_log = 0;
  for (const auto& r : rows) {
    out.rows.push_back({Value::integer(r.pid), Value::uint(r.program_id), Value::text(r.api),
                        r.origin.empty() ? Value::null() : Value::text(r.origin),
                        r.source_hash.empty() ? Value::null() : Value::text(r.source_hash),
                        r.source_bytes ? Value::uint(*r.source_bytes) : Value::null(),
                        Value::boolean(r.source_captured), Value::text(r.options),
                        Value::text(joined(r.devices, ", ")), Value::integer(r.start_ns),
                        Value::integer(r.time_ns), Value::integer(r.rc), Value::text(r.status),
                        Value::text(joined(r.kernels, " ")), Value::uint(r.kernels.size()),
                        r.log ? Value::text(*r.log) : Value::null()});
    total += r.time_ns.value_or(0);
    failed += r.rc != 0 ? 1 : 0;
    without_log += r.rc != 0 && !r.log ? 1 : 0;
  }
  out.notes.push_back(std::to_string(rows.size()) + (rows.size() == 1 ? " build" : " builds") +
                      ", " + format_ns(total) + " of host time" +
                      (failed ? ", " + std::to_string(failed) + " failed" : "") + ".");
  for (const auto& r : rows)
    if (r.log) add_log_notes(r, out.notes);
  if (without_log)
    out.notes.push_back(std::to_string(without_log) + " failed " +
                        (without_log == 1 ? "build has" : "builds have") +
                        " no log in the trace (see docs/cli.md \"clprof builds\").");
  return out;
}

}  // namespace clprof::output::tables
