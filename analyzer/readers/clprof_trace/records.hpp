// Internal to the clprof trace reader (analyzer/readers/clprof_trace*.cpp): turning the
// text of one record (or of the top-level object) into the model. TraceParser holds the
// simdjson On-Demand parser that reads any JSON formatting and reports errors (defined in
// clprof_trace_records.cpp) and the scanner for the shim's exact launch/range lines
// (clprof_trace_fast_path.cpp); the helpers shared by both are defined here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "clprof/trace_schema.hpp"
#include "model.hpp"
#include "readers/clprof_trace/meta.hpp"

namespace clprof::readers::detail {

// How far simdjson may read past the end of a text, in bytes.
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;

// An error at an absolute byte position of the input. Converted to InputError at the API
// boundary, where the bytes before it can be counted into a line and a column.
struct PositionedError {
  uint64_t position;
  std::string message;
};

// An error inside the text being parsed; `where` points into that text (or is null).
struct RecordError {
  const char* where;
  std::string message;
};

// Throws RecordError{where, message}.
[[noreturn]] inline void fail(const char* where, std::string message) {
  throw RecordError{where, std::move(message)};
}

// Offset of `e.where` in text[0, n] (in bytes); 0 when it points elsewhere or is null.
inline uint64_t error_offset(const RecordError& e, const char* text, size_t n) {
  return e.where && e.where >= text && e.where <= text + n ? static_cast<uint64_t>(e.where - text)
                                                           : 0;
}

// The first 32 bytes of `token`, with "..." when it is longer: for error messages.
std::string quoted_snippet(std::string_view token);

// True for JSON whitespace (space, tab, CR, LF).
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

// `s` without leading and trailing JSON whitespace (a view into `s`).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A reusable copy of one record followed by SIMDJSON_PADDING spaces: simdjson may read
// that far past the end, and spaces keep a cut-off number or atom from running on.
// Not thread-safe; the returned pointer is valid until the next assign.
class PaddedText {
 public:
  // Copies p[0, n) and pads it; returns the copy.
  const char* assign(const char* p, size_t n) {
    if (buf_.size() < n + kPadding) buf_.resize(std::max(n + kPadding, buf_.size() * 2));
    std::memcpy(buf_.data(), p, n);
    std::memset(buf_.data() + n, ' ', kPadding);
    return buf_.data();
  }
  // Copies `a` then `b` and pads them; returns the copy.
  const char* append_and_assign(std::string_view a, std::string_view b) {
    size_t n = a.size() + b.size();
    if (buf_.size() < n + kPadding) buf_.resize(n + kPadding);
    std::memcpy(buf_.data(), a.data(), a.size());
    std::memcpy(buf_.data() + a.size(), b.data(), b.size());
    std::memset(buf_.data() + n, ' ', kPadding);
    return buf_.data();
  }
  // The current copy.
  const char* data() const { return buf_.data(); }

 private:
  std::vector<char> buf_;
};

// Parses one JSON text (a record, the header line, or a whole document) with simdjson
// On-Demand. One instance per thread; the bulk records are decoded into members that are
// reused from record to record so that steady-state parsing does not allocate.
class TraceParser {
 public:
  // `process`: index of the Process in the Run (stamped on records, part of range ids).
  explicit TraceParser(uint32_t process) : process_(process) {}

  // Where parsed metadata records go (to be applied by a TraceBuilder); null = they are
  // only classified. Not owned; must outlive the parsing.
  void set_meta(MetaBatch* m) { meta_ = m; }
  // Trace device id -> Device::id used for launches/transfers (read-only while parsing;
  // not owned, may be shared by several parsers on several threads).
  void set_device_map(const std::unordered_map<uint64_t, uint32_t>* m) { device_map_ = m; }

  // Parses the record in text[0, n), after which `readable_after` more bytes may be read.
  // Bulk records end up in launch / transfer, metadata in the MetaBatch; `*closing` tells
  // that "]}" followed the record. Throws RecordError pointing into `text`.
  RecordKind parse_record(const char* text, size_t n, size_t readable_after, bool* closing);

