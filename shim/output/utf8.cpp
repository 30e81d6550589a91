#include "output/utf8.hpp"

namespace clprof::shim {
namespace {

// Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF) that starts s[0], or 0 when s[0] starts none.
std::size_t utf8_sequence_length(const unsigned char* s, std::size_t n) {
  const unsigned c = s[0];
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c == 0xE0) {
    len = 3;
    lo = 0xA0;
  } else if (c == 0xED) {
    len = 3;
    hi = 0x9F;
  } else if (c >= 0xE1 && c <= 0xEF) {
    len = 3;
  } else if (c == 0xF0) {
    len = 4;
    lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    len = 4;
  } else if (c == 0xF4) {
    len = 4;
    hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if ((s[k] & 0xC0) != 0x80) return 0;
  }
  return len;
}

}  // namespace

std::size_t utf8_valid_prefix(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    if (len == 0) break;
    i += len;
  }
  return i;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 8);
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(p + i, s.size() - i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER, for this one byte
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  return out;
}

}  // namespace clprof::shim
