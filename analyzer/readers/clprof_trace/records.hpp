// Internal to the clprof trace reader (analyzer/readers/clprof_trace/): turning the text of
// one record (or of the top-level object) into the model, checked against the schema
// (include/clprof/trace_schema.hpp). TraceParser holds the simdjson On-Demand parser
// that reads any JSON formatting and reports errors (the general path: records.cpp, with
// the schema's value decoders in values.cpp) and the scanner for the shim's exact launch
// and range lines (the fast path: fast_path.cpp), which takes only records that are
// valid and gives up on anything else, so that both paths read every record alike.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
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
// `schema`: the text is JSON, but the record does not match the schema (it is skipped and
// counted); otherwise the text is not JSON (a fatal error).
struct RecordError {
  const char* where;
  std::string message;
  bool schema = false;
};

// Throw RecordError{where, message, false / true}.
[[noreturn]] inline void fail(const char* where, std::string message) {
  throw RecordError{where, std::move(message), false};
}
[[noreturn]] inline void fail_schema(const char* where, std::string message) {
  throw RecordError{where, std::move(message), true};
}

// Offset of `e.where` in text[0, n] (in bytes); 0 when it points elsewhere or is null.
inline uint64_t error_offset(const RecordError& e, const char* text, size_t n) {
  return e.where && e.where >= text && e.where <= text + n ? static_cast<uint64_t>(e.where - text)
                                                           : 0;
}

// The first 32 bytes of `token`, with "..." when it is longer, printable (readers::printable):
// for error messages.
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

