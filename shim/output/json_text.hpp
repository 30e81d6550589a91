// The JSON text helpers both writers share (output/record_format.cpp's hot records,
// output/json_line.cpp's cold lines): RapidJSON's Writer over a StringBuffer. Internal to
// shim/output/. Threads: any; a Writer belongs to its caller.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <string_view>

#include "output/utf8.hpp"

namespace clprof::shim::json_text {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline void key(Writer& w, std::string_view k) {
  w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}
// Every string the trace holds comes from the app or its environment (kernel names, build
// options, sources, range names, the command line): JSON text must be UTF-8, and the
// analyzer's parser rejects a whole trace over one stray Latin-1 byte.
inline void string(Writer& w, std::string_view s) {
  if (utf8_valid_prefix(s) == s.size()) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    return;
  }
  const std::string fixed = valid_utf8(s);
  w.String(fixed.data(), static_cast<rapidjson::SizeType>(fixed.size()));
}

}  // namespace clprof::shim::json_text