  // Parses the top-level object in text[0, n) (followed by kPadding readable bytes): the
  // first line with "]}" appended (line mode) or the whole document, where `on_record`
  // gets every record, as the object's text (a view into `text`). Sets the version and
  // the header fields of `proc`. Throws RecordError.
  void parse_top(const char* text, size_t n, model::Process& proc,
                 const std::function<void(std::string_view)>& on_record);

  // The last bulk record parsed (valid until the next parse_record).
  model::Launch launch;
  model::Transfer transfer;
  // Trace device id of the last bulk record when the map did not know it, else 0.
  uint64_t pending_device() const { return pending_device_; }

 private:
  // ---- the shim's exact line shapes (clprof_trace_fast_path.cpp) ----
  // Decodes text[0, n) if it has the shim's launch or range shape (text readable up to
  // 16 bytes past n); false if it must go to the general path (which reports errors).
  bool fast_record(const char* text, size_t n, bool* closing, RecordKind& kind);
  // Into `launch`; false = not in the compact shape (`launch` is then partly decoded).
  bool fast_launch(const char* text, size_t n);
  // Into the MetaBatch; Ignored = not in the compact shape (nothing added).
  RecordKind fast_range(const char* text, size_t n);

  // ---- any JSON formatting, with errors (clprof_trace_records.cpp) ----
  // Everything below throws RecordError pointing into the text being parsed.
  // parse_record's fallback: text[0, n) is followed by kPadding bytes of padding.
  RecordKind parse_general(const char* text, size_t n, bool* closing);
  // Decodes the fields of a record of `kind` (launch/transfer members or the MetaBatch).
  void parse_body(RecordKind kind, simdjson::ondemand::object& obj);
  // Starts a document on text[0, n) (padded); the parser state refers to `text` after it.
  void begin(const char* text, size_t n);
  // The document's root object; else an error saying `expected`.
  simdjson::ondemand::object root_object(const char* expected);
  // The first non-whitespace byte of the current text (its end if none).
  const char* first_non_space() const;
  // True if "]}" (the end of the records array and of the document) follows; false if
  // nothing does; an error if anything else does.
  bool check_rest();
  // Throws simdjson error `e` at the parser's current location, worded for users.
  [[noreturn]] void fail_json(simdjson::error_code e);
  // The key as written (a view into the text; no unescaping).
  std::string_view key_of(simdjson::ondemand::field& field);
  // Calls f(key, value) for each field of `obj`, in text order.
  template <class F>
  void for_each_field(simdjson::ondemand::object& obj, F&& f);
  // Calls f(element) for each element of array `v`; an error naming `key` and
  // `expected` if `v` is not an array.
  template <class F>
  void for_each_element(simdjson::ondemand::value& v, std::string_view key, const char* expected,
                        F&& f);
  // Walks an ignored record's fields, so that its syntax is checked.
  void skip_object(simdjson::ondemand::object& obj);
  // An array of unsigned integers into `out` (cleared first).
  void get_u64_array(simdjson::ondemand::value& v, std::string_view key,
                     std::vector<uint64_t>& out);
  // An array of trace-local range ids into `out` as Run-wide ids (cleared first).
  void get_ranges(simdjson::ondemand::value& v, std::string_view key, std::vector<uint64_t>& out);
  // host_ns, [begin, end] or one number (then b == e), in ns.
  void get_host_interval(simdjson::ondemand::value& v, std::string_view key, int64_t& b,
                         int64_t& e);
  // device_ns, null (t4 left as is) or [queued, submit, start, end] into t4[0..3], in ns.
  void get_device_times(simdjson::ondemand::value& v, std::string_view key, int64_t* t4);
  // A trace-local range id (< 2^kRangeIdBits) as a Run-wide id.
  uint64_t get_range_id(simdjson::ondemand::value& v, std::string_view key);
  // One launch argument [kind, size, ...] into `a` (reset by the caller).
  void parse_arg(simdjson::ondemand::value& v, model::KernelArg& a);
  // Bulk records, into `launch` / `transfer` (reset first).
  void parse_launch(simdjson::ondemand::object& obj);
  void parse_transfer(simdjson::ondemand::object& obj);
  // Metadata records, each appended to the MetaBatch (set_meta must have been called).
  void parse_device(simdjson::ondemand::object& obj);
  void parse_clock_sync(simdjson::ondemand::object& obj);
  void parse_program(simdjson::ondemand::object& obj);
  void parse_build(simdjson::ondemand::object& obj);
  void parse_sync(simdjson::ondemand::object& obj);
  void parse_range_begin(simdjson::ondemand::object& obj);
  void parse_range_end(simdjson::ondemand::object& obj);
  void parse_mark(simdjson::ondemand::object& obj);
  void parse_warning(simdjson::ondemand::object& obj);
  void parse_end(simdjson::ondemand::object& obj);
  // The "header" object into `proc` (pid, start times, host name, command line).
  void parse_header(simdjson::ondemand::value& hv, model::Process& proc);

