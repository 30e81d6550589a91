#include "record_format.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <cstring>

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
void string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// "00" "01" ... "99": two digits per table load.
constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

constexpr std::uint32_t kPow10[10] = {1u,      10u,      100u,      1000u,      10000u,
                                      100000u, 1000000u, 10000000u, 100000000u, 1000000000u};

// Decimal digits of v (1 <= v < 10^8): floor(log10) from the bit length, one table
// correction.
inline unsigned decimal_digits32(std::uint32_t v) {
  const unsigned bits = 32u - static_cast<unsigned>(__builtin_clz(v | 1));
  const unsigned t = (bits * 1233u) >> 12;  // ~ bits * log10(2)
  return t + 1 - (v < kPow10[t]);
}

// v < 10^4 as exactly 4 digits (leading zeros kept).
inline char* write_4_digits(char* p, std::uint32_t v) {
  const std::uint32_t a = v / 100;
  std::memcpy(p, kDigitPairs + a * 2, 2);
  std::memcpy(p + 2, kDigitPairs + (v - a * 100) * 2, 2);
  return p + 4;
}

// v < 10^8 as exactly 8 digits (leading zeros kept).
inline char* write_8_digits(char* p, std::uint32_t v) {
  const std::uint32_t hi = v / 10000;
  return write_4_digits(write_4_digits(p, hi), v - hi * 10000);
}

// v < 10^8, without leading zeros (32-bit arithmetic: a multiply per digit pair).
inline char* write_below_1e8(char* p, std::uint32_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  char* const end = p + decimal_digits32(v);
  char* q = end;
  while (v >= 100) {
    const std::uint32_t rest = v / 100;
    q -= 2;
    std::memcpy(q, kDigitPairs + (v - rest * 100) * 2, 2);
    v = rest;
  }
  if (v >= 10) {
    std::memcpy(q - 2, kDigitPairs + v * 2, 2);
  } else {
    q[-1] = static_cast<char>('0' + v);
  }
  return end;
}

// Writes v in decimal at p (same text as RapidJSON's u64toa / std::to_string); returns
// the end. Numbers below 10^8 (ids, sizes, most times) take the 32-bit path.
inline char* write_u64(char* p, std::uint64_t v) {
  constexpr std::uint64_t k1e8 = 100000000ULL;
  if (v < k1e8) return write_below_1e8(p, static_cast<std::uint32_t>(v));
  if (v < k1e8 * k1e8) {
    const std::uint64_t hi = v / k1e8;
    p = write_below_1e8(p, static_cast<std::uint32_t>(hi));
    return write_8_digits(p, static_cast<std::uint32_t>(v - hi * k1e8));
  }
  const std::uint64_t hi = v / (k1e8 * k1e8);  // <= 1844
  const std::uint64_t rest = v - hi * (k1e8 * k1e8);
  const std::uint64_t mid = rest / k1e8;
  p = write_below_1e8(p, static_cast<std::uint32_t>(hi));
  p = write_8_digits(p, static_cast<std::uint32_t>(mid));
  return write_8_digits(p, static_cast<std::uint32_t>(rest - mid * k1e8));
}

// v as decimal, given that `ref` was just written as `ref_text` (ref_len digits): values
// of one group (a command's four device times, its two host times) usually share all but
// their last eight digits (a 100 ms window), or for smaller values their last four, and
// those leading digits are copied, not computed.
inline char* write_u64_near(char* p, std::uint64_t v, std::uint64_t ref, const char* ref_text,
                            std::size_t ref_len) {
  // ref_len <= 20: a fixed 16-byte move (one load, one store; no library call) covers the
  // <= 16 shared digits; the bytes past them are overwritten next (the buffer holds 20
  // characters per number, op_chars_bound). It may overlap: ref_text lies just before p.
  constexpr std::uint64_t k1e8 = 100000000ULL;
  if (ref >= k1e8) {
    const std::uint64_t hi = v / k1e8;
    if (hi == ref / k1e8) {
      std::memmove(p, ref_text, 16);
      return write_8_digits(p + (ref_len - 8), static_cast<std::uint32_t>(v - hi * k1e8));
    }
  } else if (ref >= 10000) {
    const std::uint64_t hi = v / 10000;
    if (hi == ref / 10000) {
      std::memmove(p, ref_text, 16);
      return write_4_digits(p + (ref_len - 4), static_cast<std::uint32_t>(v - hi * 10000));
    }
  }
  return write_u64(p, v);
}

