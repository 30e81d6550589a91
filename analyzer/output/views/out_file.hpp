// A file a streaming view writes front to back, which it can cut back to an earlier
// position: the clprof trace reader may deliver a file's launches twice (when a device
// record comes after launches on it, it reads the launches again once every device is
// known), and a view that writes as it goes then drops what the first reading wrote.
// Output to stdout goes through an unnamed temporary file, copied out by finish().
// Single-threaded. Throws std::runtime_error naming the file on any I/O error.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace clprof::output::views {

class OutFile {
 public:
  // `path` "" = stdout. Creates or truncates the file.
  explicit OutFile(const std::string& path);
  ~OutFile();
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  void write(std::string_view text);
  // The position after everything written so far.
  uint64_t position();
  // Drops everything written after `position` (a value position() returned).
  void cut_back(uint64_t position);
  // Flushes (copies the temporary file to stdout) and closes; checks every write.
  void finish();
  const std::string& name() const { return name_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  std::FILE* file_ = nullptr;
  bool to_stdout_ = false;
  std::string name_;  // for messages
};

}  // namespace clprof::output::views