// The size of the JSON object or array that text[0, n) starts with (up to its closing
// bracket), or n + 1 when it does not close within n bytes. Follows strings and escapes;
// does not check anything else (the parser does). Pure.
size_t json_value_end(const char* text, size_t n);

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

  // Where parsed metadata records go (to be applied by a TraceBuilder). Not owned; must
  // be set before parse_record and outlive the parsing.
  void set_meta(MetaBatch* m) { meta_ = m; }
  // Trace device id -> Device::id used for launches/transfers (read-only while parsing;
  // not owned, may be shared by several parsers on several threads).
  void set_device_map(const std::unordered_map<uint64_t, uint32_t>* m) { device_map_ = m; }
  // false: every record goes through the general path (tests compare the two paths).
  void set_fast_path(bool on) { fast_path_ = on; }

  // Parses the one record object in text[0, n), after which `readable_after` more bytes
  // may be read, and checks it against the schema. A launch or transfer ends up in
  // `launch` / `transfer`, metadata in the MetaBatch. Throws RecordError pointing into
  // `text`; nothing is added to the MetaBatch then.
  RecordType parse_record(const char* text, size_t n, size_t readable_after);

  // Parses the top-level object in text[0, n) (followed by kPadding readable bytes): the
  // first line with "]}" appended (line mode) or the whole document, where `on_record`
  // gets every record, as the object's text (a view into `text`). Sets the version and
  // the header fields of `proc`. Throws RecordError (schema errors included: the header
  // is not a record that can be skipped).
  void parse_top(const char* text, size_t n, model::Process& proc,
                 const std::function<void(std::string_view)>& on_record);

  // The last bulk record parsed (valid until the next parse_record).
  model::Launch launch;
  model::Transfer transfer;
  // The seq of the last record parsed (0 for a record type without one).
  uint64_t seq() const { return seq_; }
  // Trace device id of the last bulk record when the map did not know it, else 0.
  uint64_t pending_device() const { return pending_device_; }

 private:
  // ---- the shim's exact line shapes (fast_path.cpp) ----
  // Decodes text[0, n) if it is a valid launch or range record in the shim's shape (text
  // readable up to 16 bytes past n); false if it must go to the general path (which
  // reports errors).
  bool fast_record(const char* text, size_t n, RecordType& type);
  // Into `launch`; false = not a valid record in the compact shape (`launch` is then
  // partly decoded).
  bool fast_launch(const char* text, size_t n);
  // Into the MetaBatch; false = not in the compact shape (nothing added).
  bool fast_range(const char* text, size_t n, RecordType& type);

  // ---- any JSON formatting, with errors (records.cpp) ----
  // Everything below throws RecordError pointing into the text being parsed.
  // parse_record's fallback: text[0, n) is followed by kPadding bytes of padding.
  RecordType parse_general(const char* text, size_t n);
  // Decodes the fields of a record of `type` (launch/transfer members or the MetaBatch).
  void parse_body(RecordType type, simdjson::ondemand::object& obj);
  // Starts a document on text[0, n) (padded); the parser state refers to `text` after it.
  void begin(const char* text, size_t n);
  // The document's root object; else an error saying `expected`.
  simdjson::ondemand::object root_object(const char* expected);
  // The first non-whitespace byte of the current text (its end if none).
  const char* first_non_space() const;
  // After the root value: nothing but whitespace may follow.
  void expect_end();
  // Throws simdjson error `e` at the parser's current location, worded for users.
  [[noreturn]] void fail_json(simdjson::error_code e);
  // The key as written (a view into the text; no unescaping).
  std::string_view key_of(simdjson::ondemand::field& field);
  // Calls f(key, value) for each field of `obj`, in text order.
  template <class F>
  void for_each_field(simdjson::ondemand::object& obj, F&& f);
  // Calls f(index, value) for each field of `obj` that `schema` names (others are
  // skipped: fields of later versions), then checks that no field came twice and every
  // required one came. `what` names the object in messages.
  template <class Schema, class F>
  void for_each_schema_field(simdjson::ondemand::object& obj, const Schema& schema,
                             std::string_view what, F&& f);
  // Calls f(element) for each element of array `v`; a schema error naming `field` if `v`
  // is not an array.
  template <class F>
  void for_each_element(simdjson::ondemand::value& v, const trace::Field& field, F&& f);

 public:
  // ---- the schema's value types, checked (values.cpp) ----
  // Each decodes `v` as the type its name says, for `field` (named in errors), and throws
  // a schema error when `v` is not of that type or out of its range.
  uint64_t get_uint(simdjson::ondemand::value& v, const trace::Field& field);
  std::optional<uint64_t> get_uint_or_null(simdjson::ondemand::value& v, const trace::Field& field);
  int64_t get_int(simdjson::ondemand::value& v, const trace::Field& field);
  uint32_t get_uint32(simdjson::ondemand::value& v, const trace::Field& field);
  int32_t get_int32(simdjson::ondemand::value& v, const trace::Field& field);
  uint64_t get_id(simdjson::ondemand::value& v, const trace::Field& field);
  uint64_t get_seq(simdjson::ondemand::value& v, const trace::Field& field);
  uint64_t get_range_id(simdjson::ondemand::value& v, const trace::Field& field);  // Run-wide
  bool get_bool(simdjson::ondemand::value& v, const trace::Field& field);
  std::string_view get_string(simdjson::ondemand::value& v, const trace::Field& field);
  std::string_view get_status(simdjson::ondemand::value& v, const trace::Field& field);
  std::string_view get_transfer_op(simdjson::ondemand::value& v, const trace::Field& field);
  void get_uints(simdjson::ondemand::value& v, const trace::Field& field,
                 std::vector<uint64_t>& out);
  void get_int32s(simdjson::ondemand::value& v, const trace::Field& field,
                  std::vector<int32_t>& out);
  void get_strings(simdjson::ondemand::value& v, const trace::Field& field,
                   std::vector<std::string>& out);
  void get_range_ids(simdjson::ondemand::value& v, const trace::Field& field,
                     std::vector<uint64_t>& out);  // Run-wide ids
  void get_work_sizes(simdjson::ondemand::value& v, const trace::Field& field,
                      std::vector<uint64_t>& out);
  // false for null (out untouched).
  bool get_work_sizes_or_null(simdjson::ondemand::value& v, const trace::Field& field,
                              std::vector<uint64_t>& out);
  void get_host_span(simdjson::ondemand::value& v, const trace::Field& field, int64_t& begin,
                     int64_t& end);
  int64_t get_host_instant(simdjson::ondemand::value& v, const trace::Field& field);
  // false for null (t4 untouched), else [queued, submit, start, end] into t4.
  bool get_device_times(simdjson::ondemand::value& v, const trace::Field& field, int64_t* t4);
  void get_string_map(simdjson::ondemand::value& v, const trace::Field& field,
                      std::vector<std::pair<std::string, std::string>>& out);
  void get_count_map(simdjson::ondemand::value& v, const trace::Field& field,
                     std::vector<std::pair<std::string, uint64_t>>& out);
  // Args: every argument into `launch.args`.
  void get_args(simdjson::ondemand::value& v, const trace::Field& field);
  // Real: a finite number (integers included).
  double get_real(simdjson::ondemand::value& v, const trace::Field& field);
  // The "blas" object of a range_begin (blas_call.cpp) into `call`.
  void get_blas_call(simdjson::ondemand::value& v, const trace::Field& field,
                     model::BlasCall& call);

 private:
  // A string that is one of `names` (the names of enum E; `what` names them in errors).
  template <class E, size_t N>
  std::string_view get_name(simdjson::ondemand::value& v, const trace::Field& field,
                            std::string_view what, const std::string_view (&names)[N]);
  [[noreturn]] void fail_type(simdjson::ondemand::value& v, const trace::Field& field,
                              std::string_view expected, simdjson::error_code e);
  // One argument [kind, ...] into `a` (reset by the caller).
  void get_arg(simdjson::ondemand::value& v, const trace::Field& field, model::KernelArg& a);

  // Records, into `launch` / `transfer` (reset first) or the MetaBatch (set_meta).
  void parse_launch(simdjson::ondemand::object& obj);
  void parse_transfer(simdjson::ondemand::object& obj);
  void parse_device(simdjson::ondemand::object& obj);
  void parse_clock_sync(simdjson::ondemand::object& obj);
  void parse_queue(simdjson::ondemand::object& obj);
  void parse_program(simdjson::ondemand::object& obj);
  void parse_build(simdjson::ondemand::object& obj);
  void parse_kernel(simdjson::ondemand::object& obj);
  void parse_sync(simdjson::ondemand::object& obj);
  void parse_range_begin(simdjson::ondemand::object& obj);
  void parse_range_end(simdjson::ondemand::object& obj);
  void parse_mark(simdjson::ondemand::object& obj);
  void parse_warning(simdjson::ondemand::object& obj);
  void parse_capture(simdjson::ondemand::object& obj);
  void parse_end(simdjson::ondemand::object& obj);
  // The "header" object into `proc`.
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
    l.status.assign(trace::name(trace::Status::Complete));
    l.rc = 0;
    l.exec_status = 0;
    l.args_total = 0;
    l.ranges.clear();
    l.call = 0;
    l.capture = 0;
    l.duration_override_ns.reset();
    if (!l.extra.empty()) l.extra.clear();
  }
  // `launch.lws` made present (reusing the spare vector) or absent.
  std::vector<uint64_t>& lws_present() {
    if (!launch.lws) launch.lws.emplace(std::move(spare_lws_));
    return *launch.lws;
  }
  void lws_null() {
    if (launch.lws) {
      spare_lws_ = std::move(*launch.lws);
      launch.lws.reset();
    }
  }

  // Keeps the first `nargs` arguments of `launch`; moves surplus argument slots, strings
  // and all, to the spare pool for later launches.
  void trim_args(size_t nargs) {
    while (launch.args.size() > nargs) {
      spare_args_.push_back(std::move(launch.args.back()));
      launch.args.pop_back();
    }
  }

  uint32_t process_;                                                    // Process index in the Run
  MetaBatch* meta_ = nullptr;                                           // not owned
  const std::unordered_map<uint64_t, uint32_t>* device_map_ = nullptr;  // not owned
  bool fast_path_ = true;
  uint64_t pending_device_ = 0;
  uint64_t seq_ = 0;
  simdjson::ondemand::parser parser_;  // buffers reused: one document at a time
  simdjson::ondemand::document doc_;
  bool doc_valid_ = false;      // doc_ belongs to the current text (begin() succeeded)
  const char* text_ = nullptr;  // the text being parsed: n_ bytes, then padding
  size_t n_ = 0;
  std::vector<model::KernelArg> spare_args_;  // argument slots kept for later launches
  std::vector<uint64_t> spare_lws_;           // lws capacity kept for later launches
  PaddedText copy_;                           // padded copy of a record for simdjson
};