inline char* write_i64(char* p, std::int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return write_u64(p, 0 - static_cast<std::uint64_t>(v));
  }
  return write_u64(p, static_cast<std::uint64_t>(v));
}

// The hot records (launch, transfer, sync) are formatted by hand into a flat buffer:
// RapidJSON's Writer costs ~1 us per launch record here, more than an app may spend per
// launch, and the harvester must keep up with the app. Strings that need escaping
// (kernel names) are escaped once, with RapidJSON, when the kernel is registered.
class Out {
 public:
  explicit Out(char* p) : p_(p) {}
  template <std::size_t N>
  void lit(const char (&s)[N]) {
    std::memcpy(p_, s, N - 1);
    p_ += N - 1;
  }
  void raw(std::string_view s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void quoted_plain(std::string_view s) {  // ASCII without quotes/backslashes/controls
    *p_++ = '"';
    raw(s);
    *p_++ = '"';
  }
  void u64(std::uint64_t v) { p_ = write_u64(p_, v); }
  void i64(std::int64_t v) { p_ = write_i64(p_, v); }
  void ch(char c) { *p_++ = c; }
  char* pos() const { return p_; }
  void skip(std::size_t n) { p_ += n; }  // after writing n characters at pos()
  // v, formatted after `ref` (see write_u64_near).
  void u64_near(std::uint64_t v, std::uint64_t ref, const char* ref_text, std::size_t ref_len) {
    p_ = write_u64_near(p_, v, ref, ref_text, ref_len);
  }

 private:
  char* p_;
};

void sizes(Out& o, bool present, const std::uint64_t* v, unsigned n) {
  if (!present) {
    o.lit("null");
    return;
  }
  o.ch('[');
  for (unsigned i = 0; i < n; ++i) {
    if (i) o.ch(',');
    o.u64(v[i]);
  }
  o.ch(']');
}

std::string_view arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::Scalar:
      return tf::arg_kind::kScalar;
    case ArgKind::Buffer:
      return tf::arg_kind::kBuffer;
    case ArgKind::Image:
      return tf::arg_kind::kImage;
    case ArgKind::Pipe:
      return tf::arg_kind::kPipe;
    case ArgKind::Local:
      return tf::arg_kind::kLocal;
    case ArgKind::Svm:
      return tf::arg_kind::kSvm;
    case ArgKind::Sampler:
      return tf::arg_kind::kSampler;
    case ArgKind::Unset:
      break;
  }
  return tf::arg_kind::kUnset;
}

// "00" "01" ... "ff": two hex digits per table load.
constexpr auto kHexPairs = [] {
  struct Table {
    char c[512];
  } t{};
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 256; ++i) {
    t.c[2 * i] = kHex[i >> 4];
    t.c[2 * i + 1] = kHex[i & 15];
  }
  return t;
}();

// The little-endian integer value of a scalar of 1, 2, 4 or 8 bytes.
inline std::uint64_t little_endian_value(const std::uint8_t* bytes, unsigned size) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  std::uint64_t v = 0;
  std::memcpy(&v, bytes, size);
  return v;
#else
  std::uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
  return v;
#endif
}

