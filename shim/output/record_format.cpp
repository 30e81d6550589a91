#include "output/record_format.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "output/json_text.hpp"
#include "output/number_text.hpp"
#include "output/record_out.hpp"
#include "output/utf8.hpp"

namespace clprof::shim {
namespace {

namespace ts = clprof::trace;
using json_text::Writer;

using json_text::key;
using json_text::string;
using record_text::Out;
using record_text::quoted_name;
using record_text::QuotedName;

// {"type":"launch","seq": and the like, each one text made at compile time.
constexpr auto kLaunchHead = ts::concat(ts::launch::kOpen, ts::launch::seq.member);
constexpr auto kTransferHead = ts::concat(ts::transfer::kOpen, ts::transfer::seq.member);
constexpr auto kSyncHead = ts::concat(ts::sync::kOpen, ts::sync::seq.member);
// ,"host_ns":[ and the like: a key and the array it opens.
constexpr auto kHostNsOpen = ts::concat(ts::launch::host_ns.member, ts::text("["));
constexpr auto kRangesOpen = ts::concat(ts::launch::ranges.member, ts::text("["));
constexpr auto kArgsOpen = ts::concat(ts::launch::args.member, ts::text("["));

// head(), host_times() and device_and_status() write the fields launch, transfer and sync
// records share with the launch's keys: the schema must spell them alike.
constexpr bool same_key(std::string_view a, std::string_view b) {
  return a == b;
}
static_assert(same_key(ts::launch::tid, ts::transfer::tid) &&
                  same_key(ts::launch::tid, ts::sync::tid) &&
                  same_key(ts::launch::rc, ts::transfer::rc) &&
                  same_key(ts::launch::rc, ts::sync::rc) &&
                  same_key(ts::launch::host_ns, ts::transfer::host_ns) &&
                  same_key(ts::launch::host_ns, ts::sync::host_ns) &&
                  same_key(ts::launch::device_ns, ts::transfer::device_ns) &&
                  same_key(ts::launch::status, ts::transfer::status) &&
                  same_key(ts::launch::exec_status, ts::transfer::exec_status) &&
                  same_key(ts::launch::ranges, ts::transfer::ranges) &&
                  same_key(ts::launch::call, ts::transfer::call) &&
                  same_key(ts::launch::call, ts::sync::call),
              "shared fields of launch, transfer and sync records");

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

// The quoted names by enum value (the enums are dense from 0).
constexpr auto kArgKindText = [] {
  std::array<QuotedName, ts::kArgKindCount> t{};
  for (unsigned k = 0; k < t.size(); ++k) t[k] = quoted_name(ts::name(static_cast<ArgKind>(k)));
  return t;
}();
constexpr auto kStatusText = [] {
  std::array<QuotedName, ts::kStatusCount> t{};
  for (unsigned k = 0; k < t.size(); ++k) t[k] = quoted_name(ts::name(static_cast<OpStatus>(k)));
  return t;
}();
static_assert(ts::kStatusCount == 4, "kStatusText is indexed with status & 3");

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
      const unsigned kept = a.size < ts::kMaxScalarBytes ? a.size : ts::kMaxScalarBytes;
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
  const auto i = static_cast<unsigned>(op);
  return i < ts::kTransferOpCount ? ts::name(op) : ts::name(TransferOp::Copy);
}

// `cache`: optional (see LaunchTextCache::Prefix).
Out host_times(Out o, const OpRecord& r, LaunchTextCache* cache) {
  o.lit(kHostNsOpen);
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

// ,"call":id for a command made inside a BLAS call (entry/blas_hooks): rare, last.
Out blas_call(Out o, const OpRecord& r) {
  if (r.call != 0) {
    o.lit(ts::launch::call.member);
    o.u64(r.call);
  }
  return o;
}

Out device_and_status(Out o, const OpRecord& r, LaunchTextCache* cache) {
  o.lit(ts::launch::device_ns.member);
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
  o.lit(ts::launch::status.member);
  o.quoted(kStatusText[static_cast<unsigned>(r.status) & 3]);
  if (r.status == OpStatus::Error) {
    o.lit(ts::launch::exec_status.member);
    o.i64(r.exec_status);
  }
  o.lit(kRangesOpen);
  for (unsigned i = 0; i < r.n_ranges; ++i) {
    if (i) o.ch(',');
    o.u64(r.ranges[i]);
  }
  o.ch(']');
  return blas_call(o, r);
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
Out head(Out o, const ts::Text<N>& type_prefix, const OpRecord& r, LaunchTextCache* cache) {
  o.lit(type_prefix);
  if (!cache) {
    o.u64(r.seq);
    o.lit(ts::launch::tid.member);
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
    o.lit(ts::launch::tid.member);
    if (!h.tid_valid || h.tid != r.tid) {
      char* const end = write_i64(h.tid_text, r.tid);
      h.tid_len = static_cast<std::uint8_t>(end - h.tid_text);
      h.tid = r.tid;
      h.tid_valid = true;
    }
    std::memcpy(o.pos(), h.tid_text, sizeof h.tid_text);
    o.skip(h.tid_len);
  }
  o.lit(ts::launch::rc.member);
  o.i64(r.rc);
  return o;
}

// ,"kernel":...,"lws":... of a launch.
Out launch_fixed(Out o, const OpRecord& r) {
  o.lit(ts::launch::kernel.member);
  if (r.kernel_name) {
    o.raw(r.kernel_name);  // pre-quoted and escaped (json_quote)
  } else {
    o.lit("\"\"");
  }
  o.lit(ts::launch::kernel_id.member);
  o.u64(r.kernel_id);
  o.lit(ts::launch::program_id.member);
  o.u64(r.program_id);
  o.lit(ts::launch::queue_id.member);
  o.u64(r.queue_id);
  o.lit(ts::launch::context_id.member);
  o.u64(r.context_id);
  o.lit(ts::launch::device_id.member);
  o.u64(r.device_id);
  o.lit(ts::launch::gwo.member);
  o = sizes(o, r.has_gwo, r.gwo, r.work_dim);
  o.lit(ts::launch::gws.member);
  o = sizes(o, true, r.gws, r.work_dim);
  o.lit(ts::launch::lws.member);
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
                         a.size < ts::kMaxScalarBytes ? a.size : ts::kMaxScalarBytes) == 0;
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
      o = head(o, kLaunchHead, r, cache);
      if (r.api) {
        o.lit(ts::launch::api.member);
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
      o.lit(kArgsOpen);
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
        o.lit(ts::launch::args_total.member);
        o.u64(r.total_args);
      }
      o = host_times(o, r, cache);
      o = device_and_status(o, r, cache);
      if (r.capture != 0) {  // CLPROF_CAPTURE: rare, last
        o.lit(ts::launch::capture.member);
        o.u64(r.capture);
      }
      break;
    case RecordKind::Transfer:
      o = head(o, kTransferHead, r, cache);
      o.lit(ts::transfer::api.member);
      o.quoted_plain(r.api ? r.api : "");
      o.lit(ts::transfer::op.member);
      o.quoted_plain(op_name(r.op));
      o.lit(ts::launch::queue_id.member);
      o.u64(r.queue_id);
      o.lit(ts::launch::device_id.member);
      o.u64(r.device_id);
      o.lit(ts::transfer::bytes.member);
      o.u64(r.bytes);
      o.lit(ts::transfer::blocking.member);
      if (r.blocking) {
        o.lit("true");
      } else {
        o.lit("false");
      }
      o = host_times(o, r, cache);
      o = device_and_status(o, r, cache);
      break;
    case RecordKind::Sync:
      o = head(o, kSyncHead, r, cache);
      o.lit(ts::sync::api.member);
      o.quoted_plain(r.api ? r.api : "");
      o.lit(ts::launch::queue_id.member);
      o.u64(r.queue_id);
      o = host_times(o, r, cache);
      o = blas_call(o, r);
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

}  // namespace clprof::shim
