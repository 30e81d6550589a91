// The general record parser of clprof traces: simdjson On-Demand over any formatting of
// the JSON, the top-level object and header, and error reporting with the position of
// the offending token (TraceParser, declared in clprof_trace_records.hpp; the fast path
// for the shim's exact line shapes is in clprof_trace_fast_path.cpp).
#include "readers/clprof_trace/records.hpp"

#include <limits>

#include "clprof/trace_schema.hpp"

namespace clprof::readers::detail {

namespace tf = clprof::trace;
namespace od = simdjson::ondemand;
using simdjson::error_code;

std::string quoted_snippet(std::string_view token) {
  constexpr size_t kMax = 32;
  std::string out(token.substr(0, kMax));
  if (token.size() > kMax) out += "...";
  return out;
}

namespace {

// The position of value `v` in the text (for errors).
const char* where(od::value& v) {
  return v.raw_json_token().data();
}

// Typed access to a value; each throws RecordError naming `key` on a type mismatch.

[[noreturn]] void fail_type(od::value& v, std::string_view key, const char* expected) {
  std::string_view token = v.raw_json_token();
  fail(token.data(), "\"" + std::string(key) + "\": expected " + expected + ", got " +
                         quoted_snippet(trim(token)));
}

uint64_t get_u64(od::value& v, std::string_view key) {
  uint64_t x;
  if (v.get_uint64().get(x)) fail_type(v, key, "an unsigned 64-bit integer");
  return x;
}
int64_t get_i64(od::value& v, std::string_view key) {
  int64_t x;
  if (v.get_int64().get(x)) fail_type(v, key, "a 64-bit integer");
  return x;
}
uint32_t get_u32(od::value& v, std::string_view key) {
  uint64_t x;
  if (v.get_uint64().get(x) || x > std::numeric_limits<uint32_t>::max())
    fail_type(v, key, "an unsigned 32-bit integer");
  return static_cast<uint32_t>(x);
}
int32_t get_i32(od::value& v, std::string_view key) {
  int64_t x;
  if (v.get_int64().get(x) || x < std::numeric_limits<int32_t>::min() ||
      x > std::numeric_limits<int32_t>::max())
    fail_type(v, key, "a 32-bit integer");
  return static_cast<int32_t>(x);
}
bool get_bool(od::value& v, std::string_view key) {
  bool x;
  if (v.get_bool().get(x)) fail_type(v, key, "true or false");
  return x;
}
std::string_view get_string(od::value& v, std::string_view key) {
  std::string_view x;
  if (v.get_string().get(x)) fail_type(v, key, "a string");
  return x;
}
bool is_null(od::value& v, std::string_view key) {
  bool x = false;
  if (v.is_null().get(x)) fail_type(v, key, "null or a value");
  return x;
}

}  // namespace

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

bool TraceParser::check_rest() {
  const char* loc = nullptr;
  if (doc_.current_location().get(loc) || loc < text_ || loc >= text_ + n_) return false;
  std::string_view rest = trim(std::string_view(loc, text_ + n_ - loc));
  if (rest.empty()) return false;
  if (rest == "]}") return true;
  fail(loc, "expected the end of the record");
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

template <class F>
void TraceParser::for_each_field(od::object& obj, F&& f) {
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) fail_json(e);
    std::string_view key = key_of(field);
    od::value v = field.value();
    f(key, v);
  }
}

template <class F>
void TraceParser::for_each_element(od::value& v, std::string_view key, const char* expected,
                                   F&& f) {
  od::array arr;
  if (auto e = v.get_array().get(arr)) {
    if (e == simdjson::INCORRECT_TYPE) fail_type(v, key, expected);
    fail_json(e);
  }
  for (auto element_result : arr) {
    od::value element;
    if (auto e = std::move(element_result).get(element)) fail_json(e);
    f(element);
  }
}

void TraceParser::skip_object(od::object& obj) {
  // Walking the fields makes simdjson check the record's syntax before we count it.
  for_each_field(obj, [](std::string_view, od::value&) {});
}

