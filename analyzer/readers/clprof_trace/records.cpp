// The general record parser of clprof traces: simdjson On-Demand over any formatting of
// the JSON, each record's fields checked against its schema table (trace_schema.hpp),
// the top-level object and header, and errors with the position of the offending token
// (TraceParser, declared in records.hpp; the value decoders are in values.cpp, the fast
// path for the shim's exact line shapes in fast_path.cpp).
#include <limits>

#include "readers/clprof_trace/records.hpp"
#include "readers/clprof_trace/schema_field.hpp"
#include "readers/reader.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;
namespace od = simdjson::ondemand;
using simdjson::error_code;

std::string quoted_snippet(std::string_view token) {
  return printable(token, 32);
}

size_t json_value_end(const char* text, size_t n) {
  size_t depth = 0;
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < n && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (i >= n) break;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return i;  // a closer with nothing open: the value ended before it
      if (--depth == 0) return i + 1;
    }
  }
  return n + 1;
}

void TraceParser::begin(const char* text, size_t n) {
  text_ = text;
  n_ = n;
  doc_valid_ = false;
  if (auto e = parser_.iterate(text, n, n + kPadding).get(doc_)) fail_json(e);
  doc_valid_ = true;
}

od::object TraceParser::root_object(const char* expected) {
  od::object obj;
  error_code e = doc_.get_object().get(obj);
  if (e == simdjson::INCORRECT_TYPE) fail(first_non_space(), std::string("expected ") + expected);
  if (e) fail_json(e);
  return obj;
}

const char* TraceParser::first_non_space() const {
  const char* p = text_;
  while (p < text_ + n_ && is_space(*p)) ++p;
  return p;
}

void TraceParser::expect_end() {
  const char* loc = nullptr;
  if (doc_.current_location().get(loc) || loc < text_ || loc >= text_ + n_) return;
  std::string_view rest(loc, static_cast<size_t>(text_ + n_ - loc));
  const std::string_view t = trim(rest);
  if (!t.empty()) fail(t.data(), "unexpected content after the end of the trace");
}

[[noreturn]] void TraceParser::fail_json(error_code e) {
  // Before a successful iterate() the document must not be touched (it is stale).
  const char* loc = nullptr;
  if (!doc_valid_ || doc_.current_location().get(loc) || loc < text_ || loc > text_ + n_)
    loc = text_;
  std::string what;
  switch (e) {
    case simdjson::DEPTH_ERROR:
      what = "JSON nested too deeply";
      break;
    case simdjson::EMPTY:
      what = "expected a JSON value, got nothing";
      break;
    default:
      what = std::string("invalid JSON (") + simdjson::error_message(e) + ")";
  }
  fail(loc, what);
}

// The key as written (no unescaping: schema keys contain no escapes, so a key with an
// escape simply matches nothing and is ignored like any unknown field).
std::string_view TraceParser::key_of(od::field& field) {
  const char* k = field.key().raw();
  const char* end = text_ + n_;
  if (k < text_ || k >= end) fail(text_, "invalid JSON (bad key)");
  const void* q = std::memchr(k, '"', static_cast<size_t>(end - k));
  if (!q) fail(k, "invalid JSON (unterminated key)");
  return std::string_view(k, static_cast<size_t>(static_cast<const char*>(q) - k));
}

RecordType TraceParser::parse_record(const char* text, size_t n, size_t readable_after) {
  pending_device_ = 0;
  seq_ = 0;
  // The fast paths read a little past the end (at most 16 bytes) but never use those
  // bytes, so they can run in place; simdjson needs its padding, so it gets a copy.
  if (fast_path_) {
    const char* in_place = readable_after >= kPadding ? text : copy_.assign(text, n);
    RecordType type;
    if (fast_record(in_place, n, type)) return type;
  }
  const char* copy = copy_.assign(text, n);
  try {
    return parse_general(copy, n);
  } catch (RecordError& e) {
    e.where = e.where >= copy && e.where <= copy + n ? text + (e.where - copy) : text;
    throw;
  }
}

RecordType TraceParser::parse_general(const char* text, size_t n) {
  begin(text, n);
  // Not even an object: not a record at all (an object that is not a valid record is
  // skipped, below).
  od::object obj = root_object("a record object {\"type\":...}");
  RecordType type;
  {
    od::value tv;
    error_code e = obj.find_field_unordered(ts::type_key).get(tv);
    if (e == simdjson::NO_SUCH_FIELD)
      fail_schema(first_non_space(), "expected a \"type\" field in the record");
    if (e) fail_json(e);
    std::string_view name;
    if (auto te = tv.get_string().get(name)) {
      if (te != simdjson::INCORRECT_TYPE) fail_json(te);
      fail_schema(tv.raw_json_token().data(), "\"type\": expected a record type, got " +
                                                  quoted_snippet(trim(tv.raw_json_token())));
    }
    if (!ts::parse(name, type)) {
      std::string known;
      for (std::string_view t : ts::kRecordTypeNames)
        known += (known.empty() ? "" : ", ") + std::string(t);
      fail_schema(tv.raw_json_token().data(), "unknown record type \"" + quoted_snippet(name) +
                                                  "\" (expected one of " + known + ")");
    }
    bool ignored;
    if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  }
  const size_t meta_before = meta_->order.size();
  try {
    parse_body(type, obj);
    expect_end();
  } catch (RecordError&) {
    if (meta_->order.size() > meta_before) meta_->drop_last();
    throw;
  }
  return type;
}

