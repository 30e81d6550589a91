#include "output/record_format.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <cstdio>
#include <cstring>

#include "output/number_text.hpp"
#include "output/utf8.hpp"

namespace clprof::shim {
namespace {

namespace tf = clprof::trace;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
// Every string the trace holds comes from the app or its environment (kernel names, build
// options, sources, range names, the command line): JSON text must be UTF-8, and the
// analyzer's parser rejects a whole trace over one stray Latin-1 byte.
void string(Writer& w, std::string_view s) {
  if (utf8_valid_prefix(s) == s.size()) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return;
  }
  const std::string fixed = valid_utf8(s);
  w.String(fixed.data(), static_cast<rapidjson::SizeType>(fixed.size()));
}

// v in decimal. Values of one kind (a run's device times, its host times) share all but
// their last eight digits for 100 ms at a time: those leading digits are kept as text in
// `prefix` and copied, not computed. The copy reads text written long before (a copy of
// digits just stored would stall on store forwarding).
inline char* write_u64_prefixed(char* p, std::uint64_t v, LaunchTextCache::Prefix& prefix) {
  constexpr std::uint64_t k1e8 = 100000000ULL;
  if (v < k1e8) return write_below_1e8(p, static_cast<std::uint32_t>(v));
  const std::uint64_t hi = v / k1e8;
  if (hi != prefix.value) {
    prefix.len = static_cast<std::uint8_t>(write_u64(prefix.text, hi) - prefix.text);
    prefix.value = hi;
  }
  std::memcpy(p, prefix.text, 16);  // hi < 2^64 / 10^8 has at most 12 digits
  return write_8_digits(p + prefix.len, static_cast<std::uint32_t>(v - hi * k1e8));
}

// A name of the schema as a JSON string, quotes included, in a fixed-size array, so that
// the hot path copies it with one move of known size.
struct QuotedName {
  char text[16];
  std::uint8_t len;
};
constexpr QuotedName quoted_name(std::string_view s) {
  QuotedName q{};
  q.text[0] = '"';
  for (std::size_t i = 0; i < s.size(); ++i) q.text[i + 1] = s[i];
  q.text[s.size() + 1] = '"';
  q.len = static_cast<std::uint8_t>(s.size() + 2);
  return q;
}

// The hot records (launch, transfer, sync) are formatted by hand into a flat buffer:
// RapidJSON's Writer costs ~1 us per launch record here, more than an app may spend per
// launch, and the harvester must keep up with the app. Strings that need escaping
// (kernel names) are escaped once, with RapidJSON, when the kernel is registered.
// The helpers below take and return an Out by value, so that the write position stays in
// a register across them (through a reference it made a round trip through memory for
// every piece written: ~4 ns per launch record).
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
  void u64(std::uint64_t v) {
    if (v < 10) {  // sizes, ids, a zero rc: no call
      *p_++ = static_cast<char>('0' + v);
      return;
    }
    p_ = write_u64(p_, v);
  }
  void i64(std::int64_t v) {
    if (v >= 0) {
      u64(static_cast<std::uint64_t>(v));
      return;
    }
    p_ = write_i64(p_, v);
  }
  // The first `len` characters of `text`: a short text (most arguments' text) in one
  // fixed 32-byte move, which reads up to `text`'s size and writes up to 31 characters
  // past the text, overwritten next (op_chars_bound); a longer one through memcpy.
  template <std::size_t N>
  void cached(const char (&text)[N], std::size_t len) {
    static_assert(N >= 32, "cached() may read 32 bytes of the source");
    if (len <= 32) {
      std::memcpy(p_, text, 32);
      p_ += len;
    } else {
      raw(std::string_view(text, len));
    }
  }
  // A short quoted name (one fixed 16-byte move).
  void quoted(const QuotedName& name) {
    std::memcpy(p_, name.text, sizeof name.text);
    p_ += name.len;
  }
  void ch(char c) { *p_++ = c; }
  char* pos() const { return p_; }
  void skip(std::size_t n) { p_ += n; }  // after writing n characters at pos()
  // The leading digits kept in `prefix` (one fixed-size move).
  void prefix(const LaunchTextCache::Prefix& prefix) {
    std::memcpy(p_, prefix.text, 16);
    p_ += prefix.len;
  }
  // Eight digits made by eight_digits() (one 8-byte store).
  void eight(std::uint64_t digits) {
    std::memcpy(p_, &digits, 8);
    p_ += 8;
  }
  // v in decimal, its digits above the last eight copied from `prefix` (see
  // LaunchTextCache::Prefix) when they are the same as last time.
  void u64_prefixed(std::uint64_t v, LaunchTextCache::Prefix& prefix) {
    p_ = write_u64_prefixed(p_, v, prefix);
  }

