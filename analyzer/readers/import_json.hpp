// A small JSON tree that remembers where each value starts, for the importers of other
// tools' profiles (Arm NN, dvdt-prof, Chrome traces, Caffe/CK). Those inputs are small
// (MBs) and read whole; what they need beyond a DOM is error messages that point at
// file:line:column of the offending value. Parsing is RapidJSON's (iterative, so deep
// nesting cannot overflow the stack), with a nesting limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
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

// The input being read: its name for messages and its bytes for line/column. One thread.
struct Source {
  std::string path;
  std::string_view content;

  // 1-based line and column (in bytes) of `offset`. Amortised linear over a file when the
  // offsets asked grow (as errors met while reading do): it resumes from the last answer.
  std::pair<size_t, size_t> line_column(size_t offset) const;
  // An InputError at `offset` ("file:line:column: message").
  InputError error_at(size_t offset, const std::string& message) const;

  mutable size_t last_offset_ = 0, last_line_ = 1, last_line_start_ = 0;  // line_column's cache
};

inline constexpr size_t kMaxDepth = 256;
// Largest time magnitude the importers accept (2^61 ns, about 73 years): differences and
// sums of a few such times cannot overflow int64 in the analyses.
inline constexpr int64_t kMaxAbsTimeNs = int64_t{1} << 61;

// A JSON syntax error; `at_end` when the input ended inside the value (a cut file), as
// opposed to a wrong byte somewhere in it.
class JsonSyntaxError : public InputError {
 public:
  JsonSyntaxError(InputError e, bool at_end) : InputError(std::move(e)), at_end_(at_end) {}
  bool at_end() const { return at_end_; }

 private:
  bool at_end_;
};

// Parses one JSON value starting at the first non-whitespace byte at or after `begin` and
// stops after it; `*end` (if given) receives the offset just past the value. Throws
// JsonSyntaxError at the fault (syntax, nesting deeper than kMaxDepth, empty input).
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

// The checks every importer makes before parsing: at most limits::kMaxImportBytes, and no
// NUL byte (profiles are text; a NUL is binary data or a file's unwritten hole, e.g. a
// sparse file). Throws InputError.
void check_input(const Source& source);

// What an importer read past in one input file: records it skipped (a bad record among
// good ones) and names it cut to limits::kMaxNameBytes. finish() reports each kind in one
// warning naming the first bad record ("FILE:LINE:COLUMN: what was expected"); when records
// were skipped and none was kept, nothing usable was read and that first bad record is
// the error instead.
class Findings {
 public:
  // `records`: what a record is, plural, for the warning ("trace events").
  Findings(std::string path, const char* records) : path_(std::move(path)), records_(records) {}

  // Runs `read` for one record; an InputError it throws skips that record. True if read.
  template <class Read>
  bool record(Read&& read) {
    try {
      read();
    } catch (InputError& e) {
      skip(std::move(e));
      return false;
    }
    ++kept_;
    return true;
  }
  // Counts a skipped record (the first one's error is kept for the message).
  void skip(InputError e);
  // The same for a record found bad after reading (out of file order): only the earliest
  // one's location is worked out, at finish().
  void skip_at(const Source& source, size_t offset, std::string message);
  // Counts a record read outside record().
  void keep() { ++kept_; }
  // `name` cut to limits::kMaxNameBytes (counted when cut).
  std::string name(std::string_view name);
  size_t skipped() const { return skipped_; }
  // Adds the warnings, or throws the first bad record (see above).
  void finish(Diagnostics& diagnostics) const;

 private:
  std::string path_;
  const char* records_;
  size_t kept_ = 0, skipped_ = 0, names_cut_ = 0;
  std::optional<InputError> first_;
  const Source* late_source_ = nullptr;  // skip_at()'s earliest record
  size_t late_offset_ = 0;
  std::string late_message_;
};

}  // namespace clprof::readers::import_json
