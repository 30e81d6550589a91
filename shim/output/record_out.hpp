// The hot formatter's output cursor (Out) and the fixed-size pieces it copies (QuotedName,
// prefixed digits): the building blocks of record_format.cpp's launch, transfer and sync
// records, kept apart from what those records say. Inline, so the formatter compiles to
// what it did with them in its own file.
//
// Every piece is written with moves of a fixed size that may run past the text (up to 32
// bytes, or 8 for digits: number_text.hpp), so the buffer needs op_chars_bound's room.
// Pure functions on caller-owned memory; threads: any.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "clprof/trace_schema.hpp"
#include "output/number_text.hpp"
#include "output/record_format.hpp"

namespace clprof::shim::record_text {

namespace ts = clprof::trace;

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
  template <std::size_t N>
  void lit(const ts::Text<N>& t) {  // a text of the schema (a key, a record's opening)
    lit(t.c);
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

}  // namespace clprof::shim::record_text