void arg(Out& o, const ArgSnapshot& a) {
  o.ch('[');
  o.quoted_plain(arg_kind_name(a.kind));
  switch (a.kind) {
    case ArgKind::Unset:
      break;
    case ArgKind::Scalar: {
      o.ch(',');
      o.u64(a.size);
      o.lit(",\"");
      const unsigned kept = a.size < tf::kMaxScalarBytes ? a.size : tf::kMaxScalarBytes;
      char* p = o.pos();
      for (unsigned i = 0; i < kept; ++i) std::memcpy(p + 2 * i, kHexPairs.c + 2 * a.bytes[i], 2);
      o.skip(2 * kept);
      o.ch('"');
      if (a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8) {
        o.ch(',');
        o.u64(little_endian_value(a.bytes, a.size));
      }
      break;
    }
    case ArgKind::Buffer:
    case ArgKind::Image:
    case ArgKind::Pipe:
      o.ch(',');
      o.u64(a.size);
      o.ch(',');
      o.u64(a.object.id);
      o.ch(',');
      o.u64(a.object.mem_bytes);
      break;
    case ArgKind::Sampler:
      o.ch(',');
      o.u64(a.size);
      o.ch(',');
      o.u64(a.object.id);
      break;
    case ArgKind::Local:
      o.ch(',');
      o.u64(a.size);
      break;
    case ArgKind::Svm: {
      o.lit(",0,\"0x");
      char buf[24];
      const int n =
          std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(a.svm_pointer));
      o.raw(std::string_view(buf, static_cast<std::size_t>(n)));
      o.ch('"');
      break;
    }
  }
  o.ch(']');
}

std::string_view status_name(OpStatus s) {
  switch (s) {
    case OpStatus::Complete:
      return tf::status::kComplete;
    case OpStatus::Incomplete:
      return tf::status::kIncomplete;
    case OpStatus::Error:
      return tf::status::kError;
    case OpStatus::NotEnqueued:
      return tf::status::kNotEnqueued;
  }
  return tf::status::kIncomplete;
}

std::string_view op_name(TransferOp op) {
  switch (op) {
    case TransferOp::Read:
      return tf::transfer_op::kRead;
    case TransferOp::Write:
      return tf::transfer_op::kWrite;
    case TransferOp::Copy:
      return tf::transfer_op::kCopy;
    case TransferOp::Fill:
      return tf::transfer_op::kFill;
    case TransferOp::Map:
      return tf::transfer_op::kMap;
    case TransferOp::Unmap:
      return tf::transfer_op::kUnmap;
  }
  return tf::transfer_op::kCopy;
}

void host_times(Out& o, const OpRecord& r) {
  o.lit(",\"host_ns\":[");
  char* const begin_text = o.pos();
  o.i64(r.host_begin_ns);
  const auto begin_len = static_cast<std::size_t>(o.pos() - begin_text);
  o.ch(',');
  if (r.host_begin_ns >= 0 && r.host_end_ns >= 0) {
    o.u64_near(static_cast<std::uint64_t>(r.host_end_ns),
               static_cast<std::uint64_t>(r.host_begin_ns), begin_text, begin_len);
  } else {
    o.i64(r.host_end_ns);
  }
  o.ch(']');
}

void device_and_status(Out& o, const OpRecord& r) {
  o.lit(",\"device_ns\":");
  if (r.has_device_ns) {
    o.ch('[');
    char* const first_text = o.pos();
    o.u64(r.device_ns[0]);
    const auto first_len = static_cast<std::size_t>(o.pos() - first_text);
    for (int i = 1; i < 4; ++i) {
      o.ch(',');
      o.u64_near(r.device_ns[i], r.device_ns[0], first_text, first_len);
    }
    o.ch(']');
  } else {
    o.lit("null");
  }
  o.lit(",\"status\":");
  o.quoted_plain(status_name(r.status));
  if (r.status == OpStatus::Error) {
    o.lit(",\"exec_status\":");
    o.i64(r.exec_status);
  }
  o.lit(",\"ranges\":[");
  for (unsigned i = 0; i < r.n_ranges; ++i) {
    if (i) o.ch(',');
    o.u64(r.ranges[i]);
  }
  o.ch(']');
}

