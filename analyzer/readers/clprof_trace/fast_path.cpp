// The fast path of the clprof trace reader: the shim writes launches (and range markers)
// in one compact shape. This scanner accepts exactly that shape (no whitespace, no
// escapes, ASCII strings, integers of <= 18 digits, the schema's keys only) for records
// that are valid by the schema (trace_schema.hpp: types, ranges, required fields, no key
// twice), and gives up on anything else, in which case the general path (records.cpp)
// parses the record from scratch and reports what is wrong. So both read every record
// alike. Keys and their order come from the schema tables. It roughly halves the cost per
// launch.
#include <cstring>
#include <limits>
#include <string_view>

#include "clprof/trace_schema.hpp"
#include "readers/clprof_trace/records.hpp"
#include "readers/clprof_trace/schema_field.hpp"

namespace clprof::readers::detail {

namespace ts = clprof::trace;

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
  __attribute__((always_inline)) bool str(std::string_view& out) {
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
  __attribute__((always_inline)) bool u64(uint64_t& v) {
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

// [n,...] of 1 to 3 unsigned integers (work sizes) into `out` (cleared first).
bool fast_work_sizes(Scan& sc, std::vector<uint64_t>& out) {
  out.clear();
  return sc.array([&] {
    uint64_t x;
    if (out.size() == ts::kMaxWorkDim || !sc.u64(x)) return false;
    out.push_back(x);
    return true;
  }) && !out.empty();
}

// The schema's names of an enum (at most 16 bytes each) as two zero-padded words each, so
// that a name read from the text is found by comparing words, without a call.
template <size_t N>
struct NameWords {
  uint64_t lo[N], hi[N];
  size_t len[N];
};
template <size_t N>
constexpr NameWords<N> name_words(const std::string_view (&names)[N]) {
  NameWords<N> w{};
  for (size_t i = 0; i < N; ++i) {
    w.len[i] = names[i].size();
    for (size_t c = 0; c < names[i].size() && c < 16; ++c)
      (c < 8 ? w.lo[i] : w.hi[i]) |= uint64_t{static_cast<unsigned char>(names[i][c])}
                                     << (8 * (c % 8));
  }
  return w;
}
template <size_t N>
constexpr bool fits_words(const std::string_view (&names)[N]) {
  for (const std::string_view n : names)
    if (n.size() > 16) return false;
  return true;
}
static_assert(fits_words(ts::kArgKindNames) && fits_words(ts::kStatusNames), "names fit 16 bytes");
constexpr auto kArgKindWords = name_words(ts::kArgKindNames);
constexpr auto kStatusWords = name_words(ts::kStatusNames);

// The index of `s` among `words`' names, or N. Reads 16 bytes at s.data(): `s` is a view
// into the text, which the padding makes readable that far.
template <size_t N>
size_t find_name(const NameWords<N>& words, std::string_view s) {
  if (s.size() > 16) return N;
  uint64_t lo, hi;
  std::memcpy(&lo, s.data(), 8);
  std::memcpy(&hi, s.data() + 8, 8);
  const size_t n = s.size();
  lo &= n >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
  hi &= n <= 8 ? 0 : n >= 16 ? ~uint64_t{0} : (uint64_t{1} << (8 * (n - 8))) - 1;
  for (size_t i = 0; i < N; ++i)
    if (words.len[i] == n && words.lo[i] == lo && words.hi[i] == hi) return i;
  return N;
}

// The argument kind named `k`; false for an unknown one.
bool fast_arg_kind(std::string_view k, ts::ArgKind& kind) {
  const size_t i = find_name(kArgKindWords, k);
  if (i == ts::kArgKindCount) return false;
  kind = static_cast<ts::ArgKind>(i);
  return true;
}

// One argument [kind, size, ...] into `a` (reset by the caller), in its schema layout.
bool fast_arg(Scan& sc, model::KernelArg& a) {
  using K = model::KernelArg::Kind;
  if (!sc.lit('[')) return false;
  std::string_view kind, s;
  uint64_t x;
  if (!sc.str(kind) || !fast_arg_kind(kind, a.kind)) return false;
  if (a.kind == K::Unset) return sc.lit(']');
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
    case K::Local:
    case K::Unset:
      break;  // Local: the size is all
  }
  return sc.lit(']');
}

using LaunchField = ts::launch::F;
constexpr size_t kLaunchFields = static_cast<size_t>(LaunchField::kCount);

// A key as the shim writes it, "key": (quotes and colon), zero-filled to 16 bytes.
struct KeyText {
  char bytes[16];
  size_t len;
  LaunchField field;
};

// The launch keys the shim always writes, in its order: trying the expected key as a
// literal first skips the key scan and the lookup for nearly every field.
constexpr size_t kAlwaysWritten = [] {
  size_t n = 0;
  for (const ts::Field& f : ts::launch::kFields) n += f.presence != ts::Presence::Optional;
  return n;
}();
struct LaunchOrder {
  KeyText keys[kAlwaysWritten];
  // For each field, how many of keys[] come at or before it: where to continue after
  // finding that field out of turn (an optional field, or a record of another order).
  size_t next[kLaunchFields];
};
constexpr LaunchOrder kLaunchOrder = [] {
  LaunchOrder o{};
  size_t n = 0;
  for (size_t i = 0; i < kLaunchFields; ++i) {
    if (ts::launch::kFields[i].presence != ts::Presence::Optional) {
      const std::string_view k = ts::launch::kMembers[i].substr(1);  // "key":
      for (size_t c = 0; c < k.size(); ++c) o.keys[n].bytes[c] = k[c];
      o.keys[n].len = k.size();
      o.keys[n].field = static_cast<LaunchField>(i);
      ++n;
    }
    o.next[i] = n;
  }
  return o;
}();
static_assert(
    [] {
      for (const std::string_view m : ts::launch::kMembers)
        if (m.size() - 1 > 16) return false;
      return true;
    }(),
    "launch keys fit KeyText");

// The fields a launch must have (the schema's Required ones), one bit each.
constexpr uint64_t kLaunchRequired = [] {
  uint64_t m = 0;
  for (size_t i = 0; i < kLaunchFields; ++i)
    if (ts::launch::kFields[i].presence == ts::Presence::Required) m |= uint64_t{1} << i;
  return m;
}();

// The fields of a range record in the shim's order and shape: a fixed sequence of
// ,"key":value for every field the shim always writes.
template <size_t N>
struct FixedValues {
  uint64_t u[N];
  int64_t i[N];
  std::string_view s[N];
};
// A record's ,"key": texts zero-filled to 16 bytes, for Scan::key16.
template <size_t N>
struct MemberTexts {
  char bytes[N][16];
  size_t len[N];
};
template <size_t N>
constexpr MemberTexts<N> member_texts(const std::string_view (&members)[N]) {
  MemberTexts<N> t{};
  for (size_t i = 0; i < N; ++i) {
    t.len[i] = members[i].size();
    for (size_t c = 0; c < members[i].size() && c < 16; ++c) t.bytes[i][c] = members[i][c];
  }
  return t;
}
static_assert(fits_words(ts::range_begin::kMembers) && fits_words(ts::range_end::kMembers),
              "range keys fit 16 bytes");
constexpr auto kRangeBeginMembers = member_texts(ts::range_begin::kMembers);
constexpr auto kRangeEndMembers = member_texts(ts::range_end::kMembers);

template <size_t N>
bool fast_fixed(Scan& sc, const ts::Field (&fields)[N], const MemberTexts<N>& members,
                FixedValues<N>& out) {
  for (size_t k = 0; k < N; ++k) {
    const ts::Field& f = fields[k];
    if (f.presence == ts::Presence::Optional) continue;
    if (!sc.key16(members.bytes[k], members.len[k])) return false;
    switch (f.type) {
      case ts::Type::RangeId:
        if (!sc.u64(out.u[k]) || out.u[k] >= (uint64_t{1} << ts::kRangeIdBits)) return false;
        break;
      case ts::Type::Uint:
        if (!sc.u64(out.u[k])) return false;
        break;
      case ts::Type::HostInstant:
        if (!sc.i64(out.i[k])) return false;
        break;
      case ts::Type::String:
        if (!sc.str(out.s[k])) return false;
        break;
      default:
        return false;  // a type this scanner does not read
    }
  }
  return sc.lit('}') && sc.at_end();
}

}  // namespace

bool TraceParser::fast_record(const char* text, size_t n, RecordType& type) {
  static constexpr std::string_view kLaunchStart = ts::launch::kOpen.view();
  static constexpr auto kRangeStart = ts::text(R"({"type":"range_)");
  if (n > kLaunchStart.size() && std::memcmp(text, kLaunchStart.data(), kLaunchStart.size()) == 0) {
    if (fast_launch(text + kLaunchStart.size(), n - kLaunchStart.size())) {
      type = RecordType::Launch;
      return true;
    }
  } else if (n > kRangeStart.size() && std::memcmp(text, kRangeStart.c, kRangeStart.size()) == 0) {
    // Layer markers come in thousands per iteration: worth a fast path too.
    return fast_range(text, n, type);
  }
  return false;
}

// The shim's range_begin / range_end records: every field it writes, in its order.
bool TraceParser::fast_range(const char* text, size_t n, RecordType& type) {
  Scan sc(text, text + n);
  if (sc.token(ts::range_begin::kOpen.view())) {
    namespace rb = ts::range_begin;
    FixedValues<std::size(rb::kFields)> v{};
    constexpr auto id = static_cast<size_t>(rb::F::id), parent = static_cast<size_t>(rb::F::parent),
                   name = static_cast<size_t>(rb::F::name), tid = static_cast<size_t>(rb::F::tid),
                   host = static_cast<size_t>(rb::F::host_ns);
    if (!fast_fixed(sc, rb::kFields, kRangeBeginMembers, v) || v.u[id] == 0) return false;
    model::Range& r = meta_->add(RecordType::RangeBegin, meta_->range_begins);
    r.id = run_range_id(process_, v.u[id]);
    r.parent = run_range_id(process_, v.u[parent]);
    r.name.assign(v.s[name]);
    r.process = process_;
    r.tid = v.u[tid];
    r.host_begin_ns = v.i[host];
    type = RecordType::RangeBegin;
    return true;
  }
  if (sc.token(ts::range_end::kOpen.view())) {
    namespace re = ts::range_end;
    FixedValues<std::size(re::kFields)> v{};
    constexpr auto id = static_cast<size_t>(re::F::id), host = static_cast<size_t>(re::F::host_ns);
    if (!fast_fixed(sc, re::kFields, kRangeEndMembers, v) || v.u[id] == 0) return false;
    RangeEndRecord& r = meta_->add(RecordType::RangeEnd, meta_->range_ends);
    r.id = run_range_id(process_, v.u[id]);
    r.end_ns = v.i[host];
    r.open = false;
    type = RecordType::RangeEnd;
    return true;
  }
  return false;
}

// text[0, n) is the launch record after its {"type":"launch" opening.
bool TraceParser::fast_launch(const char* text, size_t n) {
  model::Launch& l = launch;
  reset_launch();
  size_t nargs = 0;  // argument slots are reused in place; trim_args drops the rest at the end
  uint64_t seen = 0;
  size_t expected = 0;  // index in kLaunchOrder.keys of the key that usually comes next
  constexpr size_t kOrderSize = std::size(kLaunchOrder.keys);
  Scan sc(text, text + n);
  while (sc.lit(',')) {
    std::string_view key, s;
    uint64_t x = 0;  // map_device(x) runs even when the scan of x failed
    LaunchField f;
    if (expected < kOrderSize &&
        sc.key16(kLaunchOrder.keys[expected].bytes, kLaunchOrder.keys[expected].len)) {
      f = kLaunchOrder.keys[expected++].field;
    } else {
      if (!sc.key(key)) return false;
      const size_t i = ts::find_field(ts::launch::kFields, key);
      if (i == kLaunchFields) return false;  // unknown (or "type" again): the general path
      f = static_cast<LaunchField>(i);
      expected = kLaunchOrder.next[i];
    }
    const uint64_t bit = uint64_t{1} << static_cast<size_t>(f);
    if (seen & bit) return false;  // given twice: the general path reports it
    seen |= bit;
    bool ok;
    switch (f) {
      case LaunchField::seq:
        ok = sc.u64(l.seq) && l.seq != 0;
        seq_ = l.seq;
        break;
      case LaunchField::tid:
        ok = sc.u64(l.tid);
        break;
      case LaunchField::rc: {
        int64_t rc = 0;
        ok = sc.i64(rc) && rc >= std::numeric_limits<int32_t>::min() &&
             rc <= std::numeric_limits<int32_t>::max();
        l.rc = static_cast<int32_t>(rc);
        break;
      }
      case LaunchField::api:
        ok = sc.str(s);
        l.api.assign(s);
        break;
      case LaunchField::kernel:
        ok = sc.str(s);
        l.name.assign(s);
        break;
      case LaunchField::kernel_id:
        ok = sc.u64(l.kernel_id);
        break;
      case LaunchField::program_id:
        ok = sc.u64(l.program_id);
        break;
      case LaunchField::queue_id:
        ok = sc.u64(l.queue_id);
        break;
      case LaunchField::context_id:
        ok = sc.u64(l.context_id);
        break;
      case LaunchField::device_id:
        ok = sc.u64(x);
        l.device = map_device(x);
        break;
      case LaunchField::gwo:
        ok = sc.null() ? (l.gwo.clear(), true) : fast_work_sizes(sc, l.gwo);
        break;
      case LaunchField::gws:
        ok = fast_work_sizes(sc, l.gws);
        break;
      case LaunchField::lws:
        if (sc.null()) {
          ok = true;
          lws_null();
        } else {
          ok = fast_work_sizes(sc, lws_present());
        }
        break;
      case LaunchField::args:
        nargs = 0;
        ok = sc.array([&] { return fast_arg(sc, next_arg(nargs++)); });
        break;
      case LaunchField::args_total:
        ok = sc.u64(x) && x <= std::numeric_limits<uint32_t>::max();
        l.args_total = static_cast<uint32_t>(x);
        break;
      case LaunchField::host_ns: {
        int n2 = 0;
        int64_t t[2] = {model::kNoTime, model::kNoTime};
        ok = sc.array([&] { return n2 < 2 && sc.i64(t[n2++]); }) && n2 == 2;
        l.host_begin_ns = t[0];
        l.host_end_ns = t[1];
        break;
      }
      case LaunchField::device_ns:
        if (sc.null()) {
          ok = true;
          l.queued_ns = l.submit_ns = l.start_ns = l.end_ns = model::kNoTime;
        } else {
          // u64 takes at most 18 digits: every time read is below 2^63, as the schema wants.
          int n4 = 0;
          uint64_t t[4] = {0, 0, 0, 0};
          ok = sc.array([&] { return n4 < 4 && sc.u64(t[n4++]); }) && n4 == 4;
          l.queued_ns = static_cast<int64_t>(t[0]);
          l.submit_ns = static_cast<int64_t>(t[1]);
          l.start_ns = static_cast<int64_t>(t[2]);
          l.end_ns = static_cast<int64_t>(t[3]);
        }
        break;
      case LaunchField::status: {
        ok = sc.str(s) && find_name(kStatusWords, s) < ts::kStatusCount;
        l.status.assign(s);
        break;
      }
      case LaunchField::exec_status: {
        int64_t e = 0;
        ok = sc.i64(e) && e >= std::numeric_limits<int32_t>::min() &&
             e <= std::numeric_limits<int32_t>::max();
        l.exec_status = static_cast<int32_t>(e);
        break;
      }
      case LaunchField::ranges:
        l.ranges.clear();
        ok = sc.array([&] {
          if (!sc.u64(x) || x == 0 || x >= (uint64_t{1} << kRangeIdBits)) return false;
          l.ranges.push_back(run_range_id(process_, x));
          return true;
        });
        break;
      case LaunchField::call:
        ok = sc.u64(x) && x < (uint64_t{1} << kRangeIdBits);
        l.call = run_range_id(process_, x);
        break;
      case LaunchField::capture:
        ok = sc.u64(x);
        l.capture = x;
        break;
      default:
        ok = false;
    }
    if (!ok) return false;
  }
  if (!sc.lit('}') || !sc.at_end() || (seen & kLaunchRequired) != kLaunchRequired) return false;
  trim_args(nargs);
  return true;
}

}  // namespace clprof::readers::detail
