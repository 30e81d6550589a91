#include "readers/clprof_trace.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "clprof/trace_format.hpp"

namespace clprof::readers {
namespace {

namespace tf = clprof::trace;
namespace od = simdjson::ondemand;
using simdjson::error_code;

constexpr size_t kPadding = simdjson::SIMDJSON_PADDING;
// Range ids are made Run-wide by putting the process index above the trace-local id.
constexpr unsigned kRangeIdBits = 40;
// The header line holds the command line and settings: small, but argv may reach a few
// MB. A first line longer than this is not the shim's layout (e.g. a minified document).
constexpr size_t kMaxHeaderLineBytes = size_t{8} << 20;

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

[[noreturn]] void fail(const char* where, std::string message) {
  throw RecordError{where, std::move(message)};
}

std::string quoted_snippet(std::string_view token) {
  constexpr size_t kMax = 32;
  std::string out(token.substr(0, kMax));
  if (token.size() > kMax) out += "...";
  return out;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A reusable copy of one record followed by SIMDJSON_PADDING spaces: simdjson may read
// that far past the end, and spaces keep a cut-off number or atom from running on.
class PaddedText {
 public:
  const char* assign(const char* p, size_t n) {
    if (buf_.size() < n + kPadding) buf_.resize(std::max(n + kPadding, buf_.size() * 2));
    std::memcpy(buf_.data(), p, n);
    std::memset(buf_.data() + n, ' ', kPadding);
    return buf_.data();
  }
  const char* append_and_assign(std::string_view a, std::string_view b) {
    size_t n = a.size() + b.size();
    if (buf_.size() < n + kPadding) buf_.resize(n + kPadding);
    std::memcpy(buf_.data(), a.data(), a.size());
    std::memcpy(buf_.data() + a.size(), b.data(), b.size());
    std::memset(buf_.data() + n, ' ', kPadding);
    return buf_.data();
  }
  const char* data() const { return buf_.data(); }

 private:
  std::vector<char> buf_;
};

enum class RecordKind : uint8_t {
  Launch,
  Transfer,
  Device,
  ClockSync,
  Program,
  Build,
  Sync,
  RangeBegin,
  RangeEnd,
  Mark,
  Warning,
  End,
  Ignored
};

bool is_bulk(RecordKind k) {
  return k == RecordKind::Launch || k == RecordKind::Transfer;
}

RecordKind classify(std::string_view type) {
  if (type == tf::kind::kLaunch) return RecordKind::Launch;
  if (type == tf::kind::kTransfer) return RecordKind::Transfer;
  if (type == tf::kind::kSync) return RecordKind::Sync;
  if (type == tf::kind::kRangeBegin) return RecordKind::RangeBegin;
  if (type == tf::kind::kRangeEnd) return RecordKind::RangeEnd;
  if (type == tf::kind::kDevice) return RecordKind::Device;
  if (type == tf::kind::kClockSync) return RecordKind::ClockSync;
  if (type == tf::kind::kProgram) return RecordKind::Program;
  if (type == tf::kind::kBuild) return RecordKind::Build;
  if (type == tf::kind::kMark) return RecordKind::Mark;
  if (type == tf::kind::kWarning) return RecordKind::Warning;
  if (type == tf::kind::kEnd) return RecordKind::End;
  return RecordKind::Ignored;  // queue, kernel and record types of later versions
}

uint64_t run_range_id(uint32_t process, uint64_t local) {
  return local == 0 ? 0 : ((uint64_t{process} + 1) << kRangeIdBits) | local;
}

struct ClockSyncRecord {
  uint64_t device = 0;  // trace id
  int64_t offset_ns = 0;
  bool has_offset = false;
  std::string method;
};
struct BuildRecord {
  model::Build build;
  std::vector<uint64_t> devices;  // trace ids, mapped when applied
};
struct RangeEndRecord {
  uint64_t id = 0;  // Run-wide
  int64_t end_ns = model::kNoTime;
  bool open = false;
};
struct EndRecord {
  uint64_t incomplete = 0, dropped = 0;
};

// Metadata records parsed but not yet applied, in file order. Streaming threads fill one
// each (parsing in parallel); the calling thread applies them in order afterwards.
struct MetaBatch {
  std::vector<std::pair<RecordKind, uint32_t>> order;       // kind, index in its vector
  std::vector<std::pair<uint64_t, model::Device>> devices;  // trace id, device
  std::vector<ClockSyncRecord> clock_syncs;
  std::vector<model::Program> programs;
  std::vector<BuildRecord> builds;
  std::vector<model::Sync> syncs;
  std::vector<model::Range> range_begins;
  std::vector<RangeEndRecord> range_ends;
  std::vector<model::Run::Mark> marks;
  std::vector<std::string> warnings;
  std::vector<EndRecord> ends;

  template <class V>
  typename V::value_type& add(RecordKind kind, V& v) {
    order.emplace_back(kind, static_cast<uint32_t>(v.size()));
    return v.emplace_back();
  }
  // Empties the batch, keeping capacity (the sequential reader reuses one per record).
  void clear() {
    order.clear();
    devices.clear();
    clock_syncs.clear();
    programs.clear();
    builds.clear();
    syncs.clear();
    range_begins.clear();
    range_ends.clear();
    marks.clear();
    warnings.clear();
    ends.clear();
  }
  // Removes the last record added (one whose parsing failed).
  void drop_last() {
    if (order.empty()) return;
    auto [kind, i] = order.back();
    order.pop_back();
    switch (kind) {
      case RecordKind::Device:
        devices.resize(i);
        break;
      case RecordKind::ClockSync:
        clock_syncs.resize(i);
        break;
      case RecordKind::Program:
        programs.resize(i);
        break;
      case RecordKind::Build:
        builds.resize(i);
        break;
      case RecordKind::Sync:
        syncs.resize(i);
        break;
      case RecordKind::RangeBegin:
        range_begins.resize(i);
        break;
      case RecordKind::RangeEnd:
        range_ends.resize(i);
        break;
      case RecordKind::Mark:
        marks.resize(i);
        break;
      case RecordKind::Warning:
        warnings.resize(i);
        break;
      case RecordKind::End:
        ends.resize(i);
        break;
      default:
        break;
    }
  }
};

// Per-file state of the metadata: trace-local ids -> Run-wide objects.
struct TraceBuilder {
  TraceBuilder(model::Run& r, uint32_t p) : run(r), process(p) {}
  model::Run& run;
  uint32_t process;
  std::unordered_map<uint64_t, uint32_t> devices;  // trace device id -> Device::id
  std::unordered_map<uint64_t, size_t> ranges;     // open range: Run range id -> index
  std::unordered_map<uint64_t, size_t> programs;   // trace program id -> index
  bool end_seen = false;
  uint64_t records = 0;
  // Launches/transfers read before the device record they name: (index, trace id).
  std::vector<std::pair<size_t, uint64_t>> launch_fixups, transfer_fixups;

  model::Process& proc() { return run.processes[process]; }
  uint32_t device_or_zero(uint64_t local) const {
    auto it = devices.find(local);
    return it == devices.end() ? 0 : it->second;
  }
  // Applies `batch` in its order and empties it.
  void apply(MetaBatch& batch) {
    reserve_more(run.ranges, batch.range_begins.size());
    reserve_more(run.syncs, batch.syncs.size());
    for (auto [kind, i] : batch.order) {
      switch (kind) {
        case RecordKind::Device:
          apply_device(batch.devices[i].first, std::move(batch.devices[i].second));
          break;
        case RecordKind::ClockSync: {
          const ClockSyncRecord& c = batch.clock_syncs[i];
          uint32_t id = device_or_zero(c.device);
          if (id == 0 || !c.has_offset) break;
          model::Device& d = run.devices[id - 1];
          d.has_clock_offset = true;
          d.device_to_host_offset_ns = c.offset_ns;
          d.clock_method = c.method;
          break;
        }
        case RecordKind::Program:
          programs[batch.programs[i].id] = run.programs.size();
          run.programs.push_back(std::move(batch.programs[i]));
          break;
        case RecordKind::Build: {
          BuildRecord& b = batch.builds[i];
          for (uint64_t local : b.devices) b.build.devices.push_back(device_or_zero(local));
          if (b.build.rc == 0) {
            auto it = programs.find(b.build.program_id);
            if (it != programs.end()) run.programs[it->second].options = b.build.options;
          }
          run.builds.push_back(std::move(b.build));
          break;
        }
        case RecordKind::Sync:
          run.syncs.push_back(std::move(batch.syncs[i]));
          break;
        case RecordKind::RangeBegin:
          ranges[batch.range_begins[i].id] = run.ranges.size();
          run.ranges.push_back(std::move(batch.range_begins[i]));
          break;
        case RecordKind::RangeEnd: {
          const RangeEndRecord& e = batch.range_ends[i];
          auto it = ranges.find(e.id);
          if (it == ranges.end()) break;  // begin lost (e.g. dropped): nothing to close
          run.ranges[it->second].host_end_ns = e.end_ns;
          run.ranges[it->second].left_open = e.open;
          ranges.erase(it);  // ended: keeps the index as small as the open ranges
          break;
        }
        case RecordKind::Mark:
          run.marks.push_back(std::move(batch.marks[i]));
          break;
        case RecordKind::Warning:
          proc().warnings.push_back(std::move(batch.warnings[i]));
          break;
        case RecordKind::End:
          proc().incomplete_events = batch.ends[i].incomplete;
          proc().dropped_records = batch.ends[i].dropped;
          end_seen = true;
          break;
        default:
          break;
      }
    }
    batch.clear();
  }

  // Room for `extra` more elements, growing geometrically (an exact reserve per small
  // batch would copy the vector every time).
  template <class V>
  static void reserve_more(V& v, size_t extra) {
    if (v.size() + extra > v.capacity()) v.reserve(std::max(v.size() + extra, 2 * v.capacity()));
  }

  void apply_device(uint64_t local, model::Device d) {
    auto it = devices.find(local);
    if (it != devices.end()) {
      // A repeated device record refreshes the description, the id and clock stay.
      d.id = it->second;
      model::Device& old = run.devices[d.id - 1];
      d.has_clock_offset = old.has_clock_offset;
      d.device_to_host_offset_ns = old.device_to_host_offset_ns;
      d.clock_method = std::move(old.clock_method);
      old = std::move(d);
      return;
    }
    d.id = static_cast<uint32_t>(run.devices.size() + 1);
    devices.emplace(local, d.id);
    run.devices.push_back(std::move(d));
  }

  void finish() {
    for (auto& [i, local] : launch_fixups) run.launches[i].device = device_or_zero(local);
    for (auto& [i, local] : transfer_fixups) run.transfers[i].device = device_or_zero(local);
    launch_fixups.clear();
    transfer_fixups.clear();
  }
};

// Parses one JSON text (a record, the header line, or a whole document) with simdjson
// On-Demand. One instance per thread; the bulk records are decoded into members that are
// reused from record to record so that steady-state parsing does not allocate.
class TraceParser {
 public:
  explicit TraceParser(uint32_t process) : process_(process) {}

  // Where parsed metadata records go (to be applied by a TraceBuilder); null = they are
  // only classified.
  void set_meta(MetaBatch* m) { meta_ = m; }
  // Trace device id -> Device::id used for launches/transfers (read-only while parsing).
  void set_device_map(const std::unordered_map<uint64_t, uint32_t>* m) { device_map_ = m; }

  // Parses the record in text[0, n), after which `readable_after` more bytes may be read.
  // Bulk records end up in launch / transfer, metadata in the MetaBatch; `*closing` tells
  // that "]}" followed the record. Throws RecordError pointing into `text`.
  RecordKind parse_record(const char* text, size_t n, size_t readable_after, bool* closing) {
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

 private:
  bool fast_record(const char* text, size_t n, bool* closing, RecordKind& kind) {
    static constexpr std::string_view kLaunchStart = R"({"type":"launch",)";
    static constexpr std::string_view kRangeStart = R"({"type":"range_)";
    if (n > kLaunchStart.size() &&
        std::memcmp(text, kLaunchStart.data(), kLaunchStart.size()) == 0) {
      pending_device_ = 0;
      if (fast_launch(text, n)) {
        *closing = false;
        kind = RecordKind::Launch;
        return true;
      }
    } else if (meta_ && n > kRangeStart.size() &&
               std::memcmp(text, kRangeStart.data(), kRangeStart.size()) == 0) {
      // Layer markers come in thousands per iteration: worth a fast path too.
      kind = fast_range(text, n);
      if (kind != RecordKind::Ignored) {
        *closing = false;
        return true;
      }
    }
    return false;
  }

  RecordKind parse_general(const char* text, size_t n, bool* closing) {
    begin(text, n);
    od::object obj = root_object("a record object {\"type\":...}");
    RecordKind kind;
    {
      od::value tv;
      error_code e = obj.find_field_unordered(tf::field::kType).get(tv);
      if (e == simdjson::NO_SUCH_FIELD) fail(text, "expected a \"type\" field in the record");
      if (e) fail_json(e);
      kind = classify(get_string(tv, tf::field::kType));
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

  void parse_body(RecordKind kind, od::object& obj) {
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

 public:
  // Parses the top-level object: the first line with "]}" appended (line mode) or the
  // whole document (`records` then gets every record, as an object text). Throws
  // RecordError.
  template <class OnRecord>
  void parse_top(const char* text, size_t n, model::Process& proc, OnRecord&& on_record) {
    begin(text, n);
    od::object obj = root_object("a clprof trace: a JSON object {\"format\":\"clprof-trace\",...}");
    // The format and version decide whether the rest can be read at all, whatever the
    // key order of a re-formatted document.
    od::value v;
    error_code e = obj.find_field_unordered(tf::top::kFormat).get(v);
    if (e == simdjson::NO_SUCH_FIELD)
      fail(text, "not a clprof trace: expected a \"format\":\"clprof-trace\" field");
    if (e) fail_json(e);
    std::string_view format = get_string(v, tf::top::kFormat);
    if (format != tf::kFormatName)
      fail(where(v), "not a clprof trace: expected \"format\":\"clprof-trace\", got \"" +
                         quoted_snippet(format) + "\"");
    bool ignored;
    if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
    e = obj.find_field_unordered(tf::top::kVersion).get(v);
    if (e == simdjson::NO_SUCH_FIELD) fail(text, "expected a \"version\" field");
    if (e) fail_json(e);
    const char* version_at = where(v);
    int64_t version = get_i64(v, tf::top::kVersion);
    if (version < 1) fail(version_at, "\"version\": expected a positive integer");
    if (version > tf::kVersion)
      fail(version_at, "unsupported trace version " + std::to_string(version) +
                           " (this clprof reads versions <= " + std::to_string(tf::kVersion) +
                           "); use a newer clprof");
    proc.trace_version = static_cast<int>(version);
    if (obj.reset().get(ignored)) fail_json(simdjson::TAPE_ERROR);
    bool has_records = false;
    for_each_field(obj, [&](std::string_view key, od::value& fv) {
      if (key == tf::top::kHeader) {
        parse_header(fv, proc);
      } else if (key == tf::top::kRecords) {
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

  model::Launch launch;
  model::Transfer transfer;
  // Trace device id of the last bulk record when the map did not know it, else 0.
  uint64_t pending_device() const { return pending_device_; }

 private:
  void begin(const char* text, size_t n) {
    text_ = text;
    n_ = n;
    doc_valid_ = false;
    if (auto e = parser_.iterate(text, n, n + kPadding).get(doc_)) fail_json(e);
    doc_valid_ = true;
  }

  od::object root_object(const char* expected) {
    od::object obj;
    error_code e = doc_.get_object().get(obj);
    if (e == simdjson::INCORRECT_TYPE) fail(first_non_space(), std::string("expected ") + expected);
    if (e) fail_json(e);
    return obj;
  }

  const char* first_non_space() const {
    const char* p = text_;
    while (p < text_ + n_ && is_space(*p)) ++p;
    return p;
  }

  // True if "]}" (the end of the records array and of the document) follows.
  bool check_rest() {
    const char* loc = nullptr;
    if (doc_.current_location().get(loc) || loc < text_ || loc >= text_ + n_) return false;
    std::string_view rest = trim(std::string_view(loc, text_ + n_ - loc));
    if (rest.empty()) return false;
    if (rest == "]}") return true;
    fail(loc, "expected the end of the record");
  }

  [[noreturn]] void fail_json(error_code e) {
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

  static const char* where(od::value& v) { return v.raw_json_token().data(); }

  [[noreturn]] static void fail_type(od::value& v, std::string_view key, const char* expected) {
    std::string_view token = v.raw_json_token();
    fail(token.data(), "\"" + std::string(key) + "\": expected " + expected + ", got " +
                           quoted_snippet(trim(token)));
  }

  static uint64_t get_u64(od::value& v, std::string_view key) {
    uint64_t x;
    if (v.get_uint64().get(x)) fail_type(v, key, "an unsigned 64-bit integer");
    return x;
  }
  static int64_t get_i64(od::value& v, std::string_view key) {
    int64_t x;
    if (v.get_int64().get(x)) fail_type(v, key, "a 64-bit integer");
    return x;
  }
  static uint32_t get_u32(od::value& v, std::string_view key) {
    uint64_t x;
    if (v.get_uint64().get(x) || x > std::numeric_limits<uint32_t>::max())
      fail_type(v, key, "an unsigned 32-bit integer");
    return static_cast<uint32_t>(x);
  }
  static int32_t get_i32(od::value& v, std::string_view key) {
    int64_t x;
    if (v.get_int64().get(x) || x < std::numeric_limits<int32_t>::min() ||
        x > std::numeric_limits<int32_t>::max())
      fail_type(v, key, "a 32-bit integer");
    return static_cast<int32_t>(x);
  }
  static bool get_bool(od::value& v, std::string_view key) {
    bool x;
    if (v.get_bool().get(x)) fail_type(v, key, "true or false");
    return x;
  }
  static std::string_view get_string(od::value& v, std::string_view key) {
    std::string_view x;
    if (v.get_string().get(x)) fail_type(v, key, "a string");
    return x;
  }
  static bool is_null(od::value& v, std::string_view key) {
    bool x = false;
    if (v.is_null().get(x)) fail_type(v, key, "null or a value");
    return x;
  }

  // The key as written (no unescaping: schema keys contain no escapes, so a key with an
  // escape simply matches nothing and is ignored like any unknown field).
  std::string_view key_of(od::field& field) {
    const char* k = field.key().raw();
    const char* end = text_ + n_;
    if (k < text_ || k >= end) fail(text_, "invalid JSON (bad key)");
    const void* q = std::memchr(k, '"', static_cast<size_t>(end - k));
    if (!q) fail(k, "invalid JSON (unterminated key)");
    return std::string_view(k, static_cast<size_t>(static_cast<const char*>(q) - k));
  }

  template <class F>
  void for_each_field(od::object& obj, F&& f) {
    for (auto field_result : obj) {
      od::field field;
      if (auto e = std::move(field_result).get(field)) fail_json(e);
      std::string_view key = key_of(field);
      od::value v = field.value();
      f(key, v);
    }
  }

  template <class F>
  void for_each_element(od::value& v, std::string_view key, const char* expected, F&& f) {
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

  void skip_object(od::object& obj) {
    // Walking the fields makes simdjson check the record's syntax before we count it.
    for_each_field(obj, [](std::string_view, od::value&) {});
  }

  void get_u64_array(od::value& v, std::string_view key, std::vector<uint64_t>& out) {
    out.clear();
    for_each_element(v, key, "an array of unsigned integers",
                     [&](od::value& e) { out.push_back(get_u64(e, key)); });
  }

  void get_ranges(od::value& v, std::string_view key, std::vector<uint64_t>& out) {
    out.clear();
    for_each_element(v, key, "an array of range ids",
                     [&](od::value& e) { out.push_back(run_range_id(process_, get_u64(e, key))); });
  }

  // host_ns: [begin, end] for calls, one number for instants.
  void get_host_interval(od::value& v, std::string_view key, int64_t& b, int64_t& e) {
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
  void get_device_times(od::value& v, std::string_view key, int64_t* t4) {
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

  uint32_t map_device(uint64_t local) {
    if (local == 0) return 0;
    if (device_map_) {
      auto it = device_map_->find(local);
      if (it != device_map_->end()) return it->second;
    }
    pending_device_ = local;
    return 0;
  }

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

  void parse_arg(od::value& v, model::KernelArg& a) {
    static constexpr std::string_view kKey = "args";
    int n = 0;
    for_each_element(v, kKey, "an array [kind, ...] per argument", [&](od::value& x) {
      if (n == 0) {
        std::string_view kind = get_string(x, kKey);
        using K = model::KernelArg::Kind;
        if (kind == tf::arg_kind::kScalar)
          a.kind = K::Scalar;
        else if (kind == tf::arg_kind::kBuffer)
          a.kind = K::Buffer;
        else if (kind == tf::arg_kind::kLocal)
          a.kind = K::Local;
        else if (kind == tf::arg_kind::kImage)
          a.kind = K::Image;
        else if (kind == tf::arg_kind::kPipe)
          a.kind = K::Pipe;
        else if (kind == tf::arg_kind::kSvm)
          a.kind = K::Svm;
        else if (kind == tf::arg_kind::kSampler)
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
    l.status.assign(tf::status::kComplete);
    l.rc = 0;
    l.ranges.clear();
    l.duration_override_ns.reset();
    if (!l.extra.empty()) l.extra.clear();
  }

  // Moves surplus argument slots, strings and all, to the spare pool for later launches.
  void trim_args(size_t nargs) {
    while (launch.args.size() > nargs) {
      spare_args_.push_back(std::move(launch.args.back()));
      launch.args.pop_back();
    }
  }

  void parse_launch(od::object& obj) {
    model::Launch& l = launch;
    reset_launch();
    size_t nargs = 0;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kSeq)
        l.seq = get_u64(v, key);
      else if (key == f::kTid)
        l.tid = get_u64(v, key);
      else if (key == f::kRc)
        l.rc = get_i32(v, key);
      else if (key == f::kKernel)
        l.name.assign(get_string(v, key));
      else if (key == f::kKernelId)
        l.kernel_id = get_u64(v, key);
      else if (key == f::kProgramId)
        l.program_id = get_u64(v, key);
      else if (key == f::kQueueId)
        l.queue_id = get_u64(v, key);
      else if (key == f::kContextId)
        l.context_id = get_u64(v, key);
      else if (key == f::kDeviceId)
        l.device = map_device(get_u64(v, key));
      else if (key == f::kGwo) {
        if (is_null(v, key))
          l.gwo.clear();
        else
          get_u64_array(v, key, l.gwo);
      } else if (key == f::kGws)
        get_u64_array(v, key, l.gws);
      else if (key == f::kLws) {
        if (is_null(v, key)) {
          if (l.lws) {
            spare_lws_ = std::move(*l.lws);
            l.lws.reset();
          }
        } else {
          if (!l.lws) l.lws.emplace(std::move(spare_lws_));
          get_u64_array(v, key, *l.lws);
        }
      } else if (key == f::kArgs) {
        nargs = 0;
        for_each_element(v, key, "an array of arguments", [&](od::value& a) {
          parse_arg(a, next_arg(nargs));
          ++nargs;
        });
      } else if (key == f::kHostNs)
        get_host_interval(v, key, l.host_begin_ns, l.host_end_ns);
      else if (key == f::kDeviceNs) {
        int64_t t[4] = {model::kNoTime, model::kNoTime, model::kNoTime, model::kNoTime};
        get_device_times(v, key, t);
        l.queued_ns = t[0];
        l.submit_ns = t[1];
        l.start_ns = t[2];
        l.end_ns = t[3];
      } else if (key == f::kStatus)
        l.status.assign(get_string(v, key));
      else if (key == f::kRanges)
        get_ranges(v, key, l.ranges);
      else if (key == f::kApi)
        l.api.assign(get_string(v, key));
    });
    trim_args(nargs);
  }

  // ---- fast path ----
  // The shim writes launches in one compact shape. This scanner accepts exactly that
  // shape (no whitespace, no escapes, ASCII strings, integers of <= 18 digits, known
  // keys only) and gives up on anything else, in which case the simdjson path parses
  // the record from scratch (and reports errors). It roughly halves the cost per launch.
  class Scan {
   public:
    Scan(const char* p, const char* end) : p_(p), end_(end) {}
    bool at_end() const { return p_ == end_; }
    bool lit(char c) {
      if (p_ < end_ && *p_ == c) {
        ++p_;
        return true;
      }
      return false;
    }
    bool peek(char c) const { return p_ < end_ && *p_ == c; }
    bool str(std::string_view& out) {
      if (!lit('"')) return false;
      const char* s = p_;
      while (p_ < end_) {
        auto c = static_cast<unsigned char>(*p_);
        if (c == '"') {
          out = std::string_view(s, static_cast<size_t>(p_ - s));
          ++p_;
          return true;
        }
        if (c == '\\' || c < 0x20 || c >= 0x80) return false;
        ++p_;
      }
      return false;
    }
    bool key(std::string_view& k) { return str(k) && lit(':'); }
    // Consumes `key` (<= 16 bytes) if the text continues with it: two masked 8-byte
    // compares instead of a memcmp call. Reads 16 bytes: the padding makes that safe.
    bool key16(const char (&bytes)[16], size_t len) {
      if (static_cast<size_t>(end_ - p_) < len) return false;
      uint64_t a0, a1, b0, b1;
      std::memcpy(&a0, p_, 8);
      std::memcpy(&a1, p_ + 8, 8);
      std::memcpy(&b0, bytes, 8);
      std::memcpy(&b1, bytes + 8, 8);
      uint64_t m0 = len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
      uint64_t m1 = len <= 8 ? 0 : len >= 16 ? ~uint64_t{0} : (uint64_t{1} << (8 * (len - 8))) - 1;
      if (((a0 ^ b0) & m0) | ((a1 ^ b1) & m1)) return false;
      p_ += len;
      return true;
    }
    // Consumes `token` if the text continues with it.
    bool token(std::string_view t) {
      if (static_cast<size_t>(end_ - p_) >= t.size() && std::memcmp(p_, t.data(), t.size()) == 0) {
        p_ += t.size();
        return true;
      }
      return false;
    }
    bool u64(uint64_t& v) {
      const char* s = p_;
      uint64_t x = 0;
      // Timestamps have 10+ digits: take 8 at a time when they are there. No bound check:
      // the text is followed by space padding, which stops both loops.
      uint64_t eight;
      std::memcpy(&eight, p_, 8);
      if (all_digits(eight)) {
        x = eight_digits_value(eight);
        p_ += 8;
      }
      while (static_cast<unsigned>(*p_ - '0') < 10) x = x * 10 + static_cast<unsigned>(*p_++ - '0');
      size_t n = static_cast<size_t>(p_ - s);
      if (n == 0 || n > 18 || (n > 1 && *s == '0') || p_ > end_) return false;
      if (p_ < end_ && *p_ != ',' && *p_ != ']' && *p_ != '}') return false;
      v = x;
      return true;
    }
    bool i64(int64_t& v) {
      bool neg = lit('-');
      uint64_t x;
      if (!u64(x)) return false;
      v = neg ? -static_cast<int64_t>(x) : static_cast<int64_t>(x);
      return true;
    }
    bool null() {
      if (end_ - p_ >= 4 && std::memcmp(p_, "null", 4) == 0) {
        p_ += 4;
        return true;
      }
      return false;
    }
    template <class F>
    bool array(F&& element) {
      if (!lit('[')) return false;
      if (lit(']')) return true;
      do {
        if (!element()) return false;
      } while (lit(','));
      return lit(']');
    }

   private:
    // Eight ASCII digits in a little-endian word: every byte in '0'..'9'.
    static bool all_digits(uint64_t w) {
      return ((w & 0xF0F0F0F0F0F0F0F0ull) |
              (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
             0x3333333333333333ull;
    }
    // Their value: pairs, then quads, then the eight, combined by multiply-and-shift.
    static uint64_t eight_digits_value(uint64_t w) {
      w = (w & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
      w = (w & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
      return (w & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
    }
    const char* p_;
    const char* end_;
  };

  bool fast_u64_array(Scan& sc, std::vector<uint64_t>& out) {
    out.clear();
    return sc.array([&] {
      uint64_t x;
      if (!sc.u64(x)) return false;
      out.push_back(x);
      return true;
    });
  }

  // The argument kind of the compact shape; false for anything else (incl. kinds of
  // later versions, which the general path maps to Unset).
  static bool fast_arg_kind(std::string_view k, model::KernelArg::Kind& kind, bool& unset) {
    using K = model::KernelArg::Kind;
    unset = false;
#define CLPROF_KIND_IS(lit) \
  (k.size() == sizeof(lit) - 1 && std::memcmp(k.data(), lit, sizeof(lit) - 1) == 0)
    if (CLPROF_KIND_IS("scalar"))
      kind = K::Scalar;
    else if (CLPROF_KIND_IS("buffer"))
      kind = K::Buffer;
    else if (CLPROF_KIND_IS("local"))
      kind = K::Local;
    else if (CLPROF_KIND_IS("image"))
      kind = K::Image;
    else if (CLPROF_KIND_IS("pipe"))
      kind = K::Pipe;
    else if (CLPROF_KIND_IS("svm"))
      kind = K::Svm;
    else if (CLPROF_KIND_IS("sampler"))
      kind = K::Sampler;
    else if (CLPROF_KIND_IS("unset"))
      unset = true;
    else
      return false;
#undef CLPROF_KIND_IS
    return true;
  }

  bool fast_arg(Scan& sc, model::KernelArg& a) {
    using K = model::KernelArg::Kind;
    if (!sc.lit('[')) return false;
    std::string_view kind, s;
    uint64_t x;
    bool unset;
    if (!sc.str(kind) || !fast_arg_kind(kind, a.kind, unset)) return false;
    if (unset) return sc.lit(']');
    if (!sc.lit(',') || !sc.u64(x) || x > std::numeric_limits<uint32_t>::max()) return false;
    a.size = static_cast<uint32_t>(x);
    switch (a.kind) {
      case K::Scalar:
        if (!sc.lit(',') || !sc.str(s)) return false;
        a.hex.assign(s);
        if (sc.lit(',')) {
          if (!sc.u64(a.value)) return false;
          a.has_value = true;
        }
        break;
      case K::Buffer:
      case K::Image:
      case K::Pipe:
        if (!sc.lit(',') || !sc.u64(a.object_id) || !sc.lit(',') || !sc.u64(a.object_bytes))
          return false;
        break;
      case K::Svm:
        if (!sc.lit(',') || !sc.str(s)) return false;
        a.svm_pointer.assign(s);
        break;
      case K::Sampler:
        if (!sc.lit(',') || !sc.u64(a.object_id)) return false;
        break;
      default:
        break;  // Local: the size is all
    }
    return sc.lit(']');
  }

  enum class LaunchKey : uint8_t {
    Type,
    Seq,
    Tid,
    Rc,
    Kernel,
    KernelId,
    ProgramId,
    QueueId,
    ContextId,
    DeviceId,
    Gwo,
    Gws,
    Lws,
    Args,
    HostNs,
    DeviceNs,
    Status,
    Ranges,
    Api,
    ExecStatus,
    Unknown
  };

  // Dispatch on length first: memcmp of a constant size compiles to a load and compare.
  static LaunchKey launch_key(std::string_view k) {
#define CLPROF_KEY_IS(lit) (std::memcmp(k.data(), lit, sizeof(lit) - 1) == 0)
    switch (k.size()) {
      case 2:
        return CLPROF_KEY_IS("rc") ? LaunchKey::Rc : LaunchKey::Unknown;
      case 3:
        if (CLPROF_KEY_IS("seq")) return LaunchKey::Seq;
        if (CLPROF_KEY_IS("tid")) return LaunchKey::Tid;
        if (CLPROF_KEY_IS("gws")) return LaunchKey::Gws;
        if (CLPROF_KEY_IS("lws")) return LaunchKey::Lws;
        if (CLPROF_KEY_IS("gwo")) return LaunchKey::Gwo;
        if (CLPROF_KEY_IS("api")) return LaunchKey::Api;
        return LaunchKey::Unknown;
      case 4:
        if (CLPROF_KEY_IS("type")) return LaunchKey::Type;
        if (CLPROF_KEY_IS("args")) return LaunchKey::Args;
        return LaunchKey::Unknown;
      case 6:
        if (CLPROF_KEY_IS("kernel")) return LaunchKey::Kernel;
        if (CLPROF_KEY_IS("status")) return LaunchKey::Status;
        if (CLPROF_KEY_IS("ranges")) return LaunchKey::Ranges;
        return LaunchKey::Unknown;
      case 7:
        return CLPROF_KEY_IS("host_ns") ? LaunchKey::HostNs : LaunchKey::Unknown;
      case 8:
        return CLPROF_KEY_IS("queue_id") ? LaunchKey::QueueId : LaunchKey::Unknown;
      case 9:
        if (CLPROF_KEY_IS("kernel_id")) return LaunchKey::KernelId;
        if (CLPROF_KEY_IS("device_id")) return LaunchKey::DeviceId;
        if (CLPROF_KEY_IS("device_ns")) return LaunchKey::DeviceNs;
        return LaunchKey::Unknown;
      case 10:
        if (CLPROF_KEY_IS("program_id")) return LaunchKey::ProgramId;
        if (CLPROF_KEY_IS("context_id")) return LaunchKey::ContextId;
        return LaunchKey::Unknown;
      case 11:
        return CLPROF_KEY_IS("exec_status") ? LaunchKey::ExecStatus : LaunchKey::Unknown;
      default:
        return LaunchKey::Unknown;
    }
#undef CLPROF_KEY_IS
  }

  // {"type":"range_begin","id":N,"parent":N,"name":"..","tid":N,"host_ns":N} or
  // {"type":"range_end","id":N,"tid":N,"host_ns":N}; Ignored = not in that shape.
  RecordKind fast_range(const char* text, size_t n) {
    Scan sc(text, text + n);
    uint64_t id = 0, parent = 0, tid = 0;
    int64_t host = 0;
    std::string_view name;
    auto range_id = [&](uint64_t& x) { return sc.u64(x) && x < (uint64_t{1} << kRangeIdBits); };
    if (sc.token(R"({"type":"range_begin","id":)")) {
      if (!range_id(id) || !sc.token(R"(,"parent":)") || !range_id(parent) ||
          !sc.token(R"(,"name":)") || !sc.str(name) || !sc.token(R"(,"tid":)") || !sc.u64(tid) ||
          !sc.token(R"(,"host_ns":)") || !sc.i64(host) || !sc.lit('}') || !sc.at_end())
        return RecordKind::Ignored;
      model::Range& r = meta_->add(RecordKind::RangeBegin, meta_->range_begins);
      r.id = run_range_id(process_, id);
      r.parent = run_range_id(process_, parent);
      r.name.assign(name);
      r.process = process_;
      r.tid = tid;
      r.host_begin_ns = host;
      return RecordKind::RangeBegin;
    }
    if (sc.token(R"({"type":"range_end","id":)")) {
      if (!range_id(id) || !sc.token(R"(,"tid":)") || !sc.u64(tid) || !sc.token(R"(,"host_ns":)") ||
          !sc.i64(host) || !sc.lit('}') || !sc.at_end())
        return RecordKind::Ignored;
      RangeEndRecord& r = meta_->add(RecordKind::RangeEnd, meta_->range_ends);
      r.id = run_range_id(process_, id);
      r.end_ns = host;
      return RecordKind::RangeEnd;
    }
    return RecordKind::Ignored;
  }

  bool fast_launch(const char* text, size_t n) {
    model::Launch& l = launch;
    reset_launch();
    size_t nargs = 0;
    // The shim's key order: trying the expected key as a literal first skips the key scan
    // and the dispatch for nearly every field.
    struct OrderedKey {
      char bytes[16];  // the key with quotes and colon, zero-filled
      size_t len;
      LaunchKey key;
      constexpr OrderedKey(std::string_view k, LaunchKey lk) : bytes{}, len(k.size()), key(lk) {
        for (size_t i = 0; i < k.size() && i < 16; ++i) bytes[i] = k[i];
      }
    };
    static constexpr OrderedKey kOrder[] = {
        {R"("type":)", LaunchKey::Type},
        {R"("seq":)", LaunchKey::Seq},
        {R"("tid":)", LaunchKey::Tid},
        {R"("rc":)", LaunchKey::Rc},
        {R"("kernel":)", LaunchKey::Kernel},
        {R"("kernel_id":)", LaunchKey::KernelId},
        {R"("program_id":)", LaunchKey::ProgramId},
        {R"("queue_id":)", LaunchKey::QueueId},
        {R"("context_id":)", LaunchKey::ContextId},
        {R"("device_id":)", LaunchKey::DeviceId},
        {R"("gwo":)", LaunchKey::Gwo},
        {R"("gws":)", LaunchKey::Gws},
        {R"("lws":)", LaunchKey::Lws},
        {R"("args":)", LaunchKey::Args},
        {R"("host_ns":)", LaunchKey::HostNs},
        {R"("device_ns":)", LaunchKey::DeviceNs},
        {R"("status":)", LaunchKey::Status},
        {R"("ranges":)", LaunchKey::Ranges},
    };
    constexpr size_t kOrderSize = sizeof kOrder / sizeof kOrder[0];
    size_t expected = 0;
    Scan sc(text, text + n);
    if (!sc.lit('{')) return false;
    do {
      std::string_view key, s;
      uint64_t x;
      LaunchKey lk;
      if (expected < kOrderSize && sc.key16(kOrder[expected].bytes, kOrder[expected].len)) {
        lk = kOrder[expected++].key;
      } else {
        if (!sc.key(key)) return false;
        lk = launch_key(key);
        expected = kOrderSize;
        for (size_t i = 0; i < kOrderSize; ++i)
          if (kOrder[i].key == lk) expected = i + 1;
      }
      bool ok;
      if (lk == LaunchKey::Type)
        ok = sc.str(s) && s == tf::kind::kLaunch;
      else if (lk == LaunchKey::Seq)
        ok = sc.u64(l.seq);
      else if (lk == LaunchKey::Tid)
        ok = sc.u64(l.tid);
      else if (lk == LaunchKey::Rc) {
        int64_t rc = 0;
        ok = sc.i64(rc) && rc >= std::numeric_limits<int32_t>::min() &&
             rc <= std::numeric_limits<int32_t>::max();
        l.rc = static_cast<int32_t>(rc);
      } else if (lk == LaunchKey::Kernel) {
        ok = sc.str(s);
        l.name.assign(s);
      } else if (lk == LaunchKey::KernelId)
        ok = sc.u64(l.kernel_id);
      else if (lk == LaunchKey::ProgramId)
        ok = sc.u64(l.program_id);
      else if (lk == LaunchKey::QueueId)
        ok = sc.u64(l.queue_id);
      else if (lk == LaunchKey::ContextId)
        ok = sc.u64(l.context_id);
      else if (lk == LaunchKey::DeviceId) {
        ok = sc.u64(x);
        l.device = map_device(x);
      } else if (lk == LaunchKey::Gwo) {
        ok = sc.null() ? (l.gwo.clear(), true) : fast_u64_array(sc, l.gwo);
      } else if (lk == LaunchKey::Gws)
        ok = fast_u64_array(sc, l.gws);
      else if (lk == LaunchKey::Lws) {
        if (sc.null()) {
          ok = true;
          if (l.lws) {
            spare_lws_ = std::move(*l.lws);
            l.lws.reset();
          }
        } else {
          if (!l.lws) l.lws.emplace(std::move(spare_lws_));
          ok = fast_u64_array(sc, *l.lws);
        }
      } else if (lk == LaunchKey::Args) {
        nargs = 0;
        ok = sc.array([&] { return fast_arg(sc, next_arg(nargs++)); });
      } else if (lk == LaunchKey::HostNs) {
        int n2 = 0;
        int64_t t[2] = {model::kNoTime, model::kNoTime};
        if (sc.peek('[')) {
          ok = sc.array([&] { return n2 < 2 && sc.i64(t[n2++]); }) && n2 == 2;
        } else {
          ok = sc.i64(t[0]);
          t[1] = t[0];
        }
        l.host_begin_ns = t[0];
        l.host_end_ns = t[1];
      } else if (lk == LaunchKey::DeviceNs) {
        if (sc.null()) {
          ok = true;
          l.queued_ns = l.submit_ns = l.start_ns = l.end_ns = model::kNoTime;
        } else {
          int n4 = 0;
          int64_t t[4] = {model::kNoTime, model::kNoTime, model::kNoTime, model::kNoTime};
          ok = sc.array([&] { return n4 < 4 && sc.i64(t[n4++]); }) && n4 == 4;
          l.queued_ns = t[0];
          l.submit_ns = t[1];
          l.start_ns = t[2];
          l.end_ns = t[3];
        }
      } else if (lk == LaunchKey::Status) {
        ok = sc.str(s);
        l.status.assign(s);
      } else if (lk == LaunchKey::Ranges) {
        l.ranges.clear();
        ok = sc.array([&] {
          if (!sc.u64(x) || x >= (uint64_t{1} << kRangeIdBits)) return false;
          l.ranges.push_back(run_range_id(process_, x));
          return true;
        });
      } else if (lk == LaunchKey::Api) {
        ok = sc.str(s);
        l.api.assign(s);
      } else if (lk == LaunchKey::ExecStatus) {
        int64_t ignored;
        ok = sc.i64(ignored);
      } else {
        return false;  // unknown field: the general path knows how to skip it
      }
      if (!ok) return false;
    } while (sc.lit(','));
    if (!sc.lit('}') || !sc.at_end()) return false;
    trim_args(nargs);
    return true;
  }

  void parse_transfer(od::object& obj) {
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
    t.status.assign(tf::status::kComplete);
    t.rc = 0;
    t.ranges.clear();
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kSeq)
        t.seq = get_u64(v, key);
      else if (key == f::kTid)
        t.tid = get_u64(v, key);
      else if (key == f::kRc)
        t.rc = get_i32(v, key);
      else if (key == f::kApi)
        t.api.assign(get_string(v, key));
      else if (key == f::kOp)
        t.op.assign(get_string(v, key));
      else if (key == f::kQueueId)
        t.queue_id = get_u64(v, key);
      else if (key == f::kDeviceId)
        t.device = map_device(get_u64(v, key));
      else if (key == f::kBytes)
        t.bytes = get_u64(v, key);
      else if (key == f::kBlocking)
        t.blocking = get_bool(v, key);
      else if (key == f::kHostNs)
        get_host_interval(v, key, t.host_begin_ns, t.host_end_ns);
      else if (key == f::kDeviceNs) {
        int64_t x[4] = {model::kNoTime, model::kNoTime, model::kNoTime, model::kNoTime};
        get_device_times(v, key, x);
        t.queued_ns = x[0];
        t.submit_ns = x[1];
        t.start_ns = x[2];
        t.end_ns = x[3];
      } else if (key == f::kStatus)
        t.status.assign(get_string(v, key));
      else if (key == f::kRanges)
        get_ranges(v, key, t.ranges);
    });
  }

  void parse_device(od::object& obj) {
    model::Device d;
    uint64_t local = 0;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace dv = tf::device;
      if (key == tf::field::kId)
        local = get_u64(v, key);
      else if (key == tf::field::kName)
        d.name.assign(get_string(v, key));
      else if (key == dv::kVendor)
        d.vendor.assign(get_string(v, key));
      else if (key == dv::kPlatform)
        d.platform.assign(get_string(v, key));
      else if (key == dv::kPlatformVersion)
        d.platform_version.assign(get_string(v, key));
      else if (key == dv::kVersion)
        d.version.assign(get_string(v, key));
      else if (key == dv::kDriverVersion)
        d.driver_version.assign(get_string(v, key));
      else if (key == dv::kDeviceType)
        d.type.assign(get_string(v, key));
      else if (key == dv::kComputeUnits)
        d.compute_units = get_u32(v, key);
      else if (key == dv::kMaxClockMhz)
        d.max_clock_mhz = get_u32(v, key);
      else if (key == dv::kGlobalMemBytes)
        d.global_mem_bytes = get_u64(v, key);
      else if (key == dv::kLocalMemBytes)
        d.local_mem_bytes = get_u64(v, key);
    });
    auto& slot = meta_->add(RecordKind::Device, meta_->devices);
    slot.first = local;
    slot.second = std::move(d);
  }

  void parse_clock_sync(od::object& obj) {
    ClockSyncRecord& c = meta_->add(RecordKind::ClockSync, meta_->clock_syncs);
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      if (key == tf::field::kDeviceId)
        c.device = get_u64(v, key);
      else if (key == tf::field::kOffsetNs) {
        c.offset_ns = get_i64(v, key);
        c.has_offset = true;
      } else if (key == tf::field::kMethod)
        c.method.assign(get_string(v, key));
    });
  }

  void parse_program(od::object& obj) {
    model::Program& p = meta_->add(RecordKind::Program, meta_->programs);
    p.process = process_;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kId)
        p.id = get_u64(v, key);
      else if (key == f::kOrigin)
        p.origin.assign(get_string(v, key));
      else if (key == f::kSourceHash)
        p.source_hash.assign(get_string(v, key));
      else if (key == f::kSourceBytes)
        p.source_bytes = get_u64(v, key);
      else if (key == f::kSource)
        p.source.assign(get_string(v, key));
    });
  }

  void parse_build(od::object& obj) {
    BuildRecord& rec = meta_->add(RecordKind::Build, meta_->builds);
    model::Build& b = rec.build;
    b.process = process_;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kProgramId)
        b.program_id = get_u64(v, key);
      else if (key == f::kApi)
        b.api.assign(get_string(v, key));
      else if (key == f::kOptions)
        b.options.assign(get_string(v, key));
      else if (key == f::kDeviceIds) {
        for_each_element(v, key, "an array of device ids",
                         [&](od::value& e) { rec.devices.push_back(get_u64(e, key)); });
      } else if (key == f::kHostNs)
        get_host_interval(v, key, b.host_begin_ns, b.host_end_ns);
      else if (key == f::kRc)
        b.rc = get_i32(v, key);
      else if (key == f::kKernels) {
        for_each_element(v, key, "an array of kernel names",
                         [&](od::value& e) { b.kernels.emplace_back(get_string(e, key)); });
      }
    });
  }

  void parse_sync(od::object& obj) {
    model::Sync& s = meta_->add(RecordKind::Sync, meta_->syncs);
    s.process = process_;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kSeq)
        s.seq = get_u64(v, key);
      else if (key == f::kTid)
        s.tid = get_u64(v, key);
      else if (key == f::kRc)
        s.rc = get_i32(v, key);
      else if (key == f::kApi)
        s.api.assign(get_string(v, key));
      else if (key == f::kQueueId)
        s.queue_id = get_u64(v, key);
      else if (key == f::kHostNs)
        get_host_interval(v, key, s.host_begin_ns, s.host_end_ns);
    });
  }

  uint64_t get_range_id(od::value& v, std::string_view key) {
    const char* at = where(v);
    uint64_t local = get_u64(v, key);
    if (local >= (uint64_t{1} << kRangeIdBits))
      fail(at, "\"" + std::string(key) + "\": range id too large");
    return run_range_id(process_, local);
  }

  void parse_range_begin(od::object& obj) {
    model::Range& r = meta_->add(RecordKind::RangeBegin, meta_->range_begins);
    r.process = process_;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kId)
        r.id = get_range_id(v, key);
      else if (key == f::kParent)
        r.parent = get_range_id(v, key);
      else if (key == f::kName)
        r.name.assign(get_string(v, key));
      else if (key == f::kTid)
        r.tid = get_u64(v, key);
      else if (key == f::kHostNs) {
        int64_t e;
        get_host_interval(v, key, r.host_begin_ns, e);
      }
    });
  }

