#include "name_regex.hpp"

#include <re2/re2.h>

namespace clprof {

NameRegex::NameRegex(std::string_view pattern) : pattern_(pattern) {
  if (pattern.size() > kMaxPatternBytes)
    throw RegexError("pattern longer than " + std::to_string(kMaxPatternBytes) + " bytes");
  RE2::Options options;
  // RE2 would otherwise print its own copy of the error on stderr; ours names the option.
  options.set_log_errors(false);
  auto re =
      std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    std::string why = re->error();
    // RE2 says "invalid perl operator: (?<" or "invalid escape sequence: \1" for the
    // ECMAScript features it does not have; say so.
    if (re->error_code() == RE2::ErrorBadPerlOp || re->error_code() == RE2::ErrorBadEscape)
      why += " (backreferences and lookaround are not supported)";
    throw RegexError(why);
  }
  re_ = std::move(re);
}

bool NameRegex::search(std::string_view text) const {
  return re_ && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace clprof