void TraceParser::get_u64_array(od::value& v, std::string_view key, std::vector<uint64_t>& out) {
  out.clear();
  for_each_element(v, key, "an array of unsigned integers",
                   [&](od::value& e) { out.push_back(get_u64(e, key)); });
}

void TraceParser::get_ranges(od::value& v, std::string_view key, std::vector<uint64_t>& out) {
  out.clear();
  for_each_element(v, key, "an array of range ids",
                   [&](od::value& e) { out.push_back(run_range_id(process_, get_u64(e, key))); });
}

// host_ns: [begin, end] for calls, one number for instants.
void TraceParser::get_host_interval(od::value& v, std::string_view key, int64_t& b, int64_t& e) {
  od::json_type t;
  if (v.type().get(t)) fail_json(simdjson::TAPE_ERROR);
  if (t == od::json_type::number) {
    b = e = get_i64(v, key);
    return;
  }
  int n = 0;
  for_each_element(v, key, "[begin, end] or a number", [&](od::value& x) {
    int64_t ns = get_i64(x, key);
    if (n == 0)
      b = ns;
    else if (n == 1)
      e = ns;
    else
      fail_type(x, key, "[begin, end] (2 numbers)");
    ++n;
  });
  if (n != 2) fail_type(v, key, "[begin, end] (2 numbers)");
}

// device_ns: null or [queued, submit, start, end].
void TraceParser::get_device_times(od::value& v, std::string_view key, int64_t* t4) {
  if (is_null(v, key)) return;
  int n = 0;
  const char* at = where(v);
  for_each_element(v, key, "null or [queued, submit, start, end]", [&](od::value& x) {
    if (n >= 4) fail_type(x, key, "[queued, submit, start, end] (4 numbers)");
    t4[n++] = get_i64(x, key);
  });
  if (n != 4)
    fail(at, "\"" + std::string(key) + "\": expected [queued, submit, start, end] (4 numbers)");
}

uint64_t TraceParser::get_range_id(od::value& v, std::string_view key) {
  const char* at = where(v);
  uint64_t local = get_u64(v, key);
  if (local >= (uint64_t{1} << kRangeIdBits))
    fail(at, "\"" + std::string(key) + "\": range id too large");
  return run_range_id(process_, local);
}

RecordKind TraceParser::parse_record(const char* text, size_t n, size_t readable_after,
                                     bool* closing) {
  // The fast paths read a little past the end (at most 16 bytes) but never use those
  // bytes, so they can run in place; simdjson needs its padding, so it gets a copy.
  const char* in_place = readable_after >= kPadding ? text : copy_.assign(text, n);
  RecordKind kind;
  if (fast_record(in_place, n, closing, kind)) return kind;
  const char* copy = in_place == text ? copy_.assign(text, n) : in_place;
  try {
    return parse_general(copy, n, closing);
  } catch (RecordError& e) {
    if (e.where >= copy && e.where <= copy + n)
      e.where = text + (e.where - copy);
    else
      e.where = text;
    throw;
  }
}

RecordKind TraceParser::parse_general(const char* text, size_t n, bool* closing) {
  begin(text, n);
  od::object obj = root_object("a record object {\"type\":...}");
  RecordKind kind;
  {
    od::value tv;
    error_code e = obj.find_field_unordered(tf::type_key).get(tv);
    if (e == simdjson::NO_SUCH_FIELD) fail(text, "expected a \"type\" field in the record");
    if (e) fail_json(e);
    kind = classify(get_string(tv, tf::type_key));
    bool ignored;
    if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  }
  pending_device_ = 0;
  if (!meta_ && !is_bulk(kind)) return kind;
  size_t meta_before = meta_ ? meta_->order.size() : 0;
  try {
    parse_body(kind, obj);
  } catch (RecordError&) {
    if (meta_ && meta_->order.size() > meta_before) meta_->drop_last();
    throw;
  }
  *closing = check_rest();
  return kind;
}

