// A small JSON tree that remembers where each value starts, for the importers of other
// tools' profiles (Arm NN, dvdt-prof, Chrome traces, Caffe/CK). Those inputs are small
// (MBs) and read whole; what they need beyond a DOM is error messages that point at
// file:line:column of the offending value. Parsing is RapidJSON's (iterative, so deep
// nesting cannot overflow the stack), with a nesting limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "readers/reader.hpp"

namespace clprof::readers::import_json {

struct Value {
  enum class Type : uint8_t { Null, Bool, Number, String, Array, Object };
  Type type = Type::Null;
  bool boolean = false;
  size_t offset = 0;         // byte offset of the value's first character in the input
  std::string text;          // String: the decoded string; Number: the JSON number text
  std::vector<Value> items;  // Array: the elements
  std::vector<std::pair<std::string, Value>> members;  // Object: members in input order

  bool is_object() const { return type == Type::Object; }
  bool is_array() const { return type == Type::Array; }
  bool is_string() const { return type == Type::String; }
  bool is_number() const { return type == Type::Number; }
  bool is_null() const { return type == Type::Null; }
  // The first member named `key`, or nullptr (also when this is not an object).
  const Value* find(std::string_view key) const;
};

// The input being read: its name for messages and its bytes for line/column.
struct Source {
  std::string path;
  std::string_view content;

  // 1-based line and column (in bytes) of `offset`.
  std::pair<size_t, size_t> line_column(size_t offset) const;
  // An InputError at `offset` ("file:line:column: message").
  InputError error_at(size_t offset, const std::string& message) const;
};

inline constexpr size_t kMaxDepth = 256;
// Largest time magnitude the importers accept (2^61 ns, about 73 years): differences and
// sums of a few such times cannot overflow int64 in the analyses.
inline constexpr int64_t kMaxAbsTimeNs = int64_t{1} << 61;

// Parses one JSON value starting at the first non-whitespace byte at or after `begin` and
// stops after it; `*end` (if given) receives the offset just past the value. Throws
// InputError at the fault (syntax, nesting deeper than kMaxDepth, empty input).
// `allow_comments`: // and /* */ comments count as whitespace (rules files).
Value parse_value(const Source& source, size_t begin, size_t* end = nullptr,
                  bool allow_comments = false);

// Offset of the first byte at or after `pos` that is not JSON whitespace (size() if none).
size_t skip_whitespace(std::string_view text, size_t pos);

// `number_text` (JSON number syntax) times 10^scale, rounded to nearest, as int64. Exact
// for plain decimals. False when out of int64 range or not a number.
bool scaled_integer(std::string_view number_text, int scale, int64_t* out);

// Typed accessors that throw InputError at the value with "expected <what>".
const Value& expect_object(const Source& s, const Value& v, const char* what);
const Value& expect_array(const Source& s, const Value& v, const char* what);
const std::string& expect_string(const Source& s, const Value& v, const char* what);
// A required member of object `obj` (InputError at the object when missing).
const Value& expect_member(const Source& s, const Value& obj, std::string_view key);
// An integral number in [min, max].
int64_t expect_int(const Source& s, const Value& v, const char* what, int64_t min = INT64_MIN,
                   int64_t max = INT64_MAX);
// A number (any JSON number) times 10^scale, rounded, as int64 (e.g. ms -> ns: scale 6),
// within +-kMaxAbsTimeNs.
int64_t expect_scaled(const Source& s, const Value& v, int scale, const char* what);

// "object", "array", ... for messages.
const char* type_name(Value::Type type);

}  // namespace clprof::readers::import_json
