// The fast path of the clprof trace reader: the shim writes launches (and range markers)
// in one compact shape. This scanner accepts exactly that shape (no whitespace, no
// escapes, ASCII strings, integers of <= 18 digits, known keys only) and gives up on
// anything else, in which case the simdjson path (clprof_trace_records.cpp) parses the
// record from scratch (and reports errors). It roughly halves the cost per launch.
#include <cstring>
#include <limits>
#include <string_view>

#include "clprof/trace_schema.hpp"
#include "readers/clprof_trace/records.hpp"

namespace clprof::readers::detail {

namespace tf = clprof::trace;

namespace {

// A cursor over text[p, end) that is followed by at least 16 readable bytes of padding
// (spaces or the next line): each method consumes its token and returns true, or returns
// false (leaving the position unspecified).
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
            (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) == 0x3333333333333333ull;
  }
  // Their value: pairs, then quads, then the eight, combined by multiply-and-shift.
  static uint64_t eight_digits_value(uint64_t w) {
    w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
    w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    return ((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
  }
  const char* p_;
  const char* end_;
};

// [n,...] of unsigned integers into `out` (cleared first).
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
bool fast_arg_kind(std::string_view k, model::KernelArg::Kind& kind, bool& unset) {
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

// One argument [kind, size, ...] into `a` (reset by the caller).
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

// The keys of a launch record ("exec_status", an integer, is skipped: the model has no
// field for it and the general path ignores it too).
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
LaunchKey launch_key(std::string_view k) {
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

}  // namespace

bool TraceParser::fast_record(const char* text, size_t n, bool* closing, RecordKind& kind) {
  static constexpr std::string_view kLaunchStart = R"({"type":"launch",)";
  static constexpr std::string_view kRangeStart = R"({"type":"range_)";
  if (n > kLaunchStart.size() && std::memcmp(text, kLaunchStart.data(), kLaunchStart.size()) == 0) {
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

// {"type":"range_begin","id":N,"parent":N,"name":"..","tid":N,"host_ns":N} or
// {"type":"range_end","id":N,"tid":N,"host_ns":N}; Ignored = not in that shape.
RecordKind TraceParser::fast_range(const char* text, size_t n) {
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

bool TraceParser::fast_launch(const char* text, size_t n) {
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
    uint64_t x = 0;  // map_device(x) runs even when the scan of x failed
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
      ok = sc.str(s) && s == tf::launch::kTypeName;
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

}  // namespace clprof::readers::detail
