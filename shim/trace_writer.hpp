// The trace file: header line, one record per line, the end record and "]}".
// Writes whole lines only, with write(2), so a killed process leaves complete lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace clprof::shim {

// Not thread-safe: owned by one thread at a time (the harvester, then the finaliser).
class TraceWriter {
 public:
  // Creates (truncates) `path` and writes `header_line` + "\n". False with `error`
  // set when the file cannot be created or written.
  bool open(const std::string& path, std::string_view header_line, std::string& error);
  bool is_open() const { return fd_ >= 0; }

  // Buffers one record object as the line `record,\n`.
  void append(std::string_view record);
  // Writes the buffered lines. Threads: owner only.
  void flush();
  std::size_t buffered_bytes() const { return buffer_.size(); }

  // Buffers `end_record` + "]}\n", flushes and closes.
  void finish(std::string_view end_record);

  // Forgets the file without writing (a fork child dropping its parent's trace).
  void abandon() {
    fd_ = -1;
    buffer_.clear();
  }

 private:
  bool write_all(const char* data, std::size_t n);
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace clprof::shim
