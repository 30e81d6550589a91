// The one small interface every input format implements: bytes in, model::Run out.
// Readers are stateless singletons listed in registry.cpp; the CLI picks one by sniffing
// the content (or by --input-format).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace clprof::readers {

// A rejected input: where, and what was expected there. line/column are 1-based; 0 when
// unknown. what() is "file:line:column: message".
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, size_t line, size_t column, std::string message);
  const std::string& file() const { return file_; }
  size_t line() const { return line_; }
  size_t column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  size_t line_, column_;
  std::string message_;
};

// Opens `path` read-only and returns its descriptor (the caller closes it), with the file's
// size in `size_bytes`. Throws InputError (line 0) unless it is a readable regular file:
// the readers need the size up front and may read twice, which pipes cannot do.
int open_regular_file(const std::string& path, uint64_t& size_bytes);

// Non-fatal findings (e.g. a truncated trace) the CLI prints once as warnings.
struct Diagnostics {
  std::vector<std::string> warnings;
};

// `text` (from an input file: a name, a token) made safe to print in a message: control
// characters, DEL and bytes that are not UTF-8 become \n, \t, \xNN escapes, a backslash
// becomes \\; at most `max_bytes` bytes of `text` are shown, then "...". Pure.
std::string printable(std::string_view text, size_t max_bytes = 200);

class Reader {
 public:
  virtual ~Reader() = default;
  // Short stable name used by --input-format ("clprof", "armnn", "dvdt", "chrome", "caffe").
  virtual std::string_view name() const = 0;
  // One line for --help.
  virtual std::string_view description() const = 0;
  // True if `head` (the first few KiB of the input) looks like this format.
  virtual bool sniff(std::string_view head) const = 0;
  // Appends the input to `run` (several inputs make one run). `path` is for messages only.
  // Throws InputError on malformed input; never crashes on any bytes.
  virtual void read(const std::string& path, std::string_view content, model::Run& run,
                    Diagnostics& diagnostics) const = 0;
};

// All readers, in sniffing order (most specific first). Defined in registry.cpp.
const std::vector<const Reader*>& all_readers();
// The reader named `name`, or nullptr.
const Reader* find_reader(std::string_view name);

}  // namespace clprof::readers