  void parse_range_end(od::object& obj) {
    RangeEndRecord& r = meta_->add(RecordKind::RangeEnd, meta_->range_ends);
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kId)
        r.id = get_range_id(v, key);
      else if (key == f::kOpen)
        r.open = get_bool(v, key);
      else if (key == f::kHostNs) {
        int64_t b;
        get_host_interval(v, key, b, r.end_ns);
      }
    });
  }

  void parse_mark(od::object& obj) {
    model::Run::Mark& m = meta_->add(RecordKind::Mark, meta_->marks);
    m.process = process_;
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      namespace f = tf::field;
      if (key == f::kName)
        m.name.assign(get_string(v, key));
      else if (key == f::kTid)
        m.tid = get_u64(v, key);
      else if (key == f::kHostNs) {
        int64_t e;
        get_host_interval(v, key, m.host_ns, e);
      }
    });
  }

  void parse_warning(od::object& obj) {
    std::string& message = meta_->add(RecordKind::Warning, meta_->warnings);
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      if (key == tf::field::kMessage) message.assign(get_string(v, key));
    });
  }

  void parse_end(od::object& obj) {
    EndRecord& e = meta_->add(RecordKind::End, meta_->ends);
    for_each_field(obj, [&](std::string_view key, od::value& v) {
      if (key == tf::field::kIncomplete)
        e.incomplete = get_u64(v, key);
      else if (key == tf::field::kDropped)
        e.dropped = get_u64(v, key);
    });
  }

  void parse_header(od::value& hv, model::Process& proc) {
    od::object h;
    if (auto e = hv.get_object().get(h)) {
      if (e == simdjson::INCORRECT_TYPE) fail_type(hv, tf::top::kHeader, "an object");
      fail_json(e);
    }
    for_each_field(h, [&](std::string_view key, od::value& v) {
      namespace hd = tf::header;
      if (key == hd::kPid)
        proc.pid = get_i64(v, key);
      else if (key == hd::kStartUnixNs)
        proc.start_unix_ns = get_i64(v, key);
      else if (key == hd::kHostStartNs)
        proc.host_start_ns = get_i64(v, key);
      else if (key == hd::kHostName)
        proc.host_name.assign(get_string(v, key));
      else if (key == hd::kCommandLine) {
        proc.command_line.clear();
        for_each_element(v, key, "an array of strings",
                         [&](od::value& e) { proc.command_line.emplace_back(get_string(e, key)); });
      }
    });
  }

  uint32_t process_;
  MetaBatch* meta_ = nullptr;
  const std::unordered_map<uint64_t, uint32_t>* device_map_ = nullptr;
  uint64_t pending_device_ = 0;
  od::parser parser_;
  od::document doc_;
  bool doc_valid_ = false;
  const char* text_ = nullptr;
  size_t n_ = 0;
  std::vector<model::KernelArg> spare_args_;
  std::vector<uint64_t> spare_lws_;
  PaddedText copy_;
};

