// How often a text occurs in another (non-overlapping), for tests that count marks in a page.
#pragma once

#include <cstddef>
#include <string>

namespace clprof::test {

inline size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size()))
    ++n;
  return n;
}

}  // namespace clprof::test