// seq + 1 in place in its decimal text; false when the number of digits grows.
bool increment_decimal(char* text, std::size_t len) {
  for (std::size_t i = len; i-- > 0;) {
    if (text[i] != '9') {
      ++text[i];
      return true;
    }
    text[i] = '0';
  }
  return false;
}

template <std::size_t N>
void head(Out& o, const char (&type_prefix)[N], const OpRecord& r, LaunchTextCache* cache) {
  o.lit(type_prefix);
  if (!cache) {
    o.u64(r.seq);
    o.lit(",\"tid\":");
    o.i64(r.tid);
  } else {
    LaunchTextCache::Head& h = cache->head;
    if (!(h.seq != 0 && r.seq == h.seq + 1 && increment_decimal(h.seq_text, h.seq_len))) {
      char* const end = write_u64(h.seq_text, r.seq);
      h.seq_len = static_cast<std::uint8_t>(end - h.seq_text);
    }
    h.seq = r.seq;
    // Fixed-size copies (no library call); what lies past the text is overwritten next
    // and well inside op_chars_bound.
    std::memcpy(o.pos(), h.seq_text, sizeof h.seq_text);
    o.skip(h.seq_len);
    o.lit(",\"tid\":");
    if (!h.tid_valid || h.tid != r.tid) {
      char* const end = write_i64(h.tid_text, r.tid);
      h.tid_len = static_cast<std::uint8_t>(end - h.tid_text);
      h.tid = r.tid;
      h.tid_valid = true;
    }
    std::memcpy(o.pos(), h.tid_text, sizeof h.tid_text);
    o.skip(h.tid_len);
  }
  o.lit(",\"rc\":");
  o.i64(r.rc);
}

// ,"kernel":...,"lws":... of a launch.
void launch_fixed(Out& o, const OpRecord& r) {
  o.lit(",\"kernel\":");
  if (r.kernel_name) {
    o.raw(r.kernel_name);  // pre-quoted and escaped (json_quote)
  } else {
    o.lit("\"\"");
  }
  o.lit(",\"kernel_id\":");
  o.u64(r.kernel_id);
  o.lit(",\"program_id\":");
  o.u64(r.program_id);
  o.lit(",\"queue_id\":");
  o.u64(r.queue_id);
  o.lit(",\"context_id\":");
  o.u64(r.context_id);
  o.lit(",\"device_id\":");
  o.u64(r.device_id);
  o.lit(",\"gwo\":");
  sizes(o, r.has_gwo, r.gwo, r.work_dim);
  o.lit(",\"gws\":");
  sizes(o, true, r.gws, r.work_dim);
  o.lit(",\"lws\":");
  sizes(o, r.has_lws, r.lws, r.work_dim);
}

bool same_launch(const LaunchTextCache::Launch& c, const OpRecord& r) {
  if (!c.valid || c.kernel_name != r.kernel_name || c.work_dim != r.work_dim ||
      c.has_gwo != r.has_gwo || c.has_lws != r.has_lws || c.ids[0] != r.kernel_id ||
      c.ids[1] != r.program_id || c.ids[2] != r.queue_id || c.ids[3] != r.context_id ||
      c.ids[4] != r.device_id) {
    return false;
  }
  for (unsigned d = 0; d < r.work_dim; ++d) {
    if (c.gws[d] != r.gws[d] || c.gwo[d] != r.gwo[d] || c.lws[d] != r.lws[d]) return false;
  }
  return true;
}