// ---- line mode ---------------------------------------------------------------------

// True if the first line has the shim's shape: the document opened up to "records":[.
bool is_line_mode_header(std::string_view first_line) {
  std::string_view t = trim(first_line);
  return t.size() >= 2 && t.front() == '{' && t.back() == '[';
}

// One line of the record section, as the shim writes it: `{record},`, the last record
// followed by `]}`, or `]}` alone.
enum class LineOutcome { Blank, Record, Closing, Cut };

// Sequential reading of record lines: metadata applied at once, bulk records handed to
// `on_bulk`. Used for the in-memory path and the streaming prefix.
class SequentialLines {
 public:
  explicit SequentialLines(TraceBuilder& b) : builder_(b), parser_(b.process) {
    parser_.set_meta(&batch_);
    parser_.set_device_map(&b.devices);
  }

  // `offset` is the line's absolute byte position, `terminated` false for a last line
  // without "\n", `readable_after` how many bytes after the line may be read.
  // Throws PositionedError.
  template <class OnBulk>
  LineOutcome process(std::string_view line, uint64_t offset, bool terminated,
                      size_t readable_after, OnBulk&& on_bulk) {
    std::string_view t = trim(line);
    if (t.empty()) return LineOutcome::Blank;
    uint64_t t_offset = offset + static_cast<uint64_t>(t.data() - line.data());
    if (closed_) throw PositionedError{t_offset, "unexpected content after the end of the trace"};
    if (t == "]}") {
      closed_ = true;
      return LineOutcome::Closing;
    }
    bool comma = t.back() == ',';
    if (comma) t.remove_suffix(1);
    const char* text = t.data();
    readable_after += static_cast<size_t>(line.data() + line.size() - (t.data() + t.size()));
    bool closing = false;
    RecordKind kind;
    try {
      kind = parser_.parse_record(text, t.size(), readable_after, &closing);
    } catch (RecordError& e) {
      // A last line without newline that does not parse is where the writer was cut off.
      if (!terminated) return LineOutcome::Cut;
      uint64_t rel = e.where && e.where >= text && e.where <= text + t.size()
                         ? static_cast<uint64_t>(e.where - text)
                         : 0;
      throw PositionedError{t_offset + rel, std::move(e.message)};
    }
    if (closing && comma)
      throw PositionedError{t_offset + t.size(), "expected a newline after the end of the records"};
    if (closing) closed_ = true;
    ++records_;
    if (is_bulk(kind))
      on_bulk(kind, parser_);
    else
      builder_.apply(batch_);
    return closing ? LineOutcome::Closing : LineOutcome::Record;
  }