void TraceParser::parse_body(RecordType type, od::object& obj) {
  switch (type) {
    case RecordType::Launch:
      return parse_launch(obj);
    case RecordType::Transfer:
      return parse_transfer(obj);
    case RecordType::Device:
      return parse_device(obj);
    case RecordType::ClockSync:
      return parse_clock_sync(obj);
    case RecordType::Queue:
      return parse_queue(obj);
    case RecordType::Program:
      return parse_program(obj);
    case RecordType::Build:
      return parse_build(obj);
    case RecordType::Kernel:
      return parse_kernel(obj);
    case RecordType::Sync:
      return parse_sync(obj);
    case RecordType::RangeBegin:
      return parse_range_begin(obj);
    case RecordType::RangeEnd:
      return parse_range_end(obj);
    case RecordType::Mark:
      return parse_mark(obj);
    case RecordType::Warning:
      return parse_warning(obj);
    case RecordType::Capture:
      return parse_capture(obj);
    case RecordType::End:
      return parse_end(obj);
  }
}

void TraceParser::parse_top(const char* text, size_t n, model::Process& proc,
                            const std::function<void(std::string_view)>& on_record) {
  // Only the top-level object goes to simdjson: the end of the trace is where it closes.
  const size_t object_n = std::min(json_value_end(text, n), n);
  begin(text, object_n);
  od::object obj = root_object("a clprof trace: a JSON object {\"format\":\"clprof-trace\",...}");
  // The format and version decide whether the rest can be read at all, whatever the
  // key order of a re-formatted document.
  od::value v;
  error_code e = obj.find_field_unordered(ts::top::format).get(v);
  if (e == simdjson::NO_SUCH_FIELD)
    fail(text, "not a clprof trace: expected a \"format\":\"clprof-trace\" field");
  if (e) fail_json(e);
  std::string_view format = get_string(v, CLPROF_FIELD(top, format, String));
  if (format != ts::kFormatName)
    fail(v.raw_json_token().data(),
         "not a clprof trace: expected \"format\":\"clprof-trace\", got \"" +
             quoted_snippet(format) + "\"");
  bool ignored;
  if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  e = obj.find_field_unordered(ts::top::version).get(v);
  if (e == simdjson::NO_SUCH_FIELD) fail(text, "expected a \"version\" field");
  if (e) fail_json(e);
  const char* version_at = v.raw_json_token().data();
  const int64_t version = get_int(v, CLPROF_FIELD(top, version, Int));
  if (version < ts::kOldestVersion)
    fail(version_at, "\"version\": expected an integer from " + std::to_string(ts::kOldestVersion) +
                         " to " + std::to_string(ts::kVersion));
  if (version > ts::kVersion)
    fail(version_at, "unsupported trace version " + std::to_string(version) +
                         " (this clprof reads versions <= " + std::to_string(ts::kVersion) +
                         "); use a newer clprof");
  proc.trace_version = static_cast<int>(version);
  if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  using T = ts::top::F;
  for_each_schema_field(obj, ts::top::kFields, "the trace", [&](size_t i, od::value& fv) {
    switch (static_cast<T>(i)) {
      case T::header:
        parse_header(fv, proc);
        break;
      case T::records: {
        for_each_element(fv, CLPROF_FIELD(top, records, Records), [&](od::value& rv) {
          od::object ro;
          if (auto re = rv.get_object().get(ro)) {
            if (re == simdjson::INCORRECT_TYPE)
              fail(rv.raw_json_token().data(), "expected a record object {\"type\":...}");
            fail_json(re);
          }
          std::string_view raw;
          if (auto re = ro.raw_json().get(raw)) fail_json(re);
          on_record(raw);
        });
        break;
      }
      default:
        break;  // format and version: read above
    }
  });
  expect_end();
  if (object_n < n) {
    const std::string_view rest = trim(std::string_view(text + object_n, n - object_n));
    if (!rest.empty()) fail(rest.data(), "unexpected content after the end of the trace");
  }
}

void TraceParser::parse_header(od::value& hv, model::Process& proc) {
  od::object h;
  if (auto e = hv.get_object().get(h))
    fail_type(hv, CLPROF_FIELD(top, header, Object), "an object", e);
  using H = ts::header::F;
  for_each_schema_field(h, ts::header::kFields, "header", [&](size_t i, od::value& v) {
    switch (static_cast<H>(i)) {
      case H::pid:
        proc.pid = get_int(v, CLPROF_FIELD(header, pid, Int));
        break;
      case H::ppid:
        proc.ppid = get_int(v, CLPROF_FIELD(header, ppid, Int));
        break;
      case H::command_line:
        get_strings(v, CLPROF_FIELD(header, command_line, Strings), proc.command_line);
        break;
      case H::start_unix_ns:
        proc.start_unix_ns = get_int(v, CLPROF_FIELD(header, start_unix_ns, Int));
        break;
      case H::host_start_ns:
        proc.host_start_ns = get_int(v, CLPROF_FIELD(header, host_start_ns, Int));
        break;
      case H::host_clock:
        proc.host_clock.assign(get_string(v, CLPROF_FIELD(header, host_clock, String)));
        break;
      case H::host_name:
        proc.host_name.assign(get_string(v, CLPROF_FIELD(header, host_name, String)));
        break;
      case H::rank:
        proc.rank = get_uint_or_null(v, CLPROF_FIELD(header, rank, UintOrNull));
        break;
      case H::world_size:
        proc.world_size = get_uint_or_null(v, CLPROF_FIELD(header, world_size, UintOrNull));
        break;
      case H::clprof_version:
        proc.clprof_version.assign(get_string(v, CLPROF_FIELD(header, clprof_version, String)));
        break;
      case H::settings:
        get_string_map(v, CLPROF_FIELD(header, settings, StringMap), proc.settings);
        break;
      case H::session_id:
        proc.session_id.assign(get_string(v, CLPROF_FIELD(header, session_id, String)));
        break;
      case H::kCount:
        break;
    }
  });
}

}  // namespace clprof::readers::detail