  // ---- shared by both paths (inline: on the fast path's per-launch work) ----
  // Device::id of trace device id `local` (0 stays 0); 0 and pending_device_ = local when
  // the map does not know it (yet).
  uint32_t map_device(uint64_t local) {
    if (local == 0) return 0;
    if (device_map_) {
      auto it = device_map_->find(local);
      if (it != device_map_->end()) return it->second;
    }
    pending_device_ = local;
    return 0;
  }

  // Argument slot `i` (<= launch.args.size()) of `launch`, reset; a new slot reuses a
  // spare one's strings. The reference is valid until the next next_arg / trim_args.
  model::KernelArg& next_arg(size_t i) {
    auto& args = launch.args;
    if (i == args.size()) {
      if (!spare_args_.empty()) {
        args.push_back(std::move(spare_args_.back()));
        spare_args_.pop_back();
      } else {
        args.emplace_back();
      }
    }
    model::KernelArg& a = args[i];
    a.kind = model::KernelArg::Kind::Unset;
    a.size = 0;
    a.hex.clear();
    a.has_value = false;
    a.value = 0;
    a.object_id = 0;
    a.object_bytes = 0;
    a.svm_pointer.clear();
    return a;
  }

  // Sets `launch` to the defaults of a record without optional fields, keeping capacity.
  void reset_launch() {
    model::Launch& l = launch;
    l.seq = 0;
    l.process = process_;
    l.tid = 0;
    l.name.clear();
    l.api.assign("clEnqueueNDRangeKernel");
    l.kernel_id = l.program_id = l.queue_id = l.context_id = 0;
    l.device = 0;
    l.gwo.clear();
    l.gws.clear();
    if (l.lws) {
      // Keep the vector's capacity for the next launch that has a local size.
      spare_lws_ = std::move(*l.lws);
      l.lws.reset();
    }
    l.host_begin_ns = l.host_end_ns = model::kNoTime;
    l.queued_ns = l.submit_ns = l.start_ns = l.end_ns = model::kNoTime;
    l.status.assign(clprof::trace::name(clprof::trace::Status::Complete));
    l.rc = 0;
    l.ranges.clear();
    l.duration_override_ns.reset();
    if (!l.extra.empty()) l.extra.clear();
  }

  // Keeps the first `nargs` arguments of `launch`; moves surplus argument slots, strings
  // and all, to the spare pool for later launches.
  void trim_args(size_t nargs) {
    while (launch.args.size() > nargs) {
      spare_args_.push_back(std::move(launch.args.back()));
      launch.args.pop_back();
    }
  }

  uint32_t process_;           // Process index in the Run
  MetaBatch* meta_ = nullptr;  // not owned; null = metadata only classified
  const std::unordered_map<uint64_t, uint32_t>* device_map_ = nullptr;  // not owned
  uint64_t pending_device_ = 0;
  simdjson::ondemand::parser parser_;  // buffers reused: one document at a time
  simdjson::ondemand::document doc_;
  bool doc_valid_ = false;      // doc_ belongs to the current text (begin() succeeded)
  const char* text_ = nullptr;  // the text being parsed: n_ bytes, then padding
  size_t n_ = 0;
  std::vector<model::KernelArg> spare_args_;  // argument slots kept for later launches
  std::vector<uint64_t> spare_lws_;           // lws capacity kept for later launches
  PaddedText copy_;                           // padded copy of a record for simdjson
};

}  // namespace clprof::readers::detail