  uint64_t records() const { return records_; }
  bool closed() const { return closed_; }

 private:
  TraceBuilder& builder_;
  MetaBatch batch_;
  TraceParser parser_;
  uint64_t records_ = 0;
  bool closed_ = false;
};

// (line, column), both 1-based, of byte `pos` of `content`.
std::pair<size_t, size_t> locate(std::string_view content, uint64_t pos) {
  pos = std::min<uint64_t>(pos, content.size());
  size_t line = 1 + static_cast<size_t>(std::count(content.begin(), content.begin() + pos, '\n'));
  size_t line_start = content.rfind('\n', pos == 0 ? std::string_view::npos : pos - 1);
  if (pos == 0) line_start = std::string_view::npos;
  size_t column = line_start == std::string_view::npos ? pos + 1 : pos - line_start;
  return {line, column};
}

void warn_if_truncated(const std::string& path, TraceBuilder& b, uint64_t records,
                       Diagnostics& diagnostics) {
  model::Process& p = b.proc();
  p.truncated = !b.end_seen;
  if (p.truncated)
    diagnostics.warnings.push_back(path + ": trace is truncated (killed?): read " +
                                   std::to_string(records) + " records");
}

model::Process& new_process(model::Run& run, const std::string& path) {
  model::Process& p = run.processes.emplace_back();
  p.source = path;
  p.source_format = std::string(tf::kFormatName);
  return p;
}

