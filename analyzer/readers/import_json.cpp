#include "readers/import_json.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "readers/limits.hpp"

namespace clprof::readers::import_json {

const Value* Value::find(std::string_view key) const {
  if (type != Type::Object) return nullptr;
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::pair<size_t, size_t> Source::line_column(size_t offset) const {
  if (offset > content.size()) offset = content.size();
  if (offset < last_offset_) {  // behind the last answer: start over
    last_offset_ = 0;
    last_line_ = 1;
    last_line_start_ = 0;
  }
  for (size_t i = last_offset_; i < offset; ++i) {
    if (content[i] == '\n') {
      ++last_line_;
      last_line_start_ = i + 1;
    }
  }
  last_offset_ = offset;
  return {last_line_, offset - last_line_start_ + 1};
}

InputError Source::error_at(size_t offset, const std::string& message) const {
  auto [line, column] = line_column(offset);
  return InputError(path, line, column, message);
}

size_t skip_whitespace(std::string_view text, size_t pos) {
  while (pos < text.size() &&
         (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\r' || text[pos] == '\n'))
    ++pos;
  return pos;
}

const char* type_name(Value::Type type) {
  switch (type) {
    case Value::Type::Null:
      return "null";
    case Value::Type::Bool:
      return "a boolean";
    case Value::Type::Number:
      return "a number";
    case Value::Type::String:
      return "a string";
    case Value::Type::Array:
      return "an array";
    case Value::Type::Object:
      return "an object";
  }
  return "?";
}

namespace {

// Builds the tree from RapidJSON's SAX events. Value start offsets are recovered from the
// end of the previous token: between two tokens JSON allows only whitespace, ':' and ','.
class TreeBuilder {
 public:
  TreeBuilder(std::string_view content, const rapidjson::MemoryStream* stream, size_t base,
              bool comments)
      : content_(content), stream_(stream), base_(base), last_end_(base), comments_(comments) {}

  bool Null() { return scalar(Value::Type::Null); }
  bool Bool(bool b) {
    Value v = make(Value::Type::Bool);
    v.boolean = b;
    return add(std::move(v));
  }
  // Numbers arrive as text (kParseNumbersAsStringsFlag), so ms/us values convert exactly.
  bool Int(int) { return false; }
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* str, rapidjson::SizeType length, bool) {
    Value v = make(Value::Type::Number);
    v.text.assign(str, length);
    return add(std::move(v));
  }
  bool String(const char* str, rapidjson::SizeType length, bool) {
    Value v = make(Value::Type::String);
    v.text.assign(str, length);
    return add(std::move(v));
  }
  bool Key(const char* str, rapidjson::SizeType length, bool) {
    last_end_ = base_ + stream_->Tell();
    keys_.back().assign(str, length);
    return true;
  }
  bool StartObject() { return open(Value::Type::Object); }
  bool StartArray() { return open(Value::Type::Array); }
  bool EndObject(rapidjson::SizeType) { return close(); }
  bool EndArray(rapidjson::SizeType) { return close(); }

  bool too_deep() const { return too_deep_; }
  size_t deep_offset() const { return deep_offset_; }
  Value take_root() { return std::move(root_); }

 private:
  // Past whitespace, ':' and ',' (and comments, when allowed) from `p`.
  size_t skip_separators(size_t p) const {
    while (p < content_.size()) {
      const char c = content_[p];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ':' || c == ',') {
        ++p;
      } else if (comments_ && c == '/' && p + 1 < content_.size() && content_[p + 1] == '/') {
        const size_t nl = content_.find('\n', p);
        p = nl == std::string_view::npos ? content_.size() : nl + 1;
      } else if (comments_ && c == '/' && p + 1 < content_.size() && content_[p + 1] == '*') {
        const size_t close = content_.find("*/", p + 2);
        p = close == std::string_view::npos ? content_.size() : close + 2;
      } else {
        break;
      }
    }
    return p;
  }
  size_t value_start() const { return skip_separators(last_end_); }
  Value make(Value::Type type) {
    Value v;
    v.type = type;
    v.offset = value_start();
    last_end_ = base_ + stream_->Tell();
    return v;
  }
  bool scalar(Value::Type type) { return add(make(type)); }
  bool add(Value v) {
    if (stack_.empty()) {
      root_ = std::move(v);
    } else if (stack_.back().type == Value::Type::Array) {
      stack_.back().items.push_back(std::move(v));
    } else {
      stack_.back().members.emplace_back(std::move(keys_.back()), std::move(v));
    }
    return true;
  }
  bool open(Value::Type type) {
    size_t start = value_start();
    if (stack_.size() >= kMaxDepth) {
      too_deep_ = true;
      deep_offset_ = start;
      return false;
    }
    Value v;
    v.type = type;
    v.offset = start;
    stack_.push_back(std::move(v));
    keys_.emplace_back();
    last_end_ = start + 1;
    return true;
  }
  bool close() {
    // The closing bracket is the first byte after the separators (the last element ended
    // at last_end_); RapidJSON has already checked the syntax.
    last_end_ = skip_separators(last_end_) + 1;
    Value v = std::move(stack_.back());
    stack_.pop_back();
    keys_.pop_back();
    return add(std::move(v));
  }

  std::string_view content_;
  const rapidjson::MemoryStream* stream_;
  size_t base_;
  size_t last_end_;
  std::vector<Value> stack_;
  std::vector<std::string> keys_;
  Value root_;
  bool comments_;
  bool too_deep_ = false;
  size_t deep_offset_ = 0;
};

}  // namespace

Value parse_value(const Source& source, size_t begin, size_t* end, bool allow_comments) {
  begin = skip_whitespace(source.content, begin);
  if (begin >= source.content.size())
    throw JsonSyntaxError(source.error_at(begin, "expected a JSON value, found end of input"),
                          true);
  rapidjson::MemoryStream stream(source.content.data() + begin, source.content.size() - begin);
  TreeBuilder builder(source.content, &stream, begin, allow_comments);
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseStopWhenDoneFlag |
                              rapidjson::kParseNumbersAsStringsFlag;
  rapidjson::ParseResult ok =
      allow_comments ? reader.Parse<kFlags | rapidjson::kParseCommentsFlag>(stream, builder)
                     : reader.Parse<kFlags>(stream, builder);
  if (!ok) {
    if (builder.too_deep())
      throw JsonSyntaxError(
          source.error_at(builder.deep_offset(),
                          "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels"),
          false);
    size_t at = begin + ok.Offset();
    std::string what = rapidjson::GetParseError_En(ok.Code());
    if (!what.empty() && what.back() == '.') what.pop_back();
    if (at < source.content.size() && source.content[at] == '\0') what += " (NUL byte in input)";
    throw JsonSyntaxError(source.error_at(at, "invalid JSON: " + what),
                          at >= source.content.size());
  }
  if (end) *end = begin + stream.Tell();
  return builder.take_root();
}

bool scaled_integer(std::string_view text, int scale, int64_t* out) {
  // Plain decimals ([-]digits[.digits]) are converted digit by digit so that e.g.
  // "600.648" us is exactly 600648 ns; anything with an exponent goes through double.
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  bool has_exponent = text.find_first_of("eE") != std::string_view::npos;
  if (!has_exponent && scale >= 0 && scale <= 9) {
    __int128 acc = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      acc = acc * 10 + (text[i] - '0');
      if (acc > static_cast<__int128>(INT64_MAX) * 10) return false;
    }
    int frac_used = 0;
    bool round_up = false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (frac_used < scale) {
          acc = acc * 10 + (text[i] - '0');
          ++frac_used;
        } else if (frac_used == scale) {
          round_up = text[i] >= '5';
          ++frac_used;  // only the first dropped digit decides the rounding
        }
      }
    }
    if (i != text.size() || digits == 0) return false;
    for (int k = frac_used < scale ? frac_used : scale; k < scale; ++k) acc *= 10;
    if (round_up) acc += 1;
    if (negative) acc = -acc;
    if (acc > INT64_MAX || acc < INT64_MIN) return false;
    *out = static_cast<int64_t>(acc);
    return true;
  }
  std::string copy(text);
  char* endp = nullptr;
  double d = std::strtod(copy.c_str(), &endp);
  if (endp != copy.c_str() + copy.size() || !std::isfinite(d)) return false;
  d *= std::pow(10.0, scale);
  if (!(d > -9.2e18 && d < 9.2e18)) return false;
  *out = std::llround(d);
  return true;
}

