// Turning records into the exact JSON text of docs/trace-format.md. Pure functions on
// plain data (RapidJSON Writer, no OpenCL, no I/O): the trace contract is unit-tested
// here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "record.hpp"

namespace clprof::shim {

// Appends the JSON object of a Launch, Transfer or Sync record to `out` (no trailing
// comma or newline). Threads: any; allocates only to grow `out`.
void format_op(const OpRecord& r, std::string& out);

// `s` as a JSON string literal, quotes included, escaped (kernel names are stored
// like this so the hot formatter can copy them verbatim).
std::string json_quote(std::string_view s);

// The trace name of a line kind ("device", "range_begin", ...).
std::string_view line_kind_name(LineKind k);

// Builder for one record object made on a cold path (objects, builds, markers).
// Keys are written in call order; strings are escaped. Not thread-safe (one owner).
class JsonLine {
 public:
  explicit JsonLine(std::string_view type);
  ~JsonLine();
  JsonLine(const JsonLine&) = delete;
  JsonLine& operator=(const JsonLine&) = delete;

  JsonLine& num(std::string_view key, std::int64_t v);
  JsonLine& unum(std::string_view key, std::uint64_t v);
  JsonLine& str(std::string_view key, std::string_view v);
  JsonLine& boolean(std::string_view key, bool v);
  JsonLine& null(std::string_view key);
  JsonLine& unums(std::string_view key, const std::vector<std::uint64_t>& v);
  JsonLine& nums(std::string_view key, const std::vector<std::int64_t>& v);
  JsonLine& strs(std::string_view key, const std::vector<std::string>& v);

  // The finished object text. The builder is unusable afterwards.
  std::string finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Facts for the first line of the file.
struct HeaderFacts {
  long pid = 0;
  long ppid = 0;
  std::vector<std::string> command_line;
  std::int64_t start_unix_ns = 0;  // unix clock
  std::int64_t host_start_ns = 0;  // host clock, absolute
  std::string host_name;
  std::string clprof_version;
  std::vector<std::pair<std::string, std::string>> settings;
};

// Line 1: {"format":"clprof-trace","version":1,"header":{...},"records":[ (no newline).
std::string format_header_line(const HeaderFacts& h);

// The "end" record object (no trailing text).
std::string format_end_record(std::int64_t host_ns,
                              const std::vector<std::pair<std::string, std::uint64_t>>& counts,
                              std::uint64_t incomplete, std::uint64_t dropped);

// CLPROF_OUTPUT expansion: every "%p" becomes `pid`. Without "%p", a process whose pid is
// not `root_pid` inserts ".<pid>" before the file name's extension (run.json ->
// run.<pid>.json; "run" -> "run.<pid>"). root_pid 0 counts as "this is the root".
std::string expand_output_path(std::string_view pattern, long pid, long root_pid);

// FNV-1a 64-bit, incremental: start with kFnvOffset, feed bytes.
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
std::uint64_t fnv1a64(std::uint64_t state, const void* data, std::size_t n);
// "fnv1a64:<16 lower-case hex digits>"
std::string source_hash_text(std::uint64_t hash);

}  // namespace clprof::shim