// ---- templates shared by records.cpp, values.cpp and bodies.cpp ----

template <class F>
void TraceParser::for_each_field(simdjson::ondemand::object& obj, F&& f) {
  for (auto field_result : obj) {
    simdjson::ondemand::field field;
    if (auto e = std::move(field_result).get(field)) fail_json(e);
    std::string_view key = key_of(field);
    simdjson::ondemand::value v = field.value();
    f(key, v);
  }
}

template <class Schema, class F>
void TraceParser::for_each_schema_field(simdjson::ondemand::object& obj, const Schema& schema,
                                        std::string_view what, F&& f) {
  constexpr size_t n = sizeof schema / sizeof schema[0];
  static_assert(n <= 64, "one bit per field");
  const char* start = first_non_space();
  uint64_t seen = 0;
  for_each_field(obj, [&](std::string_view key, simdjson::ondemand::value& v) {
    const size_t i = trace::find_field(schema, key);
    if (i == n) return;  // a field of a later version: skipped
    if (seen >> i & 1)
      fail_schema(key.data(), std::string(what) + ": \"" + std::string(key) + "\" given twice");
    seen |= uint64_t{1} << i;
    f(i, v);
  });
  for (size_t i = 0; i < n; ++i)
    if (schema[i].presence == trace::Presence::Required && !(seen >> i & 1))
      fail_schema(start,
                  std::string(what) + ": expected a \"" + std::string(schema[i].key) + "\" field");
}

template <class F>
void TraceParser::for_each_element(simdjson::ondemand::value& v, const trace::Field& field, F&& f) {
  simdjson::ondemand::array arr;
  if (auto e = v.get_array().get(arr)) fail_type(v, field, trace::name(field.type), e);
  for (auto element_result : arr) {
    simdjson::ondemand::value element;
    if (auto e = std::move(element_result).get(element)) fail_json(e);
    f(element);
  }
}

}  // namespace clprof::readers::detail
