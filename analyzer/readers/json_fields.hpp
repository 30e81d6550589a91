// Typed members of a simdjson DOM object, for the small JSON files beside a trace (a
// capture's manifest: replay/capture_folder.cpp; a stored sweep: readers/sweeps.cpp). Each
// failure is a sentence naming the key, handed to bad(), which throws the caller's own
// error naming the file. Header-only. Threads: any (no state but the subclass's).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace clprof::readers {

class JsonFields {
 public:
  virtual ~JsonFields() = default;
  // Throws: "FILE: ...: why" in the caller's error type.
  [[noreturn]] virtual void bad(const std::string& why) const = 0;

  // The document `text` parsed with `parser` (which keeps it), its "format" and "version"
  // checked against `format` and version 1.
  simdjson::dom::element document(simdjson::dom::parser& parser, const std::string& text,
                                  const char* format) const {
    simdjson::dom::element root;
    if (auto e = parser.parse(text).get(root)) bad(simdjson::error_message(e));
    if (str(root, "format") != format) bad(std::string("\"format\" is not \"") + format + "\"");
    if (uint(root, "version") != 1)
      bad("unsupported version " + std::to_string(uint(root, "version")) +
          " (this clprof reads 1)");
    return root;
  }

  simdjson::dom::element at(simdjson::dom::element obj, const char* key) const {
    simdjson::dom::element v;
    if (obj.at_key(key).get(v)) bad(std::string("no \"") + key + "\"");
    return v;
  }
  std::string str(simdjson::dom::element obj, const char* key) const {
    std::string_view s;
    if (at(obj, key).get(s)) bad(std::string("\"") + key + "\" is not a string");
    return std::string(s);
  }
  uint64_t uint(simdjson::dom::element obj, const char* key) const {
    uint64_t x = 0;
    if (at(obj, key).get(x)) bad(std::string("\"") + key + "\" is not a whole number");
    return x;
  }
  bool boolean(simdjson::dom::element obj, const char* key) const {
    bool x = false;
    if (at(obj, key).get(x)) bad(std::string("\"") + key + "\" is not true or false");
    return x;
  }
};

}  // namespace clprof::readers