const char kEmptyMessage[] = "empty file: expected a clprof trace";

// The in-memory read; throws PositionedError.
void read_content(const std::string& path, std::string_view content, model::Run& run,
                  Diagnostics& diagnostics) {
  if (trim(content).empty()) throw PositionedError{0, kEmptyMessage};
  size_t nl = content.find('\n');
  std::string_view first = content.substr(0, nl);
  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  TraceBuilder builder(run, process);

  if (!is_line_mode_header(first)) {
    // Re-formatted document: parse it whole, each record through the same record parser.
    simdjson::padded_string doc(content);
    TraceParser top(process);
    TraceParser records(process);
    MetaBatch batch;
    records.set_meta(&batch);
    records.set_device_map(&builder.devices);
    uint64_t count = 0;
    try {
      top.parse_top(doc.data(), doc.size(), run.processes[process], [&](std::string_view raw) {
        const char* text = raw.data();
        bool closing;
        RecordKind kind;
        try {
          kind = records.parse_record(text, raw.size(), 0, &closing);
        } catch (RecordError& e) {
          uint64_t rel = e.where && e.where >= text && e.where <= text + raw.size()
                             ? static_cast<uint64_t>(e.where - text)
                             : 0;
          throw PositionedError{static_cast<uint64_t>(raw.data() - doc.data()) + rel, e.message};
        }
        ++count;
        builder.apply(batch);
        if (kind == RecordKind::Launch) {
          if (records.pending_device())
            builder.launch_fixups.emplace_back(run.launches.size(), records.pending_device());
          run.launches.push_back(records.launch);
        } else if (kind == RecordKind::Transfer) {
          if (records.pending_device())
            builder.transfer_fixups.emplace_back(run.transfers.size(), records.pending_device());
          run.transfers.push_back(records.transfer);
        }
      });
    } catch (RecordError& e) {
      uint64_t rel = e.where && e.where >= doc.data() && e.where <= doc.data() + doc.size()
                         ? static_cast<uint64_t>(e.where - doc.data())
                         : 0;
      throw PositionedError{rel, e.message};
    }
    builder.finish();
    warn_if_truncated(path, builder, count, diagnostics);
    return;
  }

  {
    PaddedText buf;
    const char* text = buf.append_and_assign(first, "]}");
    TraceParser top(process);
    try {
      top.parse_top(text, first.size() + 2, run.processes[process], [](std::string_view) {});
    } catch (RecordError& e) {
      uint64_t rel = e.where && e.where >= text && e.where <= text + first.size()
                         ? static_cast<uint64_t>(e.where - text)
                         : 0;
      throw PositionedError{rel, e.message};
    }
  }
  SequentialLines lines(builder);
  // No newline after the header: cut right after it; the loop below reads nothing.
  size_t pos = nl == std::string_view::npos ? content.size() : nl + 1;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    bool terminated = end != std::string_view::npos;
    if (!terminated) end = content.size();
    LineOutcome outcome = lines.process(
        content.substr(pos, end - pos), pos, terminated, content.size() - end,
        [&](RecordKind kind, TraceParser& p) {
          if (kind == RecordKind::Launch) {
            if (p.pending_device())
              builder.launch_fixups.emplace_back(run.launches.size(), p.pending_device());
            run.launches.push_back(p.launch);
          } else {
            if (p.pending_device())
              builder.transfer_fixups.emplace_back(run.transfers.size(), p.pending_device());
            run.transfers.push_back(p.transfer);
          }
        });
    if (outcome == LineOutcome::Cut) break;
    pos = end + 1;
  }
  builder.finish();
  warn_if_truncated(path, builder, lines.records(), diagnostics);
}