const Value& expect_object(const Source& s, const Value& v, const char* what) {
  if (!v.is_object())
    throw s.error_at(v.offset,
                     std::string("expected ") + what + " (an object), found " + type_name(v.type));
  return v;
}

const Value& expect_array(const Source& s, const Value& v, const char* what) {
  if (!v.is_array())
    throw s.error_at(v.offset,
                     std::string("expected ") + what + " (an array), found " + type_name(v.type));
  return v;
}

const std::string& expect_string(const Source& s, const Value& v, const char* what) {
  if (!v.is_string())
    throw s.error_at(v.offset,
                     std::string("expected ") + what + " (a string), found " + type_name(v.type));
  return v.text;
}

const Value& expect_member(const Source& s, const Value& obj, std::string_view key) {
  const Value* v = obj.find(key);
  if (!v)
    throw s.error_at(obj.offset, "expected member \"" + std::string(key) + "\" in this object");
  return *v;
}

int64_t expect_int(const Source& s, const Value& v, const char* what, int64_t min, int64_t max) {
  int64_t x = 0;
  if (!v.is_number() || v.text.find_first_of(".eE") != std::string::npos ||
      !scaled_integer(v.text, 0, &x) || x < min || x > max)
    throw s.error_at(v.offset, std::string("expected ") + what + " (an integer in [" +
                                   std::to_string(min) + ", " + std::to_string(max) + "])" +
                                   (v.is_number() ? ", found " + v.text : std::string()));
  return x;
}