void remember_launch(LaunchTextCache::Launch& c, const OpRecord& r, const char* text,
                     std::size_t len) {
  if (len > sizeof c.text) {
    c.valid = false;  // a very long kernel name: not cached
    return;
  }
  std::memcpy(c.text, text, len);
  c.len = static_cast<std::uint16_t>(len);
  c.kernel_name = r.kernel_name;
  c.work_dim = r.work_dim;
  c.has_gwo = r.has_gwo;
  c.has_lws = r.has_lws;
  c.ids[0] = r.kernel_id;
  c.ids[1] = r.program_id;
  c.ids[2] = r.queue_id;
  c.ids[3] = r.context_id;
  c.ids[4] = r.device_id;
  for (unsigned d = 0; d < 3; ++d) {
    const bool used = d < r.work_dim;
    c.gws[d] = used ? r.gws[d] : 0;
    c.gwo[d] = used ? r.gwo[d] : 0;
    c.lws[d] = used ? r.lws[d] : 0;
  }
  c.valid = true;
}

// Whether two arguments format to the same text (only the bytes arg() reads count).
bool same_arg(const ArgSnapshot& a, const ArgSnapshot& b) {
  if (a.kind != b.kind || a.size != b.size) return false;
  switch (a.kind) {
    case ArgKind::Scalar:
      return std::memcmp(a.bytes, b.bytes,
                         a.size < tf::kMaxScalarBytes ? a.size : tf::kMaxScalarBytes) == 0;
    case ArgKind::Buffer:
    case ArgKind::Image:
    case ArgKind::Pipe:
      return a.object.id == b.object.id && a.object.mem_bytes == b.object.mem_bytes;
    case ArgKind::Sampler:
      return a.object.id == b.object.id;
    case ArgKind::Svm:
      return a.svm_pointer == b.svm_pointer;
    case ArgKind::Local:
    case ArgKind::Unset:
      return true;
  }
  return false;
}

void cached_arg(Out& o, const ArgSnapshot& a, LaunchTextCache::Arg& c) {
  if (c.valid && same_arg(c.key, a)) {
    o.raw(std::string_view(c.text, c.len));
    return;
  }
  char* const start = o.pos();
  arg(o, a);
  const auto len = static_cast<std::size_t>(o.pos() - start);
  if (len > sizeof c.text) {
    c.valid = false;
    return;
  }
  std::memcpy(c.text, start, len);
  c.len = static_cast<std::uint16_t>(len);
  std::memcpy(static_cast<void*>(&c.key), &a, sizeof a);
  c.valid = true;
}

}  // namespace

char* format_op(const OpRecord& r, char* buffer, LaunchTextCache* cache) {
  Out o(buffer);
  switch (r.kind) {
    case RecordKind::Launch:
      head(o, "{\"type\":\"launch\",\"seq\":", r, cache);
      if (r.api) {
        o.lit(",\"api\":");
        o.quoted_plain(r.api);
      }
      if (!cache) {
        launch_fixed(o, r);
      } else if (same_launch(cache->launch, r)) {
        o.raw(std::string_view(cache->launch.text, cache->launch.len));
      } else {
        char* const start = o.pos();
        launch_fixed(o, r);
        remember_launch(cache->launch, r, start, static_cast<std::size_t>(o.pos() - start));
      }
      o.lit(",\"args\":[");
      for (unsigned i = 0; i < r.n_args; ++i) {
        if (i) o.ch(',');
        if (cache && i < kMaxRecordedArgs) {
          cached_arg(o, r.args[i], cache->args[i]);
        } else {
          arg(o, r.args[i]);
        }
      }
      o.ch(']');
      if (r.total_args > r.n_args) {
        o.lit(",\"args_total\":");
        o.u64(r.total_args);
      }
      host_times(o, r);
      device_and_status(o, r);
      break;
    case RecordKind::Transfer:
      head(o, "{\"type\":\"transfer\",\"seq\":", r, cache);
      o.lit(",\"api\":");
      o.quoted_plain(r.api ? r.api : "");
      o.lit(",\"op\":");
      o.quoted_plain(op_name(r.op));
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      o.lit(",\"device_id\":");
      o.u64(r.device_id);
      o.lit(",\"bytes\":");
      o.u64(r.bytes);
      o.lit(",\"blocking\":");
      if (r.blocking) {
        o.lit("true");
      } else {
        o.lit("false");
      }
      host_times(o, r);
      device_and_status(o, r);
      break;
    case RecordKind::Sync:
      head(o, "{\"type\":\"sync\",\"seq\":", r, cache);
      o.lit(",\"api\":");
      o.quoted_plain(r.api ? r.api : "");
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      host_times(o, r);
      break;
    case RecordKind::Line:
      o.ch('{');
      break;
  }
  o.ch('}');
  return o.pos();
}