// ---- streaming ---------------------------------------------------------------------

class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw InputError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat st;
    if (::fstat(fd_, &st) != 0) {
      int err = errno;
      ::close(fd_);
      throw InputError(path, 0, 0, std::string("cannot stat: ") + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
      ::close(fd_);
      throw InputError(path, 0, 0, "cannot read: Is a directory");
    }
    if (!S_ISREG(st.st_mode)) {
      // Reading needs the size up front (and several passes): pipes cannot do that.
      ::close(fd_);
      throw InputError(path, 0, 0, "cannot read: not a regular file (save the trace to a file)");
    }
    size_ = static_cast<uint64_t>(st.st_size);
    // The streaming readers go front to back; a larger readahead window helps.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  ~File() { ::close(fd_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  int fd() const { return fd_; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Reads [offset, offset+n) fully (short only at end of file).
  size_t read_at(char* dst, size_t n, uint64_t offset) const {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        throw InputError(path_, 0, 0, std::string("cannot read: ") + std::strerror(errno));
      }
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    return done;
  }

  // (line, column) of byte `pos`, by counting newlines before it: error path only.
  std::pair<size_t, size_t> locate(uint64_t pos) const {
    pos = std::min(pos, size_);
    std::vector<char> block(size_t{1} << 20);
    size_t line = 1;
    uint64_t line_start = 0;
    for (uint64_t at = 0; at < pos;) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(block.size(), pos - at));
      size_t got = read_at(block.data(), want, at);
      if (got == 0) break;
      for (size_t i = 0; i < got; ++i)
        if (block[i] == '\n') {
          ++line;
          line_start = at + i + 1;
        }
      at += got;
    }
    return {line, static_cast<size_t>(pos - line_start + 1)};
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Lines of a file from a start offset, read in chunks into one buffer that grows only for
// a line longer than the chunk.
class LineReader {
 public:
  // Bytes after the end of any returned line that may be read (not part of the data):
  // lets the record parser work in place.
  static constexpr size_t kSlack = kPadding;