void TraceParser::parse_body(RecordKind kind, od::object& obj) {
  switch (kind) {
    case RecordKind::Launch:
      parse_launch(obj);
      break;
    case RecordKind::Transfer:
      parse_transfer(obj);
      break;
    case RecordKind::Device:
      parse_device(obj);
      break;
    case RecordKind::ClockSync:
      parse_clock_sync(obj);
      break;
    case RecordKind::Program:
      parse_program(obj);
      break;
    case RecordKind::Build:
      parse_build(obj);
      break;
    case RecordKind::Sync:
      parse_sync(obj);
      break;
    case RecordKind::RangeBegin:
      parse_range_begin(obj);
      break;
    case RecordKind::RangeEnd:
      parse_range_end(obj);
      break;
    case RecordKind::Mark:
      parse_mark(obj);
      break;
    case RecordKind::Warning:
      parse_warning(obj);
      break;
    case RecordKind::End:
      parse_end(obj);
      break;
    case RecordKind::Ignored:
      skip_object(obj);
      break;
  }
}

void TraceParser::parse_top(const char* text, size_t n, model::Process& proc,
                            const std::function<void(std::string_view)>& on_record) {
  begin(text, n);
  od::object obj = root_object("a clprof trace: a JSON object {\"format\":\"clprof-trace\",...}");
  // The format and version decide whether the rest can be read at all, whatever the
  // key order of a re-formatted document.
  od::value v;
  error_code e = obj.find_field_unordered(tf::top::format).get(v);
  if (e == simdjson::NO_SUCH_FIELD)
    fail(text, "not a clprof trace: expected a \"format\":\"clprof-trace\" field");
  if (e) fail_json(e);
  std::string_view format = get_string(v, tf::top::format);
  if (format != tf::kFormatName)
    fail(where(v), "not a clprof trace: expected \"format\":\"clprof-trace\", got \"" +
                       quoted_snippet(format) + "\"");
  bool ignored;
  if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  e = obj.find_field_unordered(tf::top::version).get(v);
  if (e == simdjson::NO_SUCH_FIELD) fail(text, "expected a \"version\" field");
  if (e) fail_json(e);
  const char* version_at = where(v);
  int64_t version = get_i64(v, tf::top::version);
  if (version < 1) fail(version_at, "\"version\": expected a positive integer");
  if (version > tf::kVersion)
    fail(version_at, "unsupported trace version " + std::to_string(version) +
                         " (this clprof reads versions <= " + std::to_string(tf::kVersion) +
                         "); use a newer clprof");
  proc.trace_version = static_cast<int>(version);
  if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
  bool has_records = false;
  for_each_field(obj, [&](std::string_view key, od::value& fv) {
    if (key == tf::top::header) {
      parse_header(fv, proc);
    } else if (key == tf::top::records) {
      has_records = true;
      for_each_element(fv, key, "an array of records", [&](od::value& rv) {
        od::object ro;
        if (rv.get_object().get(ro)) fail(where(rv), "expected a record object");
        std::string_view raw;
        if (auto re = ro.raw_json().get(raw)) fail_json(re);
        on_record(raw);
      });
    }
  });
  if (!has_records) fail(text, "expected a \"records\" array");
  check_rest();
}

void TraceParser::parse_header(od::value& hv, model::Process& proc) {
  od::object h;
  if (auto e = hv.get_object().get(h)) {
    if (e == simdjson::INCORRECT_TYPE) fail_type(hv, tf::top::header, "an object");
    fail_json(e);
  }
  for_each_field(h, [&](std::string_view key, od::value& v) {
    if (key == tf::header::pid)
      proc.pid = get_i64(v, key);
    else if (key == tf::header::start_unix_ns)
      proc.start_unix_ns = get_i64(v, key);
    else if (key == tf::header::host_start_ns)
      proc.host_start_ns = get_i64(v, key);
    else if (key == tf::header::host_name)
      proc.host_name.assign(get_string(v, key));
    else if (key == tf::header::command_line) {
      proc.command_line.clear();
      for_each_element(v, key, "an array of strings",
                       [&](od::value& e) { proc.command_line.emplace_back(get_string(e, key)); });
    }
  });
}

