// Integers as text, fast: the hot formatter's digits (record_format.cpp). Every writer
// stores whole 8-byte words, so a buffer needs up to 8 bytes of room past the text (the
// formatter's buffers have it, op_chars_bound); they return the end of the text.
// Pure functions; threads: any.
#pragma once

#include <cstdint>
#include <cstring>

namespace clprof::shim {

inline constexpr std::uint32_t kPow10[10] = {1u,      10u,      100u,      1000u,      10000u,
                                             100000u, 1000000u, 10000000u, 100000000u, 1000000000u};

// Decimal digits of v (1 <= v < 10^8): floor(log10) from the bit length, one table
// correction.
inline unsigned decimal_digits32(std::uint32_t v) {
  const unsigned bits = 32u - static_cast<unsigned>(__builtin_clz(v | 1));
  const unsigned t = (bits * 1233u) >> 12;  // ~ bits * log10(2)
  return t + 1 - (v < kPow10[t]);
}

// v < 10^8 as eight ASCII digits (leading zeros kept) in one 64-bit register, the first
// digit in the lowest byte: two 4-digit halves in 32-bit lanes, then four 2-digit quarters
// in 16-bit lanes, then eight digits in bytes; the divisions by 100 and 10 are
// multiply-and-shift, exact for these ranges.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "eight_digits() puts the first digit in the lowest byte of its result");
inline std::uint64_t eight_digits(std::uint32_t v) {
  const std::uint64_t high4 = v / 10000;
  std::uint64_t x = high4 | ((v - high4 * 10000) << 32);  // 2 x (0..9999), 32-bit lanes
  const std::uint64_t div100 = ((x * 10486) >> 20) & 0x0000007F0000007FULL;
  x = ((x - div100 * 100) << 16) | div100;  // 4 x (0..99), 16-bit lanes
  const std::uint64_t div10 = ((x * 103) >> 10) & 0x000F000F000F000FULL;
  x = ((x - div10 * 10) << 8) | div10;  // 8 x (0..9), bytes
  return x + 0x3030303030303030ULL;     // '0'
}

// v < 10^8 as exactly 8 digits (leading zeros kept): one 8-byte store.
inline char* write_8_digits(char* p, std::uint32_t v) {
  const std::uint64_t x = eight_digits(v);
  std::memcpy(p, &x, 8);
  return p + 8;
}

// v < 10^8, without leading zeros. Stores 8 bytes (the digits, then zeros past them, which
// the caller's next text overwrites: every buffer here has that room, op_chars_bound).
inline char* write_below_1e8(char* p, std::uint32_t v) {
  if (v < 10) {
    *p = static_cast<char>('0' + v);
    return p + 1;
  }
  const unsigned n = decimal_digits32(v);
  const std::uint64_t x = eight_digits(v) >> (8 * (8 - n));  // drop the leading zeros
  std::memcpy(p, &x, 8);
  return p + n;
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

inline char* write_i64(char* p, std::int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return write_u64(p, 0 - static_cast<std::uint64_t>(v));
  }
  return write_u64(p, static_cast<std::uint64_t>(v));
}

// Lower-case hex of the four bytes of v, the lowest-addressed (lowest on this
// little-endian host) first, as eight characters in one register, the first in its lowest
// byte: each byte goes to a 16-bit lane, its nibbles are swapped into text order, and
// each nibble becomes '0'..'9' or 'a'..'f' without a branch (n + 6 carries into bit 4
// exactly when n >= 10).
inline std::uint64_t hex_of_4_bytes(std::uint32_t v) {
  std::uint64_t x = (v & 0xFFFFu) | (static_cast<std::uint64_t>(v & 0xFFFF0000u) << 16);
  x = (x & 0x000000FF000000FFULL) | ((x & 0x0000FF000000FF00ULL) << 8);
  x = ((x >> 4) & 0x000F000F000F000FULL) | ((x & 0x000F000F000F000FULL) << 8);
  const std::uint64_t letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
  return x + 0x3030303030303030ULL + letters * ('a' - '0' - 10);
}

}  // namespace clprof::shim
