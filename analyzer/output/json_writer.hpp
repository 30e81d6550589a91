// A small pretty-printing JSON writer for command output (wraps RapidJSON's PrettyWriter).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace clprof::output {

class JsonWriter {
 public:
  JsonWriter();
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view k);
  void value(std::string_view v);
  void value(const char* v) { value(std::string_view(v)); }
  void value(const std::string& v) { value(std::string_view(v)); }
  void value(int64_t v);
  void value(uint64_t v);
  void value(int v) { value(static_cast<int64_t>(v)); }
  void value(unsigned v) { value(static_cast<uint64_t>(v)); }
  void value(double v);  // non-finite values become null
  void value(bool v);
  void null();
  // nullopt becomes null.
  template <typename T>
  void value(const std::optional<T>& v) {
    if (v)
      value(*v);
    else
      null();
  }
  // key(k) then value(v).
  template <typename T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  // The document written so far, with a final newline.
  std::string str() const;
  // The text written since the last drain() (no final newline), removed from the writer:
  // for streaming a large document out piece by piece.
  std::string drain();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clprof::output
