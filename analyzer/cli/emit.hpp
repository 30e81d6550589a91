// Writing a command's result: to -o FILE or stdout, in the requested format, the table
// fitted to the terminal (output/terminal.hpp).
#pragma once

#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "cli/request.hpp"
#include "output/render.hpp"

namespace clprof::cli {

// Renders `result` as `request` asks and writes it out piece by piece. Throws
// std::runtime_error when the output cannot be written.
void emit(const output::Result& result, const Request& request);
// Writes `text` as it is (--list-rules, --list-options).
void emit_text(const std::string& text, const Request& request);

// -o FILE or stdout, checked for write errors.
class OutputStream {
 public:
  explicit OutputStream(const std::string& path);  // "" = stdout
  ~OutputStream();
  void write(std::string_view text);
  // Flushes and checks that everything was written.
  void finish();
  bool to_stdout() const { return path_.empty(); }

 private:
  std::string path_;
  std::unique_ptr<std::ofstream> file_;
  std::ostream* out_;
};

}  // namespace clprof::cli