  LineReader(const File& file, uint64_t start, size_t chunk_bytes)
      : file_(file),
        next_read_(start),
        cap_(std::max<size_t>(chunk_bytes, 16)),
        buf_(cap_ + kSlack) {}

  // Absolute offset of the next line.
  uint64_t position() const { return next_read_ - (fill_ - pos_); }

  bool next(std::string_view& line, bool& terminated) {
    for (;;) {
      if (pos_ < fill_) {
        const char* start = buf_.data() + pos_;
        const void* nl = std::memchr(start, '\n', fill_ - pos_);
        if (nl) {
          size_t len = static_cast<size_t>(static_cast<const char*>(nl) - start);
          line = std::string_view(start, len);
          pos_ += len + 1;
          terminated = true;
          return true;
        }
      }
      if (eof_ || next_read_ >= file_.size()) {
        if (pos_ >= fill_) return false;
        line = std::string_view(buf_.data() + pos_, fill_ - pos_);
        pos_ = fill_;
        terminated = false;
        return true;
      }
      if (pos_ > 0) {
        std::memmove(buf_.data(), buf_.data() + pos_, fill_ - pos_);
        fill_ -= pos_;
        pos_ = 0;
      }
      if (fill_ == cap_) {
        cap_ *= 2;
        buf_.resize(cap_ + kSlack);
      }
      size_t want =
          static_cast<size_t>(std::min<uint64_t>(cap_ - fill_, file_.size() - next_read_));
      size_t got = file_.read_at(buf_.data() + fill_, want, next_read_);
      eof_ = got < want;  // the file shrank under us: what we have is all there is
      fill_ += got;
      next_read_ += got;
    }
  }

 private:
  const File& file_;
  uint64_t next_read_;
  size_t cap_;  // data capacity; buf_ has kSlack more
  std::vector<char> buf_;
  size_t pos_ = 0, fill_ = 0;
  bool eof_ = false;
};

// What one streaming thread found in its byte range.
struct WorkerResult {
  std::unique_ptr<Analysis> analysis;
  MetaBatch meta;  // parsed metadata, applied in file order afterwards
  uint64_t records = 0;
  uint64_t last_record_offset = 0;
  uint64_t closing_offset = std::numeric_limits<uint64_t>::max();
  bool cut = false;  // the file ends in a partial line
  std::vector<uint64_t> missing_devices;
  bool has_error = false;
  PositionedError error{0, {}};
  std::exception_ptr other_error;
};

// Reads the lines that start in [begin, stop) (the first one after `begin` - 1 when
// `skip_partial`: that line belongs to the previous range).
void stream_range(const File& file, uint64_t begin, uint64_t stop, bool skip_partial,
                  size_t chunk_bytes, uint32_t process,
                  const std::unordered_map<uint64_t, uint32_t>& devices, bool keep_metadata,
                  std::atomic<bool>& abort, WorkerResult& out) {
  try {
    TraceParser parser(process);
    parser.set_device_map(&devices);
    if (keep_metadata) parser.set_meta(&out.meta);
    LineReader reader(file, begin, chunk_bytes);
    std::string_view line;
    bool terminated;
    if (skip_partial && !reader.next(line, terminated)) return;
    uint64_t n = 0;
    while (reader.position() < stop) {
      uint64_t offset = reader.position();
      if (!reader.next(line, terminated)) break;
      // Checking the flag every few thousand lines keeps it off the hot path.
      if ((++n & 4095) == 0 && abort.load(std::memory_order_relaxed)) return;
      std::string_view t = trim(line);
      if (t.empty()) continue;
      uint64_t t_offset = offset + static_cast<uint64_t>(t.data() - line.data());
      if (t == "]}") {
        out.closing_offset = std::min(out.closing_offset, t_offset);
        continue;
      }
      bool comma = t.back() == ',';
      std::string_view rec = comma ? t.substr(0, t.size() - 1) : t;
      const char* text = rec.data();
      bool closing = false;
      RecordKind kind;
      try {
        kind = parser.parse_record(text, rec.size(), LineReader::kSlack, &closing);
        if (closing && comma)
          fail(text + rec.size(), "expected a newline after the end of the records");
      } catch (RecordError& e) {
        // A last line without newline that does not parse is where the writer was cut off.
        if (!terminated) {
          out.cut = true;
          break;
        }
        uint64_t rel = e.where && e.where >= text && e.where <= text + rec.size()
                           ? static_cast<uint64_t>(e.where - text)
                           : 0;
        out.has_error = true;
        out.error = PositionedError{t_offset + rel, std::move(e.message)};
        abort.store(true, std::memory_order_relaxed);
        return;
      }
      ++out.records;
      out.last_record_offset = t_offset;
      if (closing) out.closing_offset = std::min(out.closing_offset, t_offset + rec.size());
      if (kind == RecordKind::Launch)
        out.analysis->add_launch(parser.launch);
      else if (kind == RecordKind::Transfer)
        out.analysis->add_transfer(parser.transfer);
      else
        continue;
      if (parser.pending_device()) {
        auto& m = out.missing_devices;
        if (std::find(m.begin(), m.end(), parser.pending_device()) == m.end())
          m.push_back(parser.pending_device());
      }
    }
  } catch (...) {
    out.other_error = std::current_exception();
    abort.store(true, std::memory_order_relaxed);
  }
}

