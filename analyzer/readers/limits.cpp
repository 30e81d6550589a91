#include "readers/limits.hpp"

namespace clprof::readers::limits {

std::string_view capped_name(std::string_view name, bool* cut) {
  if (cut) *cut = name.size() > kMaxNameBytes;
  if (name.size() <= kMaxNameBytes) return name;
  size_t end = kMaxNameBytes;
  // Back over UTF-8 continuation bytes (10xxxxxx) so that no character is split.
  while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
  return name.substr(0, end);
}

std::string for_message(std::string_view text) {
  constexpr size_t kMax = 64;
  size_t n = text.size() < kMax ? text.size() : kMax;
  while (n < text.size() && n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (n < text.size()) out += "...";
  return out;
}

}  // namespace clprof::readers::limits