std::size_t op_chars_bound(const OpRecord& r) {
  std::size_t n = kMaxOpChars;
  if (r.kind == RecordKind::Launch && r.kernel_name) n += std::strlen(r.kernel_name);
  if (r.api) n += std::strlen(r.api);
  return n;
}

void format_op(const OpRecord& r, std::string& out) {
  thread_local char buffer[kMaxOpChars];
  const std::size_t bound = op_chars_bound(r);
  if (bound <= sizeof buffer) {
    out.append(buffer, static_cast<std::size_t>(format_op(r, buffer) - buffer));
    return;
  }
  std::string big(bound, '\0');  // a very long kernel name: rare
  out.append(big.data(), static_cast<std::size_t>(format_op(r, big.data()) - big.data()));
}

std::string format_u64_for_test(std::uint64_t v) {
  char buf[24];
  return std::string(buf, static_cast<std::size_t>(write_u64(buf, v) - buf));
}
std::string format_i64_for_test(std::int64_t v) {
  char buf[24];
  return std::string(buf, static_cast<std::size_t>(write_i64(buf, v) - buf));
}

std::string json_quote(std::string_view s) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  string(w, s);
  return std::string(sb.GetString(), sb.GetSize());
}

std::string_view line_kind_name(LineKind k) {
  switch (k) {
    case LineKind::Device:
      return tf::kind::kDevice;
    case LineKind::ClockSync:
      return tf::kind::kClockSync;
    case LineKind::Queue:
      return tf::kind::kQueue;
    case LineKind::Program:
      return tf::kind::kProgram;
    case LineKind::Build:
      return tf::kind::kBuild;
    case LineKind::Kernel:
      return tf::kind::kKernel;
    case LineKind::RangeBegin:
      return tf::kind::kRangeBegin;
    case LineKind::RangeEnd:
      return tf::kind::kRangeEnd;
    case LineKind::Mark:
      return tf::kind::kMark;
    case LineKind::Warning:
      return tf::kind::kWarning;
    case LineKind::Count:
      break;
  }
  return tf::kind::kWarning;
}

struct JsonLine::Impl {
  rapidjson::StringBuffer sb;
  Writer w{sb};
};

JsonLine::JsonLine(std::string_view type) : impl_(std::make_unique<Impl>()) {
  impl_->w.StartObject();
  str(tf::field::kType, type);
}
JsonLine::~JsonLine() = default;

JsonLine& JsonLine::num(std::string_view k, std::int64_t v) {
  key(impl_->w, k);
  impl_->w.Int64(v);
  return *this;
}
JsonLine& JsonLine::unum(std::string_view k, std::uint64_t v) {
  key(impl_->w, k);
  impl_->w.Uint64(v);
  return *this;
}
JsonLine& JsonLine::str(std::string_view k, std::string_view v) {
  key(impl_->w, k);
  string(impl_->w, v);
  return *this;
}
JsonLine& JsonLine::boolean(std::string_view k, bool v) {
  key(impl_->w, k);
  impl_->w.Bool(v);
  return *this;
}
JsonLine& JsonLine::null(std::string_view k) {
  key(impl_->w, k);
  impl_->w.Null();
  return *this;
}
JsonLine& JsonLine::unums(std::string_view k, const std::vector<std::uint64_t>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (auto x : v) impl_->w.Uint64(x);
  impl_->w.EndArray();
  return *this;
}
JsonLine& JsonLine::nums(std::string_view k, const std::vector<std::int64_t>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (auto x : v) impl_->w.Int64(x);
  impl_->w.EndArray();
  return *this;
}
JsonLine& JsonLine::strs(std::string_view k, const std::vector<std::string>& v) {
  key(impl_->w, k);
  impl_->w.StartArray();
  for (const auto& x : v) string(impl_->w, x);
  impl_->w.EndArray();
  return *this;
}