void TraceParser::parse_arg(od::value& v, model::KernelArg& a) {
  static constexpr std::string_view kKey = "args";
  int n = 0;
  for_each_element(v, kKey, "an array [kind, ...] per argument", [&](od::value& x) {
    if (n == 0) {
      std::string_view kind = get_string(x, kKey);
      using K = model::KernelArg::Kind;
      if (kind == tf::name(tf::ArgKind::Scalar))
        a.kind = K::Scalar;
      else if (kind == tf::name(tf::ArgKind::Buffer))
        a.kind = K::Buffer;
      else if (kind == tf::name(tf::ArgKind::Local))
        a.kind = K::Local;
      else if (kind == tf::name(tf::ArgKind::Image))
        a.kind = K::Image;
      else if (kind == tf::name(tf::ArgKind::Pipe))
        a.kind = K::Pipe;
      else if (kind == tf::name(tf::ArgKind::Svm))
        a.kind = K::Svm;
      else if (kind == tf::name(tf::ArgKind::Sampler))
        a.kind = K::Sampler;
      else
        a.kind = K::Unset;  // "unset" and kinds of later versions
    } else if (n == 1) {
      a.size = get_u32(x, kKey);
    } else {
      using K = model::KernelArg::Kind;
      switch (a.kind) {
        case K::Scalar:
          if (n == 2)
            a.hex.assign(get_string(x, kKey));
          else if (n == 3) {
            a.value = get_u64(x, kKey);
            a.has_value = true;
          }
          break;
        case K::Buffer:
        case K::Image:
        case K::Pipe:
          if (n == 2)
            a.object_id = get_u64(x, kKey);
          else if (n == 3)
            a.object_bytes = get_u64(x, kKey);
          break;
        case K::Sampler:
          if (n == 2) a.object_id = get_u64(x, kKey);
          break;
        case K::Svm:
          if (n == 2) a.svm_pointer.assign(get_string(x, kKey));
          break;
        default:
          break;
      }
    }
    ++n;
  });
  if (n == 0) fail_type(v, kKey, "a non-empty array [kind, ...]");
}

void TraceParser::parse_launch(od::object& obj) {
  model::Launch& l = launch;
  reset_launch();
  size_t nargs = 0;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::launch::seq)
      l.seq = get_u64(v, key);
    else if (key == tf::launch::tid)
      l.tid = get_u64(v, key);
    else if (key == tf::launch::rc)
      l.rc = get_i32(v, key);
    else if (key == tf::launch::kernel)
      l.name.assign(get_string(v, key));
    else if (key == tf::launch::kernel_id)
      l.kernel_id = get_u64(v, key);
    else if (key == tf::launch::program_id)
      l.program_id = get_u64(v, key);
    else if (key == tf::launch::queue_id)
      l.queue_id = get_u64(v, key);
    else if (key == tf::launch::context_id)
      l.context_id = get_u64(v, key);
    else if (key == tf::launch::device_id)
      l.device = map_device(get_u64(v, key));
    else if (key == tf::launch::gwo) {
      if (is_null(v, key))
        l.gwo.clear();
      else
        get_u64_array(v, key, l.gwo);
    } else if (key == tf::launch::gws)
      get_u64_array(v, key, l.gws);
    else if (key == tf::launch::lws) {
      if (is_null(v, key)) {
        if (l.lws) {
          spare_lws_ = std::move(*l.lws);
          l.lws.reset();
        }
      } else {
        if (!l.lws) l.lws.emplace(std::move(spare_lws_));
        get_u64_array(v, key, *l.lws);
      }
    } else if (key == tf::launch::args) {
      nargs = 0;
      for_each_element(v, key, "an array of arguments", [&](od::value& a) {
        parse_arg(a, next_arg(nargs));
        ++nargs;
      });
    } else if (key == tf::launch::host_ns)
      get_host_interval(v, key, l.host_begin_ns, l.host_end_ns);
    else if (key == tf::launch::device_ns) {
      int64_t t[4] = {model::kNoTime, model::kNoTime, model::kNoTime, model::kNoTime};
      get_device_times(v, key, t);
      l.queued_ns = t[0];
      l.submit_ns = t[1];
      l.start_ns = t[2];
      l.end_ns = t[3];
    } else if (key == tf::launch::status)
      l.status.assign(get_string(v, key));
    else if (key == tf::launch::ranges)
      get_ranges(v, key, l.ranges);
    else if (key == tf::launch::api)
      l.api.assign(get_string(v, key));
  });
  trim_args(nargs);
}