int64_t expect_scaled(const Source& s, const Value& v, int scale, const char* what) {
  int64_t x = 0;
  if (!v.is_number())
    throw s.error_at(v.offset,
                     std::string("expected ") + what + " (a number), found " + type_name(v.type));
  if (!scaled_integer(v.text, scale, &x) || x > kMaxAbsTimeNs || x < -kMaxAbsTimeNs)
    throw s.error_at(v.offset, std::string("expected ") + what + " in range, found " + v.text);
  return x;
}

void check_input(const Source& source) {
  if (source.content.size() > limits::kMaxImportBytes)
    throw InputError(source.path, 0, 0,
                     "larger than the " + std::to_string(limits::kMaxImportBytes >> 20) +
                         " MiB the importers read (" + std::to_string(source.content.size()) +
                         " bytes)");
  const size_t nul = source.content.find('\0');
  if (nul != std::string_view::npos)
    throw source.error_at(
        nul, "expected text, found a NUL byte (binary data, or a hole in a sparse file)");
}

void Findings::skip(InputError e) {
  if (!first_) first_.emplace(std::move(e));
  ++skipped_;
}

void Findings::skip_at(const Source& source, size_t offset, std::string message) {
  if (!late_source_ || offset < late_offset_) {
    late_source_ = &source;
    late_offset_ = offset;
    late_message_ = std::move(message);
  }
  ++skipped_;
}

std::string Findings::name(std::string_view name) {
  bool cut = false;
  std::string_view kept = limits::capped_name(name, &cut);
  names_cut_ += cut;
  return std::string(kept);
}

void Findings::finish(Diagnostics& diagnostics) const {
  if (skipped_ > 0) {
    const InputError first = first_ ? *first_ : late_source_->error_at(late_offset_, late_message_);
    if (kept_ == 0) throw first;
    diagnostics.warnings.push_back(path_ + ": " + std::to_string(skipped_) + " " + records_ +
                                   " skipped, the first at " + first.what());
  }
  if (names_cut_ > 0)
    diagnostics.warnings.push_back(path_ + ": " + std::to_string(names_cut_) +
                                   " names longer than " + std::to_string(limits::kMaxNameBytes) +
                                   " bytes were cut to that length");
}

}  // namespace clprof::readers::import_json
