// Turning records into the exact JSON text of docs/trace-format.md. Pure functions on
// plain data (RapidJSON Writer, no OpenCL, no I/O): the trace contract is unit-tested
// here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "recording/object_facts.hpp"
#include "recording/record.hpp"

namespace clprof::shim {

// Appends the JSON object of a Launch, Transfer or Sync record to `out` (no trailing
// comma or newline). Threads: any; allocates only to grow `out`.
void format_op(const OpRecord& r, std::string& out);

// The most characters format_op writes for one record without its strings: 32 scalar
// args of 64 bytes (~180 chars each) plus the fixed fields stay far below.
inline constexpr std::size_t kMaxOpChars = 16384;
// Text of the previous launch record kept for reuse (the harvester's, one owner): a
// launch of the same kernel with the same ids and sizes repeats the kernel..lws part,
// an argument equal to the previous launch's argument at that index repeats its text,
// and device and host times reuse the text of their leading digits (all but the last
// eight, the same for 100 ms at a time). The output is exactly that of format_op
// without a cache.
struct LaunchTextCache {
  struct Launch {
    bool valid = false;
    bool has_gwo = false, has_lws = false;
    std::uint8_t work_dim = 0;
    const char* kernel_name = nullptr;  // interned: same pointer, same text
    std::uint64_t ids[5] = {};          // kernel, program, queue, context, device
    std::uint64_t gwo[3] = {}, gws[3] = {}, lws[3] = {};
    std::uint16_t len = 0;
    char text[480];
  } launch;
  struct Arg {
    bool valid = false;
    std::uint8_t misses = 0;   // lookups missed in a row (up to 4)
    std::uint8_t skipped = 0;  // misses not saved, counted modulo 256
    ArgSnapshot key;
    std::uint16_t len = 0;
    char text[192];  // the longest argument text is ~175 characters
  } args[kMaxRecordedArgs];
  // The digits above the last eight of the previous device time and host time, as text
  // (value: the number they spell, ~0 = none yet).
  struct Prefix {
    std::uint64_t value = ~std::uint64_t{0};
    std::uint8_t len = 0;
    char text[24];
  } device_prefix, host_prefix;
  // The previous record's seq and tid as text: seq usually goes up by one (its text is
  // copied out, then incremented in both places) and tid is usually the same.
  struct Head {
    std::uint64_t seq = 0;  // 0: none yet
    std::uint8_t seq_len = 0;
    char seq_text[24];
    bool tid_valid = false;
    std::int32_t tid = 0;
    std::uint8_t tid_len = 0;
    char tid_text[16];
  } head;
};

// Room format_op needs for `r`: kMaxOpChars plus the kernel name and api strings (a
// kernel name `cache` holds counts as the size of its text). `cache`: optional.
std::size_t op_chars_bound(const OpRecord& r, const LaunchTextCache* cache = nullptr);

// Writes the same text at `out` (room for op_chars_bound(r, cache)) and returns its end.
// No allocation. `cache`: optional, see LaunchTextCache.
char* format_op(const OpRecord& r, char* out, LaunchTextCache* cache = nullptr);

// The decimal text the formatter writes for v (unit tests of the integer formatter).
std::string format_u64_for_test(std::uint64_t v);
std::string format_i64_for_test(std::int64_t v);

// `s` as a JSON string literal, quotes included, escaped (kernel names are stored
// like this so the hot formatter can copy them verbatim). Like every string of the
// trace, made well-formed UTF-8 first (valid_utf8).
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
  // A finite double (a non-finite one is written as null).
  JsonLine& real(std::string_view key, double v);
  // "key":{ ... } : the calls between these two write the nested object's members.
  JsonLine& begin_object(std::string_view key);
  JsonLine& end_object();

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
  std::optional<long> rank;  // null outside a parallel job (base/process_facts.hpp)
  std::optional<long> world_size;
  std::string clprof_version;
  std::vector<std::pair<std::string, std::string>> settings;
  std::string session_id;  // CLPROF_SESSION_ID
};

// Line 1: {"format":"clprof-trace","version":2,"header":{...},"records":[ (no newline).
std::string format_header_line(const HeaderFacts& h);

// The "end" record object (no trailing text); "live" only when `live` is given.
std::string format_end_record(std::int64_t host_ns,
                              const std::vector<std::pair<std::string, std::uint64_t>>& counts,
                              std::uint64_t incomplete, std::uint64_t dropped,
                              const LiveFacts* live = nullptr);

}  // namespace clprof::shim