 private:
  char* p_;
};

Out sizes(Out o, bool present, const std::uint64_t* v, unsigned n) {
  if (!present) {
    o.lit("null");
    return o;
  }
  o.ch('[');
  for (unsigned i = 0; i < n; ++i) {
    if (i) o.ch(',');
    o.u64(v[i]);
  }
  o.ch(']');
  return o;
}

constexpr std::string_view arg_kind_name(ArgKind k) {
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

constexpr std::string_view status_name(OpStatus s) {
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

// The quoted names by enum value (the enums are dense from 0).
constexpr auto kArgKindText = [] {
  std::array<QuotedName, 8> t{};
  for (unsigned k = 0; k < t.size(); ++k)
    t[k] = quoted_name(arg_kind_name(static_cast<ArgKind>(k)));
  return t;
}();
static_assert(static_cast<unsigned>(ArgKind::Sampler) == 7, "kArgKindText covers every kind");
constexpr auto kStatusText = [] {
  std::array<QuotedName, 4> t{};
  for (unsigned k = 0; k < t.size(); ++k) t[k] = quoted_name(status_name(static_cast<OpStatus>(k)));
  return t;
}();
static_assert(static_cast<unsigned>(OpStatus::NotEnqueued) == 3, "kStatusText covers every status");

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

Out arg(Out o, const ArgSnapshot& a) {
  o.ch('[');
  const auto kind = static_cast<unsigned>(a.kind);
  o.quoted(kArgKindText[kind < kArgKindText.size() ? kind : 0]);  // 0: unset
  switch (a.kind) {
    case ArgKind::Unset:
      break;
    case ArgKind::Scalar: {
      o.ch(',');
      o.u64(a.size);
      o.lit(",\"");
      const unsigned kept = a.size < tf::kMaxScalarBytes ? a.size : tf::kMaxScalarBytes;
      char* p = o.pos();
      // The first eight bytes in one load (the snapshot always holds kMaxScalarBytes).
      std::uint64_t first8;
      std::memcpy(&first8, a.bytes, 8);
      if (kept <= 4) {  // the usual scalar: one 8-byte store (past 2 * kept: overwritten next)
        const std::uint64_t text = hex_of_4_bytes(static_cast<std::uint32_t>(first8));
        std::memcpy(p, &text, sizeof text);
      } else if (kept <= 8) {
        const std::uint64_t text[2] = {hex_of_4_bytes(static_cast<std::uint32_t>(first8)),
                                       hex_of_4_bytes(static_cast<std::uint32_t>(first8 >> 32))};
        std::memcpy(p, text, sizeof text);
      } else {
        for (unsigned i = 0; i < kept; ++i) std::memcpy(p + 2 * i, kHexPairs.c + 2 * a.bytes[i], 2);
      }
      o.skip(2 * kept);
      o.ch('"');
      if (a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8) {
        // Its little-endian integer value.
        o.ch(',');
        o.u64(a.size == 8 ? first8 : first8 & ((std::uint64_t{1} << (8 * a.size)) - 1));
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
  return o;
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

// `cache`: optional (see LaunchTextCache::Prefix).
Out host_times(Out o, const OpRecord& r, LaunchTextCache* cache) {
  o.lit(",\"host_ns\":[");
  if (cache && r.host_begin_ns >= 0 && r.host_end_ns >= 0) {
    o.u64_prefixed(static_cast<std::uint64_t>(r.host_begin_ns), cache->host_prefix);
    o.ch(',');
    o.u64_prefixed(static_cast<std::uint64_t>(r.host_end_ns), cache->host_prefix);
  } else {
    o.i64(r.host_begin_ns);
    o.ch(',');
    o.i64(r.host_end_ns);
  }
  o.ch(']');
  return o;
}

Out device_and_status(Out o, const OpRecord& r, LaunchTextCache* cache) {
  o.lit(",\"device_ns\":");
  if (r.has_device_ns) {
    o.ch('[');
    constexpr std::uint64_t k1e8 = 100000000ULL;
    const std::uint64_t hi = r.device_ns[0] / k1e8;
    if (cache && hi != 0 && hi == cache->device_prefix.value && r.device_ns[3] / k1e8 == hi &&
        r.device_ns[1] / k1e8 == hi && r.device_ns[2] / k1e8 == hi) {
      // The usual case: all four share the cached leading digits. The four conversions
      // are independent, so they are done before any store and overlap in the CPU.
      std::uint64_t low[4];
      for (int i = 0; i < 4; ++i)
        low[i] = eight_digits(static_cast<std::uint32_t>(r.device_ns[i] - hi * k1e8));
      const LaunchTextCache::Prefix& prefix = cache->device_prefix;
      for (int i = 0; i < 4; ++i) {
        o.prefix(prefix);
        o.eight(low[i]);
        o.ch(i < 3 ? ',' : ']');
      }
    } else {
      for (int i = 0; i < 4; ++i) {
        if (i) o.ch(',');
        if (cache) {
          o.u64_prefixed(r.device_ns[i], cache->device_prefix);
        } else {
          o.u64(r.device_ns[i]);
        }
      }
      o.ch(']');
    }
  } else {
    o.lit("null");
  }
  o.lit(",\"status\":");
  o.quoted(kStatusText[static_cast<unsigned>(r.status) & 3]);
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
  return o;
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
Out head(Out o, const char (&type_prefix)[N], const OpRecord& r, LaunchTextCache* cache) {
  o.lit(type_prefix);
  if (!cache) {
    o.u64(r.seq);
    o.lit(",\"tid\":");
    o.i64(r.tid);
  } else {
    LaunchTextCache::Head& h = cache->head;
    // Fixed-size copies (no library call); what lies past the text is overwritten next
    // and well inside op_chars_bound. The previous record's text is copied first and then
    // one is added to both copies: copying digits just stored would stall on store
    // forwarding.
    char* const out = o.pos();
    bool next = false;
    if (h.seq != 0 && r.seq == h.seq + 1) {
      std::memcpy(out, h.seq_text, sizeof h.seq_text);
      next = increment_decimal(out, h.seq_len);
      if (next) increment_decimal(h.seq_text, h.seq_len);
    }
    if (!next) {  // the first record, a gap, or one digit more
      char* const end = write_u64(h.seq_text, r.seq);
      h.seq_len = static_cast<std::uint8_t>(end - h.seq_text);
      std::memcpy(out, h.seq_text, sizeof h.seq_text);
    }
    h.seq = r.seq;
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
  return o;
}

// ,"kernel":...,"lws":... of a launch.
Out launch_fixed(Out o, const OpRecord& r) {
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
  o = sizes(o, r.has_gwo, r.gwo, r.work_dim);
  o.lit(",\"gws\":");
  o = sizes(o, true, r.gws, r.work_dim);
  o.lit(",\"lws\":");
  o = sizes(o, r.has_lws, r.lws, r.work_dim);
  return o;
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
    case ArgKind::Scalar: {
      if (a.size <= 8) {  // the usual scalar: one masked 8-byte compare, no library call
        std::uint64_t x, y;
        std::memcpy(&x, a.bytes, 8);
        std::memcpy(&y, b.bytes, 8);
        const std::uint64_t mask =
            a.size == 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * a.size)) - 1;
        return ((x ^ y) & mask) == 0;
      }
      return std::memcmp(a.bytes, b.bytes,
                         a.size < tf::kMaxScalarBytes ? a.size : tf::kMaxScalarBytes) == 0;
    }
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

Out cached_arg(Out o, const ArgSnapshot& a, LaunchTextCache::Arg& c) {
  if (c.valid && same_arg(c.key, a)) {
    c.misses = 0;
    o.cached(c.text, c.len);
    return o;
  }
  char* const start = o.pos();
  o = arg(o, a);
  // An argument that changed at each of the last launches (a loop counter, an offset) is
  // saved only at one miss in 16: saving copies the text just written (a stall on store
  // forwarding) for a hit that is not coming.
  if (c.misses < 4) {
    ++c.misses;
  } else if ((++c.skipped & 15) != 0) {
    return o;
  }
  const auto len = static_cast<std::size_t>(o.pos() - start);
  if (len > sizeof c.text) {
    c.valid = false;
    return o;
  }
  std::memcpy(c.text, start, len);
  c.len = static_cast<std::uint16_t>(len);
  std::memcpy(static_cast<void*>(&c.key), &a, sizeof a);
  c.valid = true;
  return o;
}

}  // namespace

char* format_op(const OpRecord& r, char* buffer, LaunchTextCache* cache) {
  Out o(buffer);
  switch (r.kind) {
    case RecordKind::Launch:
      o = head(o, "{\"type\":\"launch\",\"seq\":", r, cache);
      if (r.api) {
        o.lit(",\"api\":");
        o.quoted_plain(r.api);
      }
      if (!cache) {
        o = launch_fixed(o, r);
      } else if (same_launch(cache->launch, r)) {
        o.raw(std::string_view(cache->launch.text, cache->launch.len));
      } else {
        char* const start = o.pos();
        o = launch_fixed(o, r);
        remember_launch(cache->launch, r, start, static_cast<std::size_t>(o.pos() - start));
      }
      o.lit(",\"args\":[");
      for (unsigned i = 0; i < r.n_args; ++i) {
        if (i) o.ch(',');
        if (cache && i < kMaxRecordedArgs) {
          o = cached_arg(o, r.args[i], cache->args[i]);
        } else {
          o = arg(o, r.args[i]);
        }
      }
      o.ch(']');
      if (r.total_args > r.n_args) {
        o.lit(",\"args_total\":");
        o.u64(r.total_args);
      }
      o = host_times(o, r, cache);
      o = device_and_status(o, r, cache);
      break;
    case RecordKind::Transfer:
      o = head(o, "{\"type\":\"transfer\",\"seq\":", r, cache);
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
      o = host_times(o, r, cache);
      o = device_and_status(o, r, cache);
      break;
    case RecordKind::Sync:
      o = head(o, "{\"type\":\"sync\",\"seq\":", r, cache);
      o.lit(",\"api\":");
      o.quoted_plain(r.api ? r.api : "");
      o.lit(",\"queue_id\":");
      o.u64(r.queue_id);
      o = host_times(o, r, cache);
      break;
    case RecordKind::Line:
      o.ch('{');
      break;
  }
  o.ch('}');
  return o.pos();
}

std::size_t op_chars_bound(const OpRecord& r, const LaunchTextCache* cache) {
  std::size_t n = kMaxOpChars;
  if (r.kind == RecordKind::Launch && r.kernel_name) {
    // A name the cache holds is shorter than its text: no strlen per launch.
    const bool cached = cache && cache->launch.valid && cache->launch.kernel_name == r.kernel_name;
    n += cached ? sizeof cache->launch.text : std::strlen(r.kernel_name);
  }
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

}  // namespace clprof::shim
