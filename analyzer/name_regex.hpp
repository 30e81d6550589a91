// The one regular-expression type of the analyzer, for patterns users give (--filter,
// --speedup, --rules files) and the built-in GEMM rules, searched in names read from input
// files. It runs on RE2: time linear in the name's length, bounded stack and memory,
// whatever the pattern and the name (no backtracking, so no catastrophic cases such as
// `(a+)+$`, and no recursion that a long name could overflow).
//
// Syntax: RE2's (docs/gemm-rules.md, "Regular expressions"): ECMAScript's everyday
// constructs (. [] [^] * + ? {n,m} | () (?:) ^ $ \d \w \s \b, escapes) mean the same;
// backreferences and lookaround are rejected as invalid.
//
// Threads: a NameRegex is immutable after construction; search() may run on any number of
// threads at once. Copies share one compiled program.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace clprof {

// An invalid pattern; what() says why (RE2's message, e.g. "missing ): (a").
class RegexError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class NameRegex {
 public:
  // Longest pattern accepted (bytes): patterns are typed by people or written in rules files.
  static constexpr size_t kMaxPatternBytes = 4096;

  // Matches nothing (a placeholder to assign a compiled pattern to).
  NameRegex() = default;
  // Compiles `pattern`. Throws RegexError when it is invalid, longer than
  // kMaxPatternBytes, or compiles to more than RE2's memory budget (8 MiB).
  explicit NameRegex(std::string_view pattern);

  // True if the pattern matches anywhere in `text` (a search, not a full match); always
  // false for a default-constructed NameRegex.
  bool search(std::string_view text) const;
  // The pattern as given.
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;
};

}  // namespace clprof