void TraceParser::parse_transfer(od::object& obj) {
  model::Transfer& t = transfer;
  t.seq = 0;
  t.process = process_;
  t.tid = 0;
  t.api.clear();
  t.op.clear();
  t.queue_id = 0;
  t.device = 0;
  t.bytes = 0;
  t.blocking = false;
  t.host_begin_ns = t.host_end_ns = model::kNoTime;
  t.queued_ns = t.submit_ns = t.start_ns = t.end_ns = model::kNoTime;
  t.status.assign(tf::name(tf::Status::Complete));
  t.rc = 0;
  t.ranges.clear();
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::transfer::seq)
      t.seq = get_u64(v, key);
    else if (key == tf::transfer::tid)
      t.tid = get_u64(v, key);
    else if (key == tf::transfer::rc)
      t.rc = get_i32(v, key);
    else if (key == tf::transfer::api)
      t.api.assign(get_string(v, key));
    else if (key == tf::transfer::op)
      t.op.assign(get_string(v, key));
    else if (key == tf::transfer::queue_id)
      t.queue_id = get_u64(v, key);
    else if (key == tf::transfer::device_id)
      t.device = map_device(get_u64(v, key));
    else if (key == tf::transfer::bytes)
      t.bytes = get_u64(v, key);
    else if (key == tf::transfer::blocking)
      t.blocking = get_bool(v, key);
    else if (key == tf::transfer::host_ns)
      get_host_interval(v, key, t.host_begin_ns, t.host_end_ns);
    else if (key == tf::transfer::device_ns) {
      int64_t x[4] = {model::kNoTime, model::kNoTime, model::kNoTime, model::kNoTime};
      get_device_times(v, key, x);
      t.queued_ns = x[0];
      t.submit_ns = x[1];
      t.start_ns = x[2];
      t.end_ns = x[3];
    } else if (key == tf::transfer::status)
      t.status.assign(get_string(v, key));
    else if (key == tf::transfer::ranges)
      get_ranges(v, key, t.ranges);
  });
}

void TraceParser::parse_device(od::object& obj) {
  model::Device d;
  uint64_t local = 0;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::device::id)
      local = get_u64(v, key);
    else if (key == tf::device::name)
      d.name.assign(get_string(v, key));
    else if (key == tf::device::vendor)
      d.vendor.assign(get_string(v, key));
    else if (key == tf::device::platform)
      d.platform.assign(get_string(v, key));
    else if (key == tf::device::platform_version)
      d.platform_version.assign(get_string(v, key));
    else if (key == tf::device::version)
      d.version.assign(get_string(v, key));
    else if (key == tf::device::driver_version)
      d.driver_version.assign(get_string(v, key));
    else if (key == tf::device::device_type)
      d.type.assign(get_string(v, key));
    else if (key == tf::device::compute_units)
      d.compute_units = get_u32(v, key);
    else if (key == tf::device::max_clock_mhz)
      d.max_clock_mhz = get_u32(v, key);
    else if (key == tf::device::global_mem_bytes)
      d.global_mem_bytes = get_u64(v, key);
    else if (key == tf::device::local_mem_bytes)
      d.local_mem_bytes = get_u64(v, key);
  });
  auto& slot = meta_->add(RecordKind::Device, meta_->devices);
  slot.first = local;
  slot.second = std::move(d);
}

void TraceParser::parse_clock_sync(od::object& obj) {
  ClockSyncRecord& c = meta_->add(RecordKind::ClockSync, meta_->clock_syncs);
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::clock_sync::device_id)
      c.device = get_u64(v, key);
    else if (key == tf::clock_sync::offset_ns) {
      c.offset_ns = get_i64(v, key);
      c.has_offset = true;
    } else if (key == tf::clock_sync::method)
      c.method.assign(get_string(v, key));
  });
}

void TraceParser::parse_program(od::object& obj) {
  model::Program& p = meta_->add(RecordKind::Program, meta_->programs);
  p.process = process_;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::program::id)
      p.id = get_u64(v, key);
    else if (key == tf::program::origin)
      p.origin.assign(get_string(v, key));
    else if (key == tf::program::source_hash)
      p.source_hash.assign(get_string(v, key));
    else if (key == tf::program::source_bytes)
      p.source_bytes = get_u64(v, key);
    else if (key == tf::program::source)
      p.source.assign(get_string(v, key));
  });
}