[[noreturn]] void throw_at(const File& file, const PositionedError& e) {
  auto [line, column] = file.locate(e.position);
  throw InputError(file.path(), line, column, e.message);
}

std::unique_ptr<Analysis> stream_file(const File& file, model::Run& run,
                                      const AnalysisFactory& factory, Diagnostics& diagnostics,
                                      const detail::TraceStreamTuning& tuning) {
  const std::string& path = file.path();
  if (file.size() == 0) throw InputError(path, 1, 1, kEmptyMessage);

  bool line_mode = false;
  {
    // Look for the header line's end without reading a whole one-line document.
    std::vector<char> probe(
        static_cast<size_t>(std::min<uint64_t>(file.size(), kMaxHeaderLineBytes)));
    size_t got = file.read_at(probe.data(), probe.size(), 0);
    const void* nl = std::memchr(probe.data(), '\n', got);
    line_mode =
        nl && is_line_mode_header(std::string_view(
                  probe.data(), static_cast<size_t>(static_cast<const char*>(nl) - probe.data())));
  }
  LineReader head(file, 0, tuning.chunk_bytes);
  std::string_view first;
  bool terminated = false;
  if (line_mode) head.next(first, terminated);
  if (!line_mode) {
    // Not the shim's layout (re-formatted, or not a trace at all): the in-memory path
    // reads it, then the bulk records are fed and dropped again.
    std::string content(static_cast<size_t>(file.size()), '\0');
    content.resize(file.read_at(content.data(), content.size(), 0));
    size_t launches_before = run.launches.size(), transfers_before = run.transfers.size();
    clprof_trace_reader().read(path, content, run, diagnostics);
    auto analysis = factory();
    for (size_t i = launches_before; i < run.launches.size(); ++i)
      analysis->add_launch(run.launches[i]);
    for (size_t i = transfers_before; i < run.transfers.size(); ++i)
      analysis->add_transfer(run.transfers[i]);
    run.launches.resize(launches_before);
    run.transfers.resize(transfers_before);
    return analysis;
  }

  auto process = static_cast<uint32_t>(run.processes.size());
  new_process(run, path);
  TraceBuilder builder(run, process);
  {
    PaddedText buf;
    const char* text = buf.append_and_assign(first, "]}");
    TraceParser top(process);
    try {
      top.parse_top(text, first.size() + 2, run.processes[process], [](std::string_view) {});
    } catch (RecordError& e) {
      uint64_t rel = e.where && e.where >= text && e.where <= text + first.size()
                         ? static_cast<uint64_t>(e.where - text)
                         : 0;
      throw_at(file, PositionedError{rel, e.message});
    }
  }

  // The prefix up to the first bulk record is read here, in order: it holds the device
  // records, so the threads can map device ids without waiting for one another.
  auto main_analysis = factory();
  SequentialLines lines(builder);
  uint64_t closing_offset = std::numeric_limits<uint64_t>::max();
  uint64_t last_record = 0;
  bool cut = false, saw_bulk = false;
  uint64_t first_bulk_offset = 0;
  std::vector<uint64_t> missing;
  try {
    std::string_view line;
    while (!saw_bulk) {
      uint64_t offset = head.position();
      if (!head.next(line, terminated)) break;
      LineOutcome o = lines.process(line, offset, terminated, LineReader::kSlack,
                                    [&](RecordKind kind, TraceParser& p) {
                                      saw_bulk = true;
                                      first_bulk_offset = offset;
                                      if (p.pending_device()) missing.push_back(p.pending_device());
                                      if (kind == RecordKind::Launch)
                                        main_analysis->add_launch(p.launch);
                                      else
                                        main_analysis->add_transfer(p.transfer);
                                    });
      if (o == LineOutcome::Cut) cut = true;
      if (o == LineOutcome::Closing) closing_offset = std::min(closing_offset, offset);
      if (o == LineOutcome::Record) last_record = offset;
    }
  } catch (PositionedError& e) {
    throw_at(file, e);
  }
  uint64_t prefix_end = head.position();
  const bool prefix_cut = cut;
  uint64_t records = lines.records();

  std::vector<WorkerResult> results;
  auto run_workers = [&](bool keep_metadata) {
    uint64_t remaining = file.size() > prefix_end ? file.size() - prefix_end : 0;
    unsigned threads = std::max(1u, tuning.threads);
    uint64_t per = std::max<uint64_t>(1, tuning.min_bytes_per_thread);
    threads =
        static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(1, remaining / per)));
    results.clear();
    results.resize(threads);
    for (auto& r : results) r.analysis = factory();
    if (remaining == 0 || prefix_cut) return;
    std::atomic<bool> abort{false};
    std::vector<std::thread> pool;
    std::vector<uint64_t> bounds(threads + 1);
    for (unsigned i = 0; i <= threads; ++i) bounds[i] = prefix_end + remaining * i / threads;
    try {
      for (unsigned i = 1; i < threads; ++i) {
        pool.emplace_back(stream_range, std::cref(file), bounds[i] - 1, bounds[i + 1], true,
                          tuning.chunk_bytes, process, std::cref(builder.devices), keep_metadata,
                          std::ref(abort), std::ref(results[i]));
      }
    } catch (...) {
      // No thread may outlive this frame (they reference it): stop and join the started ones.
      abort.store(true);
      for (auto& t : pool) t.join();
      throw;
    }
    stream_range(file, bounds[0], bounds[1], false, tuning.chunk_bytes, process, builder.devices,
                 keep_metadata, abort, results[0]);
    for (auto& t : pool) t.join();
    for (auto& r : results)
      if (r.other_error) std::rethrow_exception(r.other_error);
    const PositionedError* first_error = nullptr;
    for (auto& r : results)
      if (r.has_error && (!first_error || r.error.position < first_error->position))
        first_error = &r.error;
    if (first_error) throw_at(file, *first_error);
  };
  run_workers(true);

  for (auto& r : results) {
    builder.apply(r.meta);
    r.meta = MetaBatch();  // release the drained vectors' memory now
    records += r.records;
    cut = cut || r.cut;
    closing_offset = std::min(closing_offset, r.closing_offset);
    if (r.records) last_record = std::max(last_record, r.last_record_offset);
    missing.insert(missing.end(), r.missing_devices.begin(), r.missing_devices.end());
  }
  if (closing_offset != std::numeric_limits<uint64_t>::max() && last_record > closing_offset)
    throw_at(file, PositionedError{last_record, "unexpected content after the end of the trace"});

  bool rerun = false;
  for (uint64_t local : missing)
    if (builder.devices.count(local)) rerun = true;
  if (rerun) {
    // A launch came before the record of its device: now that every device is known,
    // read the bulk records again into fresh analyses (rare; writers emit devices first).
    // The metadata is complete already, so the workers start at the first bulk record.
    main_analysis = factory();
    prefix_end = first_bulk_offset;
    run_workers(false);
  }

  for (auto& r : results) main_analysis->merge(std::move(*r.analysis));
  builder.finish();
  warn_if_truncated(path, builder, records, diagnostics);
  return main_analysis;
}

}  // namespace

std::string_view ClprofTraceReader::description() const {
  return "clprof trace (libclprof.so, one JSON record per line)";
}

bool ClprofTraceReader::sniff(std::string_view head) const {
  std::string_view t = head;
  if (t.substr(0, 3) == "\xEF\xBB\xBF") t.remove_prefix(3);
  while (!t.empty() && is_space(t.front())) t.remove_prefix(1);
  if (t.empty() || t.front() != '{') return false;
  return t.find("\"clprof-trace\"") != std::string_view::npos;
}

void ClprofTraceReader::read(const std::string& path, std::string_view content, model::Run& run,
                             Diagnostics& diagnostics) const {
  try {
    read_content(path, content, run, diagnostics);
  } catch (PositionedError& e) {
    auto [line, column] = locate(content, e.position);
    throw InputError(path, line, column, e.message);
  }
}

const Reader& clprof_trace_reader() {
  static const ClprofTraceReader reader;
  return reader;
}

namespace detail {

std::unique_ptr<Analysis> stream_clprof_trace_file(const std::string& path, model::Run& run,
                                                   const AnalysisFactory& factory,
                                                   Diagnostics& diagnostics,
                                                   const TraceStreamTuning& tuning) {
  File file(path);
  return stream_file(file, run, factory, diagnostics, tuning);
}

}  // namespace detail

}  // namespace clprof::readers