std::string JsonLine::finish() {
  impl_->w.EndObject();
  return std::string(impl_->sb.GetString(), impl_->sb.GetSize());
}

std::string format_header_line(const HeaderFacts& h) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, tf::top::kFormat);
  string(w, tf::kFormatName);
  key(w, tf::top::kVersion);
  w.Int(tf::kVersion);
  key(w, tf::top::kHeader);
  w.StartObject();
  key(w, tf::header::kPid);
  w.Int64(h.pid);
  key(w, tf::header::kPpid);
  w.Int64(h.ppid);
  key(w, tf::header::kCommandLine);
  w.StartArray();
  for (const auto& a : h.command_line) string(w, a);
  w.EndArray();
  key(w, tf::header::kStartUnixNs);
  w.Int64(h.start_unix_ns);
  key(w, tf::header::kHostStartNs);
  w.Int64(h.host_start_ns);
  key(w, tf::header::kHostClock);
  string(w, "CLOCK_MONOTONIC");
  key(w, tf::header::kHostName);
  string(w, h.host_name);
  key(w, tf::header::kClprofVersion);
  string(w, h.clprof_version);
  key(w, tf::header::kSettings);
  w.StartObject();
  for (const auto& [k, v] : h.settings) {
    key(w, k);
    string(w, v);
  }
  w.EndObject();
  w.EndObject();
  // The records array stays open: records follow one per line, then "]}".
  std::string out(sb.GetString(), sb.GetSize());
  out += ",\"";
  out += tf::top::kRecords;
  out += "\":[";
  return out;
}

std::string format_end_record(std::int64_t host_ns,
                              const std::vector<std::pair<std::string, std::uint64_t>>& counts,
                              std::uint64_t incomplete, std::uint64_t dropped) {
  rapidjson::StringBuffer sb;
  Writer w(sb);
  w.StartObject();
  key(w, tf::field::kType);
  string(w, tf::kind::kEnd);
  key(w, tf::field::kHostNs);
  w.Int64(host_ns);
  key(w, tf::field::kCounts);
  w.StartObject();
  for (const auto& [k, v] : counts) {
    key(w, k);
    w.Uint64(v);
  }
  w.EndObject();
  key(w, tf::field::kIncomplete);
  w.Uint64(incomplete);
  key(w, tf::field::kDropped);
  w.Uint64(dropped);
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

std::string expand_output_path(std::string_view pattern, long pid, long root_pid,
                               bool suffix_children) {
  const std::string pid_text = std::to_string(pid);
  std::string out;
  bool had_pid = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += pid_text;
      had_pid = true;
      ++i;
    } else {
      out += pattern[i];
    }
  }
  if (had_pid || !suffix_children || root_pid == 0 || root_pid == pid) return out;
  return insert_before_extension(out, "." + pid_text);
}

std::string insert_before_extension(std::string_view path, std::string_view text) {
  const std::size_t slash = path.rfind('/');
  const std::size_t base = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = path.rfind('.');
  // A leading dot (".trace") is a hidden file's name, not an extension.
  if (dot == std::string::npos || dot <= base) return std::string(path) + std::string(text);
  return std::string(path.substr(0, dot)) + std::string(text) + std::string(path.substr(dot));
}

std::uint64_t fnv1a64(std::uint64_t state, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    state ^= p[i];
    state *= 0x100000001b3ULL;
  }
  return state;
}

std::string source_hash_text(std::uint64_t hash) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

}  // namespace clprof::shim