void TraceParser::parse_build(od::object& obj) {
  BuildRecord& rec = meta_->add(RecordKind::Build, meta_->builds);
  model::Build& b = rec.build;
  b.process = process_;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::build::program_id)
      b.program_id = get_u64(v, key);
    else if (key == tf::build::api)
      b.api.assign(get_string(v, key));
    else if (key == tf::build::options)
      b.options.assign(get_string(v, key));
    else if (key == tf::build::device_ids) {
      for_each_element(v, key, "an array of device ids",
                       [&](od::value& e) { rec.devices.push_back(get_u64(e, key)); });
    } else if (key == tf::build::host_ns)
      get_host_interval(v, key, b.host_begin_ns, b.host_end_ns);
    else if (key == tf::build::rc)
      b.rc = get_i32(v, key);
    else if (key == tf::build::kernels) {
      for_each_element(v, key, "an array of kernel names",
                       [&](od::value& e) { b.kernels.emplace_back(get_string(e, key)); });
    }
  });
}

void TraceParser::parse_sync(od::object& obj) {
  model::Sync& s = meta_->add(RecordKind::Sync, meta_->syncs);
  s.process = process_;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::sync::seq)
      s.seq = get_u64(v, key);
    else if (key == tf::sync::tid)
      s.tid = get_u64(v, key);
    else if (key == tf::sync::rc)
      s.rc = get_i32(v, key);
    else if (key == tf::sync::api)
      s.api.assign(get_string(v, key));
    else if (key == tf::sync::queue_id)
      s.queue_id = get_u64(v, key);
    else if (key == tf::sync::host_ns)
      get_host_interval(v, key, s.host_begin_ns, s.host_end_ns);
  });
}

void TraceParser::parse_range_begin(od::object& obj) {
  model::Range& r = meta_->add(RecordKind::RangeBegin, meta_->range_begins);
  r.process = process_;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::range_begin::id)
      r.id = get_range_id(v, key);
    else if (key == tf::range_begin::parent)
      r.parent = get_range_id(v, key);
    else if (key == tf::range_begin::name)
      r.name.assign(get_string(v, key));
    else if (key == tf::range_begin::tid)
      r.tid = get_u64(v, key);
    else if (key == tf::range_begin::host_ns) {
      int64_t e;
      get_host_interval(v, key, r.host_begin_ns, e);
    }
  });
}

void TraceParser::parse_range_end(od::object& obj) {
  RangeEndRecord& r = meta_->add(RecordKind::RangeEnd, meta_->range_ends);
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::range_end::id)
      r.id = get_range_id(v, key);
    else if (key == tf::range_end::open)
      r.open = get_bool(v, key);
    else if (key == tf::range_end::host_ns) {
      int64_t b;
      get_host_interval(v, key, b, r.end_ns);
    }
  });
}

void TraceParser::parse_mark(od::object& obj) {
  model::Run::Mark& m = meta_->add(RecordKind::Mark, meta_->marks);
  m.process = process_;
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::mark::name)
      m.name.assign(get_string(v, key));
    else if (key == tf::mark::tid)
      m.tid = get_u64(v, key);
    else if (key == tf::mark::host_ns) {
      int64_t e;
      get_host_interval(v, key, m.host_ns, e);
    }
  });
}

void TraceParser::parse_warning(od::object& obj) {
  std::string& message = meta_->add(RecordKind::Warning, meta_->warnings);
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::warning::message) message.assign(get_string(v, key));
  });
}

void TraceParser::parse_end(od::object& obj) {
  EndRecord& e = meta_->add(RecordKind::End, meta_->ends);
  for_each_field(obj, [&](std::string_view key, od::value& v) {
    if (key == tf::end::incomplete)
      e.incomplete = get_u64(v, key);
    else if (key == tf::end::dropped)
      e.dropped = get_u64(v, key);
  });
}

}  // namespace clprof::readers::detail
